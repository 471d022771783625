import { STATUS_FILL, type StatusSetting } from '../../../api/statuses';
import { formatCount, formatDay } from '../../../lib/format';
import type { Counts } from '../parts/parts';

const W = 640;
const H = 160;
const GAP = 4;

/**
 * The milestone's days as stacked bars (cases per status of the runs created that day), in plain SVG: the
 * table beside it holds the same numbers for those who do not see it, so the picture only summarises.
 */
export function DayChart({
  points,
  statuses,
}: {
  points: { date: string; counts: Counts }[];
  statuses: StatusSetting[];
}) {
  const max = Math.max(1, ...points.map((p) => p.counts.all ?? 0));
  // At most 64 units a day: a few days stand at the left as bars, not as a wall across the chart.
  const step = Math.min(64, W / Math.max(points.length, 1));
  const barWidth = Math.max(2, Math.min(48, step - GAP));
  const first = points[0];
  const last = points[points.length - 1];
  return (
    <figure className="day-chart">
      <svg
        viewBox={`0 0 ${W} ${H}`}
        preserveAspectRatio="none"
        role="img"
        aria-label={`Cases per day from ${formatDay(first.date)} to ${formatDay(last.date)}, at most ${formatCount(max)} a day; the table below has every number.`}
      >
        <line x1={0} x2={W} y1={H - 0.5} y2={H - 0.5} className="day-chart-axis" />
        {points.map((p, i) => {
          let y = H;
          const x = i * step + (step - barWidth) / 2;
          return (
            <g key={p.date}>
              {statuses.map((s) => {
                const n = p.counts[s.id] ?? 0;
                if (!n) return null;
                const h = (n / max) * (H - 8);
                y -= h;
                return (
                  <rect key={s.id} x={x} y={y} width={barWidth} height={h} fill={STATUS_FILL[s.color]} />
                );
              })}
            </g>
          );
        })}
      </svg>
      <figcaption className="day-chart-range muted">
        <span>{formatDay(first.date)}</span>
        {points.length > 1 && <span>{formatDay(last.date)}</span>}
      </figcaption>
    </figure>
  );
}
