import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { Link, Outlet, useRouter, useRouterState } from '@tanstack/react-router';
import { adminRoute, peopleAreaRoute } from '../../routing/layouts';
import { navEntries } from '../../routing/nav';
import { hasRole, isAdmin, meQuery } from '../../session/session';
import { useCurrentTabInView } from './useCurrentTabInView';
import './project-nav.css';

/**
 * The service's administration pages, under one bar like a project's pages: each tab shown only to the roles
 * that may use its page (a page typed in by another role meets its route's guard, routing/RequireRole.tsx).
 * Addresses stay flat (`/people`, `/admin/…`); the tab is the one whose address the current one starts with. The
 * tabs are the routes' under this layout (each declares its own: routing/nav.ts).
 */
export function AdminLayout() {
  const me = useQuery(meQuery).data;
  const pathname = useRouterState({ select: (s) => s.location.pathname });
  const admin = me !== undefined && isAdmin(me.role);
  const router = useRouter();
  const all = useMemo(
    () => navEntries(Object.values(router.routesById), [peopleAreaRoute, adminRoute]),
    [router],
  );
  const tabs = all.filter((t) => me !== undefined && hasRole(me.role, t.role));
  // Keyed by the address and the role: the bar appears once the role is known.
  const navRef = useCurrentTabInView(`${pathname} ${admin}`);
  return (
    <>
      {admin && (
        <nav ref={navRef} aria-label="Administration" className="project-nav">
          <span className="project-nav-name">Administration</span>
          <ul className="project-nav-tabs">
            {tabs.map((t) => {
              const current = pathname === t.to || pathname.startsWith(`${t.to}/`);
              return (
                <li key={t.to}>
                  <Link to={t.to} className="project-nav-tab" aria-current={current ? 'page' : undefined}>
                    {t.label}
                  </Link>
                </li>
              );
            })}
          </ul>
        </nav>
      )}
      <Outlet />
    </>
  );
}
