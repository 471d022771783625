import { STATUS_FILL, type StatusSetting } from '../../api/statuses';
import { formatCount } from '../../lib/format';

/** A progress bar from status counts (what is done of the whole), in the statuses' own colours; its text says the numbers. */
export function Progress({
  counts,
  statuses,
}: {
  counts: Record<string, number> | null | undefined;
  statuses: StatusSetting[];
}) {
  const all = counts?.all ?? 0;
  const done = all - (counts?.open ?? 0);
  const parts = statuses.filter((s) => counts?.[s.id]);
  // The bar shows what is done: open cases are the empty track, each status its share of the whole.
  const drawn = parts.filter((s) => s.id !== 'open');
  return (
    <div className="runs-progress">
      <div
        className="status-bar"
        role="img"
        aria-label={`${formatCount(done)} of ${formatCount(all)} done${parts.length ? `: ${parts.map((s) => `${formatCount(counts![s.id]!)} ${s.name}`).join(', ')}` : ''}`}
      >
        {drawn.map((s) => (
          <span
            key={s.id}
            className="status-bar-part"
            style={{ flex: `0 0 ${(counts![s.id]! / all) * 100}%`, background: STATUS_FILL[s.color] }}
          />
        ))}
      </div>
      <span className="muted runs-done">
        {formatCount(done)} of {formatCount(all)}
      </span>
    </div>
  );
}

/** The counts of several runs added up (a plan's or a milestone's). */
export function sumCounts(list: (Record<string, number> | null | undefined)[]): Record<string, number> {
  const total: Record<string, number> = {};
  for (const c of list) for (const [k, v] of Object.entries(c ?? {})) total[k] = (total[k] ?? 0) + v;
  return total;
}
