import { useQuery } from '@tanstack/react-query';
import { PRIORITIES, PRIORITY_NAMES } from '../../../api/priorities';
import { projectTagsQuery } from '../../../api/queries';

const ASSIGNEE_CHIPS = [
  { id: 'me', label: 'Mine' },
  { id: 'none', label: 'Unassigned' },
] as const;

/**
 * Priority chips, "Mine" / "Unassigned" and a tag choice beside the status chips; each narrows the list (AND), held
 * in the address.
 */
export function MoreFilters({
  code,
  priorities,
  onPriorities,
  tag,
  onTag,
  assignee,
  onAssignee,
}: {
  code: string;
  priorities: Set<string>;
  onPriorities: (next: Set<string>) => void;
  tag: number | undefined;
  onTag: (tag: number | undefined) => void;
  assignee: 'me' | 'none' | undefined;
  onAssignee: (assignee: 'me' | 'none' | undefined) => void;
}) {
  const tags = useQuery(projectTagsQuery(code));
  return (
    <div className="run-filters run-more-filters">
      <div className="run-filter-group" role="group" aria-label="Show cases by priority">
        {PRIORITIES.map((id) => (
          <button
            key={id}
            type="button"
            className="chip"
            aria-pressed={priorities.has(id)}
            onClick={() => {
              const next = new Set(priorities);
              if (next.has(id)) next.delete(id);
              else next.add(id);
              onPriorities(next);
            }}
          >
            <span className={`priority priority-${id}`}>{PRIORITY_NAMES[id]}</span>
          </button>
        ))}
      </div>
      <div className="run-filter-group" role="group" aria-label="Show cases by assignee">
        {ASSIGNEE_CHIPS.map((chip) => (
          <button
            key={chip.id}
            type="button"
            className="chip"
            aria-pressed={assignee === chip.id}
            onClick={() => onAssignee(assignee === chip.id ? undefined : chip.id)}
          >
            {chip.label}
          </button>
        ))}
      </div>
      {(tags.data?.length ?? 0) > 0 && (
        <label className="run-tag-filter">
          <span className="visually-hidden">Show cases with the tag</span>
          <select
            className="field-input"
            value={tag ?? ''}
            onChange={(e) => onTag(e.target.value ? Number(e.target.value) : undefined)}
          >
            <option value="">Any tag</option>
            {tags.data!.map((t) => (
              <option key={t.id} value={t.id}>
                Tag: {t.title}
              </option>
            ))}
          </select>
        </label>
      )}
    </div>
  );
}
