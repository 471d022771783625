import type { ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from '@tanstack/react-router';
import { ErrorState, Loading } from '../../../components/Status';
import { useDocumentTitle } from '../../../components/useDocumentTitle';
import { isAdmin, meQuery, type Me } from '../../../session/session';
import { projectQuery, type Project } from '../api';
import { ConfigurationsSection } from './ConfigurationsSection';
import { GeneralSection } from './GeneralSection';
import { MembersSection } from './MembersSection';
import { SharedLibrarySection } from './SharedLibrarySection';
import { SharedLinksSection } from './SharedLinksSection';
import { TrackerLinksSection } from './TrackerLinksSection';
import './project-settings.css';

interface Section {
  /** Its address under `settings/` ('' for General, at `settings` itself). */
  id: string;
  title: string;
  /** Whether this person sees the section at all: what a role may not do, it does not see (D3). */
  shownTo: (me: Me) => boolean;
  /** Who may use it, in words, for someone who typed the address of a section their role does not see. */
  forWhom: string;
  Body: (props: { project: Project; me: Me }) => ReactNode;
}

const notViewer = (me: Me) => me.role !== 'viewer';

/**
 * The sections, in order; the side navigation is built from this list. One section per address, so a long
 * library (shared steps) does not push the others out of reach, and a section can be linked to.
 */
const SECTIONS: Section[] = [
  { id: '', title: 'General', shownTo: () => true, forWhom: 'everyone', Body: GeneralSection },
  {
    id: 'members',
    title: 'Members',
    shownTo: (me) => isAdmin(me.role),
    forWhom: 'admins and the owner',
    Body: MembersSection,
  },
  {
    id: 'configurations',
    title: 'Configurations',
    shownTo: notViewer,
    forWhom: 'test runners and up',
    Body: ConfigurationsSection,
  },
  {
    id: 'shared-steps',
    title: 'Shared steps',
    shownTo: notViewer,
    forWhom: 'test runners and up',
    Body: ({ project }) => <SharedLibrarySection project={project} kind="step" />,
  },
  {
    id: 'shared-preconditions',
    title: 'Shared preconditions',
    shownTo: notViewer,
    forWhom: 'test runners and up',
    Body: ({ project }) => <SharedLibrarySection project={project} kind="precondition" />,
  },
  {
    id: 'issue-trackers',
    title: 'Issue trackers',
    shownTo: () => true,
    forWhom: 'everyone',
    Body: TrackerLinksSection,
  },
  {
    id: 'shared-links',
    title: 'Shared report links',
    // Test-runners and up make links (D3); viewers have none to look after.
    shownTo: notViewer,
    forWhom: 'test runners and up',
    Body: SharedLinksSection,
  },
];

/** `/project/{CODE}/settings[/{section}]`: the project's settings, one section at a time. */
export function ProjectSettingsPage() {
  const params = useParams({ strict: false }) as { code: string; section?: string };
  const code = params.code.toUpperCase();
  const sectionId = params.section ?? '';
  const project = useQuery(projectQuery(code));
  const me = useQuery(meQuery).data;
  const section = SECTIONS.find((s) => s.id === sectionId);
  useDocumentTitle(`${section && section.id ? `${section.title} · ` : ''}Settings · ${code}`);

  if (project.isPending || !me) return <Loading label="Loading the project's settings…" />;
  if (project.isError)
    return (
      <div className="page">
        <ErrorState
          title={`Project ${code} could not be opened.`}
          error={project.error}
          onRetry={() => project.refetch()}
        >
          <Link to="/">All projects</Link>
        </ErrorState>
      </div>
    );

  const sections = SECTIONS.filter((s) => s.shownTo(me));
  return (
    <div className="page project-settings">
      <div className="page-header">
        <h1 className="page-title">Settings</h1>
      </div>
      <div className="project-settings-layout">
        {sections.length > 1 && (
          <nav aria-label="Settings sections" className="settings-nav">
            <ul>
              {sections.map((s) => (
                <li key={s.id}>
                  {s.id ? (
                    <Link
                      to="/project/$code/settings/$section"
                      params={{ code, section: s.id }}
                      aria-current={s.id === sectionId ? 'page' : undefined}
                    >
                      {s.title}
                    </Link>
                  ) : (
                    <Link
                      to="/project/$code/settings"
                      params={{ code }}
                      // Only at `settings` itself: the router would call every section "under" General active.
                      activeOptions={{ exact: true }}
                      aria-current={sectionId === '' ? 'page' : undefined}
                    >
                      {s.title}
                    </Link>
                  )}
                </li>
              ))}
            </ul>
          </nav>
        )}
        <div className="project-settings-sections">
          <SectionBody section={section} me={me} project={project.data} code={code} />
        </div>
      </div>
    </div>
  );
}

function SectionBody({
  section,
  me,
  project,
  code,
}: {
  section: Section | undefined;
  me: Me;
  project: Project;
  code: string;
}) {
  if (!section || !section.shownTo(me))
    return (
      <section aria-labelledby="settings-missing-title" className="panel settings-section">
        <h2 id="settings-missing-title" className="panel-title">
          {section ? `${section.title}: not allowed` : 'No such settings section'}
        </h2>
        <p>
          {section
            ? `This section is for ${section.forWhom}; your role is “${me.role}”. Ask an admin if you need a change here.`
            : 'There is nothing at this address.'}{' '}
          <Link to="/project/$code/settings" params={{ code }}>
            Back to the project’s settings
          </Link>
        </p>
      </section>
    );
  const id = section.id || 'general';
  const { Body } = section;
  return (
    <section id={id} aria-labelledby={`${id}-title`} className="panel settings-section">
      <h2 id={`${id}-title`} className="panel-title">
        {section.title}
      </h2>
      <Body project={project} me={me} />
    </section>
  );
}
