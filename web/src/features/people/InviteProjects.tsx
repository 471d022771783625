import { useQuery } from '@tanstack/react-query';
import { projectsQuery } from '../projects';

export type ProjectChoice = { mode: 'all' | 'chosen'; codes: string[] };

/**
 * Which projects an invitation grants: all of them (the ones made later too) or those ticked. Admins and owners
 * see every project whatever is chosen, so the choice is said to matter for the other roles.
 */
export function InviteProjects({
  value,
  onChange,
  error,
}: {
  value: ProjectChoice;
  onChange: (v: ProjectChoice) => void;
  error?: string;
}) {
  const projects = useQuery(projectsQuery);
  const active = (projects.data ?? []).filter((p) => p.archivedAt === null);
  const toggle = (code: string, on: boolean) =>
    onChange({ ...value, codes: on ? [...value.codes, code] : value.codes.filter((c) => c !== code) });
  return (
    <fieldset className="people-projects" aria-describedby={error ? 'invite-projects-error' : undefined}>
      <legend className="field-label">Projects</legend>
      <label className="checkbox-field">
        <input
          type="radio"
          name="invite-projects"
          checked={value.mode === 'all'}
          onChange={() => onChange({ ...value, mode: 'all' })}
        />
        All projects, and the ones made later
      </label>
      <label className="checkbox-field">
        <input
          type="radio"
          name="invite-projects"
          checked={value.mode === 'chosen'}
          onChange={() => onChange({ ...value, mode: 'chosen' })}
        />
        Only the projects ticked
      </label>
      {value.mode === 'chosen' && (
        <ul className="people-project-list" aria-label="Projects to join">
          {active.map((p) => (
            <li key={p.id}>
              <label className="checkbox-field">
                <input
                  type="checkbox"
                  checked={value.codes.includes(p.code)}
                  onChange={(e) => toggle(p.code, e.target.checked)}
                />
                <span>
                  {p.title} <span className="muted">{p.code}</span>
                </span>
              </label>
            </li>
          ))}
          {projects.isSuccess && active.length === 0 && <li className="muted">No projects yet.</li>}
        </ul>
      )}
      {error && (
        <p id="invite-projects-error" className="field-error">
          {error}
        </p>
      )}
    </fieldset>
  );
}
