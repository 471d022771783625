import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { Button } from '../../components/Button';
import { EmptyState, ErrorState, Loading } from '../../components/Status';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { isAdmin, meQuery } from '../../session/session';
import { projectsQuery, type Project } from './api';
import { CreateProjectDialog } from './CreateProjectDialog';
import { plainText } from './text';
import { formatCount } from '../../lib/format';

function ProjectCard({ project }: { project: Project }) {
  const summary = plainText(project.overviewDescription || project.description);
  return (
    <li className={`project-card${project.archivedAt ? ' project-card-archived' : ''}`}>
      <Link to="/project/$code" params={{ code: project.code }} className="project-card-link">
        <span className="project-code">{project.code}</span>
        <span className="project-card-title">{project.title}</span>
      </Link>
      {summary && <p className="project-card-summary">{summary}</p>}
    </li>
  );
}

export function ProjectsPage() {
  useDocumentTitle('Projects');
  const me = useQuery(meQuery).data;
  const projects = useQuery(projectsQuery);
  const [creating, setCreating] = useState(false);
  const canCreate = me ? isAdmin(me.role) : false;

  const active = projects.data?.filter((p) => !p.archivedAt) ?? [];
  const archived = projects.data?.filter((p) => p.archivedAt) ?? [];

  return (
    <div className="page">
      <div className="page-header">
        <h1 className="page-title">Projects</h1>
        {canCreate && (
          <Button variant="primary" onPress={() => setCreating(true)}>
            New project
          </Button>
        )}
      </div>
      {projects.isPending ? (
        <Loading label="Loading projects…" />
      ) : projects.isError ? (
        <ErrorState
          title="The projects could not be loaded."
          error={projects.error}
          onRetry={() => projects.refetch()}
        />
      ) : (
        <>
          <section aria-labelledby="active-projects">
            <h2 id="active-projects" className="section-title">
              Active <span className="count">{formatCount(active.length)}</span>
            </h2>
            {active.length === 0 ? (
              <EmptyState title="No active projects yet.">
                <p>
                  {canCreate
                    ? 'Create one to start writing test cases.'
                    : 'An admin can create one, or give you access to an existing one.'}
                </p>
              </EmptyState>
            ) : (
              <ul className="project-grid">
                {active.map((p) => (
                  <ProjectCard key={p.id} project={p} />
                ))}
              </ul>
            )}
          </section>
          {archived.length > 0 && (
            <section aria-labelledby="archived-projects" className="section-archived">
              <h2 id="archived-projects" className="section-title">
                Archived <span className="count">{formatCount(archived.length)}</span>
              </h2>
              <p className="section-note">Archived projects can be read but not changed.</p>
              <ul className="project-grid">
                {archived.map((p) => (
                  <ProjectCard key={p.id} project={p} />
                ))}
              </ul>
            </section>
          )}
        </>
      )}
      {canCreate && <CreateProjectDialog isOpen={creating} onOpenChange={setCreating} />}
    </div>
  );
}
