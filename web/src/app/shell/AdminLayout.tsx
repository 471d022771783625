import { useQuery } from '@tanstack/react-query';
import { Link, Outlet, useRouterState } from '@tanstack/react-router';
import { canManagePeople, meQuery } from '../../session/session';
import { useCurrentTabInView } from './useCurrentTabInView';
import './project-nav.css';

/**
 * The service's administration pages, under one bar like a project's pages: each tab shown only to the roles
 * that may use its page (a page typed in by another role says "not allowed" itself). Addresses stay flat
 * (`/people`, `/admin/…`); the tab is the one whose address the current one starts with.
 */
const TABS = [
  { to: '/people', label: 'People', owner: false },
  { to: '/admin/custom-fields', label: 'Custom fields', owner: false },
  { to: '/admin/statuses', label: 'Result statuses', owner: false },
  { to: '/admin/integrations', label: 'Integrations', owner: false },
  { to: '/admin/webhooks', label: 'Webhooks', owner: false },
  { to: '/admin/audit-log', label: 'Audit log', owner: false },
  { to: '/admin/jobs', label: 'Background jobs', owner: false },
  { to: '/admin/api-keys', label: 'API keys', owner: false },
  { to: '/admin/import-project', label: 'Import a project', owner: false },
  { to: '/admin/instance', label: 'Instance', owner: true },
] as const;

export function AdminLayout() {
  const me = useQuery(meQuery).data;
  const pathname = useRouterState({ select: (s) => s.location.pathname });
  const admin = me !== undefined && canManagePeople(me.role);
  const tabs = TABS.filter((t) => !t.owner || me?.role === 'owner');
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
