import type { ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from '@tanstack/react-router';
import { ErrorState, Loading } from '../../../components/Status';
import { useDocumentTitle } from '../../../components/useDocumentTitle';
import { meQuery, type Me } from '../../../session/session';
import { projectQuery, type Project } from '../api';
import { GeneralSection } from './GeneralSection';
import { SharedLinksSection } from './SharedLinksSection';
import './project-settings.css';

interface Section {
  id: string;
  title: string;
  /** Whether this person sees the section at all: what a role may not do, it does not see. */
  shownTo: (me: Me) => boolean;
  Body: (props: { project: Project; me: Me }) => ReactNode;
}

/**
 * The page's sections, in order; the in-page navigation is built from this list, so a section added here
 * (members, shared steps, configurations, tracker links: issue 27) is listed there too.
 */
const SECTIONS: Section[] = [
  { id: 'general', title: 'General', shownTo: () => true, Body: GeneralSection },
  {
    id: 'shared-links',
    title: 'Shared report links',
    // Test-runners and up make links (D3); viewers have none to look after.
    shownTo: (me) => me.role !== 'viewer',
    Body: SharedLinksSection,
  },
];

/** `/project/{CODE}/settings`: the project's settings, a page of sections. */
export function ProjectSettingsPage() {
  const { code: rawCode } = useParams({ from: '/app/project/$code/settings' });
  const code = rawCode.toUpperCase();
  const project = useQuery(projectQuery(code));
  const me = useQuery(meQuery).data;
  useDocumentTitle(`Settings · ${code}`);

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
                  <a href={`#${s.id}`}>{s.title}</a>
                </li>
              ))}
            </ul>
          </nav>
        )}
        <div className="project-settings-sections">
          {sections.map(({ id, title, Body }) => (
            <section key={id} id={id} aria-labelledby={`${id}-title`} className="panel settings-section">
              <h2 id={`${id}-title`} className="panel-title">
                {title}
              </h2>
              <Body project={project.data} me={me} />
            </section>
          ))}
        </div>
      </div>
    </div>
  );
}
