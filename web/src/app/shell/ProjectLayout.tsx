import { useQuery } from '@tanstack/react-query';
import { Link, Outlet, useParams, useRouterState } from '@tanstack/react-router';
import { projectQuery, projectsQuery } from '../../features/projects/api';
import { useCurrentTabInView } from './useCurrentTabInView';
import './project-nav.css';

type Section = 'home' | 'cases' | 'runs' | 'plans' | 'milestones' | 'reports' | 'settings';

/**
 * Which tab a project address belongs to, by its first segment after `/project/<code>`: a case counts under
 * Test cases, a run under Runs, a plan under Plans, and pages added later under the tab of their segment.
 */
const SECTION_OF: Record<string, Section> = {
  '': 'home',
  repository: 'cases',
  tcase: 'cases',
  runs: 'runs',
  run: 'runs',
  plans: 'plans',
  plan: 'plans',
  milestones: 'milestones',
  milestone: 'milestones',
  reports: 'reports',
  report: 'reports',
  settings: 'settings',
};

function sectionOf(pathname: string): Section | undefined {
  const segment = pathname.split('/')[3] ?? '';
  return SECTION_OF[decodeURIComponent(segment)];
}

const TABS = [
  { section: 'home', to: '/project/$code', label: 'Dashboard' },
  { section: 'cases', to: '/project/$code/repository', label: 'Test cases' },
  { section: 'runs', to: '/project/$code/runs', label: 'Runs' },
  { section: 'plans', to: '/project/$code/plans', label: 'Plans' },
  { section: 'milestones', to: '/project/$code/milestones', label: 'Milestones' },
  { section: 'reports', to: '/project/$code/reports', label: 'Reports' },
  { section: 'settings', to: '/project/$code/settings', label: 'Settings' },
] as const;

/** Every page of a project: the project's navigation bar, then the page. */
export function ProjectLayout() {
  const { code: rawCode } = useParams({ from: '/app/project/$code' });
  const code = rawCode.toUpperCase();
  const pathname = useRouterState({ select: (s) => s.location.pathname });
  const current = sectionOf(pathname);
  // The switcher has loaded the list already; an unknown project is the page's to explain. A page that reads
  // the project itself (the dashboard, the settings) may have it first: the bar takes whichever is there.
  const listed = useQuery({
    ...projectsQuery,
    select: (all) => all.find((p) => p.code.toUpperCase() === code),
  }).data;
  const own = useQuery({ ...projectQuery(code), enabled: false }).data;
  const project = listed ?? own;
  const navRef = useCurrentTabInView(current);

  return (
    <>
      <nav ref={navRef} aria-label="Project" className="project-nav">
        <span className="project-nav-name">
          <span className="project-code">{project?.code ?? code}</span>
          {project && <span className="project-nav-title">{project.title}</span>}
          {project?.archivedAt && <span className="badge">Archived</span>}
        </span>
        <ul className="project-nav-tabs">
          {TABS.map((t) => (
            <li key={t.section}>
              <Link
                to={t.to}
                params={{ code }}
                className="project-nav-tab"
                // Marked by section, not by exact address: a run is under Runs, a case under Test cases.
                activeOptions={{ exact: true, includeSearch: false }}
                aria-current={current === t.section ? 'page' : undefined}
                data-current={current === t.section || undefined}
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
