import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { canManageProjects, meQuery } from '../../session/session';
import type { Project } from './api';

/**
 * Beside the overview's title, for admins and the owner (D3): the way to the project's settings, where editing,
 * archiving and deleting the project now live (settings/GeneralSection.tsx).
 */
export function ProjectAdmin({ project }: { project: Project }) {
  const me = useQuery(meQuery).data;
  if (!me || !canManageProjects(me.role)) return null;
  return (
    <div className="project-admin">
      <Link to="/project/$code/settings" hash="general" params={{ code: project.code }} className="btn">
        Edit project
      </Link>
    </div>
  );
}
