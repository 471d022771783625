import type { StatusSetting } from '../../../api/statuses';
import { chartStatuses, countsText, fillOf, type Counts } from './chart';

/**
 * A horizontal bar of counts per status in plain SVG, in the statuses' own colours. `max` scales it against the
 * other bars of its chart (a folder with 10 cases is shorter than one with 100); its name says the numbers.
 * `progress` draws what is done of the whole instead: open cases are left as the empty track, so a run with
 * nothing done is an empty bar, whatever its size.
 */
export function StackedBar({
  counts,
  statuses,
  max,
  label,
  progress = false,
}: {
  counts: Counts;
  statuses: StatusSetting[];
  max?: number;
  label: string;
  progress?: boolean;
}) {
  const all = counts.all ?? 0;
  const scale = !progress && max && max > 0 ? 100 / max : all > 0 ? 100 / all : 0;
  const shown = chartStatuses(statuses).filter((s) => counts[s.id] && !(progress && s.id === 'open'));
  const widths = shown.map((s) => counts[s.id] * scale);
  const parts = shown.map((s, i) => (
    <rect
      key={s.id}
      x={widths.slice(0, i).reduce((a, b) => a + b, 0)}
      y={0}
      width={widths[i]}
      height={10}
      fill={fillOf(s)}
    />
  ));
  return (
    <svg
      className="dash-bar"
      viewBox="0 0 100 10"
      preserveAspectRatio="none"
      role="img"
      aria-label={`${label}: ${countsText(counts, statuses)}`}
    >
      <rect className="dash-bar-track" x={0} y={0} width={100} height={10} />
      {parts}
    </svg>
  );
}
