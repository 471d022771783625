import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { Link, Outlet, useParams, useRouter, useRouterState } from '@tanstack/react-router';
import { projectRoute } from '../../routing/layouts';
import { projectQuery, projectsQuery } from '../../api/queries';
import { navEntries, type NavEntry } from '../../routing/nav';
import { hasRole, meQuery } from '../../session/session';
import { useCurrentTabInView } from './useCurrentTabInView';
import './project-nav.css';

/**
 * Which tab a project address belongs to, by its first segment after `/project/<code>`: each tab names its
 * segments (a case counts under Test cases, a run under Runs); a page of no tab's segment marks none.
 */
function tabOf(tabs: readonly NavEntry[], pathname: string): NavEntry | undefined {
  const segment = decodeURIComponent(pathname.split('/')[3] ?? '');
  return tabs.find((t) => t.segments?.includes(segment));
}

/** Every page of a project: the project's navigation bar, then the page. */
export function ProjectLayout() {
  const { code: rawCode } = useParams({ from: '/app/project/$code' });
  const code = rawCode.toUpperCase();
  const pathname = useRouterState({ select: (s) => s.location.pathname });
  const router = useRouter();
  const all = useMemo(() => navEntries(Object.values(router.routesById), [projectRoute]), [router]);
  const current = tabOf(all, pathname);
  const me = useQuery(meQuery).data;
  // Before the role is known, the tabs every role may use.
  const tabs = all.filter((t) => hasRole(me?.role ?? 'viewer', t.role));
  // The switcher has loaded the list already; an unknown project is the page's to explain. A page that reads
  // the project itself (the dashboard, the settings) may have it first: the bar takes whichever is there.
  const listed = useQuery({
    ...projectsQuery,
    select: (all) => all.find((p) => p.code.toUpperCase() === code),
  }).data;
  const own = useQuery({ ...projectQuery(code), enabled: false }).data;
  const project = listed ?? own;
  const navRef = useCurrentTabInView(current?.to);

  return (
    <>
      <nav ref={navRef} aria-label="Project" className="project-nav">
        <span className="project-nav-name">
          <span className="project-code">{project?.code ?? code}</span>
          {project && <span className="project-nav-title">{project.title}</span>}
          {project?.archivedAt && <span className="badge">Archived</span>}
        </span>
        <ul className="project-nav-tabs">
          {tabs.map((t) => (
            <li key={t.to}>
              <Link
                to={t.to}
                params={{ code }}
                className="project-nav-tab"
                // Marked by section, not by exact address: a run is under Runs, a case under Test cases.
                activeOptions={{ exact: true, includeSearch: false }}
                aria-current={current === t ? 'page' : undefined}
                data-current={current === t || undefined}
              >
                {t.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <Outlet />
    </>
  );
}
