import { useEffect, useRef, useSyncExternalStore } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useParams } from '@tanstack/react-router';
import { useVirtualizer } from '@tanstack/react-virtual';
import { STATUS_FILL, type StatusSetting } from '../../../api/statuses';
import { runFlakyScoresQuery, type RunTestCase } from '../api';
import { formatCount } from '../../../lib/format';
import { FolderPath } from '../../../components/FolderPath';
import { AssigneeBadge } from './Assignee';

export type Row =
  | { kind: 'folder'; id: number; path: readonly string[]; title: string; count: number }
  | { kind: 'case'; c: RunTestCase };

const FOLDER_HEIGHT = 34;

/** A phone's width: a group's path is shortened further there, so its leaf stays in view. */
const NARROW = '(max-width: 760px)';
const subscribeNarrow = (cb: () => void) => {
  const m = window.matchMedia(NARROW);
  m.addEventListener('change', cb);
  return () => m.removeEventListener('change', cb);
};
const isNarrow = () => window.matchMedia(NARROW).matches;
const CASE_HEIGHT = 44;

/** The run's cases grouped by folder, only the rows in view in the DOM (TanStack Virtual): 10,000 cases stay smooth. */
export function RunCaseList({
  code,
  rows,
  selectedId,
  checked,
  statuses,
  onSelect,
  onToggle,
  onAssign,
}: {
  code: string;
  rows: Row[];
  selectedId: string | undefined;
  checked: Set<string>;
  statuses: Map<string, StatusSetting>;
  onSelect: (id: string) => void;
  onToggle: (id: string) => void;
  /** Absent: the assignees are shown, not changed (a closed run, a viewer). */
  onAssign?: (c: RunTestCase) => void;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  // The flaky column comes in its own request: the list never waits for it.
  const { runId } = useParams({ from: '/app/project/$code/run/$runId' });
  const flaky = useQuery(runFlakyScoresQuery(code, Number(runId))).data;
  const pathMax = useSyncExternalStore(subscribeNarrow, isNarrow) ? 30 : 60;
  const list = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: (i) => (rows[i].kind === 'folder' ? FOLDER_HEIGHT : CASE_HEIGHT),
    overscan: 12,
  });
  const selectedIndex = rows.findIndex((r) => r.kind === 'case' && r.c.id === selectedId);
  useEffect(() => {
    if (selectedIndex >= 0) list.scrollToIndex(selectedIndex, { align: 'auto' });
  }, [selectedIndex, list]);

  return (
    <div ref={scroller} className="run-scroller" data-testid="run-case-scroller">
      <ul aria-label="Test cases of the run" className="run-rows" style={{ height: list.getTotalSize() }}>
        {list.getVirtualItems().map((item) => {
          const row = rows[item.index];
          const style = { transform: `translateY(${item.start}px)`, height: item.size };
          if (row.kind === 'folder')
            return (
              <li key={`f${row.id}-${item.index}`} className="run-folder" style={style}>
                <span aria-hidden="true">▸</span> <FolderPath path={row.path} max={pathMax} />{' '}
                <span className="muted">{formatCount(row.count)}</span>
              </li>
            );
          const c = row.c;
          const status = statuses.get(c.status);
          const selected = c.id === selectedId;
          const score = flaky?.byCase.get(c.id);
          return (
            <li key={c.id} className={`run-case${selected ? ' is-selected' : ''}`} style={style}>
              <input
                type="checkbox"
                className="run-case-check"
                aria-label={`Select ${code}-${c.seq}`}
                checked={checked.has(c.id)}
                onChange={() => onToggle(c.id)}
              />
              <button
                type="button"
                className="run-case-main"
                id={`run-case-${c.id}`}
                aria-current={selected ? 'true' : undefined}
                onClick={() => onSelect(c.id)}
              >
                <span className="project-code">
                  {code}-{c.seq}
                </span>
                <span className="run-case-title">{c.title}</span>
                {score && (
                  <span
                    className="run-case-flaky"
                    title={`Its status flipped ${score.flips} ${score.flips === 1 ? 'time' : 'times'} over the last ${score.runs} runs of this configuration`}
                  >
                    Flaky {Math.round(score.score * 100)}%
                  </span>
                )}
                <span className={`priority priority-${c.priority}`}>{c.priority}</span>
                <span className="run-case-status" data-status={c.status}>
                  <span
                    className="status-dot"
                    aria-hidden="true"
                    style={{ background: STATUS_FILL[status?.color ?? 'gray'] }}
                  />
                  {status?.name ?? c.status}
                </span>
              </button>
              {onAssign ? (
                <button
                  type="button"
                  className="run-case-assign"
                  aria-label={
                    c.assignee
                      ? `Assignee of ${code}-${c.seq}: ${c.assignee.name}. Change`
                      : `Assign ${code}-${c.seq} (nobody assigned)`
                  }
                  onClick={() => onAssign(c)}
                >
                  {c.assignee ? (
                    <AssigneeBadge name={c.assignee.name} />
                  ) : (
                    <span className="assignee-none" aria-hidden="true">
                      + Assign
                    </span>
                  )}
                </button>
              ) : (
                c.assignee && (
                  <span className="run-case-assign is-static">
                    <span className="visually-hidden">Assigned to </span>
                    <AssigneeBadge name={c.assignee.name} />
                  </span>
                )
              )}
            </li>
          );
        })}
      </ul>
    </div>
  );
}
