import { useEffect, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { StatusSetting } from '../../../api/statuses';
import type { TrendReport } from '../api';
import { formatCount, formatPassRate } from '../../../lib/format';
import { useDark } from '../../../lib/theme';
import { chartStatuses, countsText, fillOf } from './chart';

type Point = TrendReport['points'][number];

/** A point's short name on the axis and in the readout. */
export const pointName = (p: Point, by: 'run' | 'day') => (by === 'run' ? `#${p.key} ${p.label}` : p.label);

/**
 * The pass-rate trend in uPlot: the results of each run (or day) stacked by status in the statuses' colours,
 * with the pass rate as a line on its own axis. Hovering a bar shows its numbers below the chart (the latest
 * point otherwise); the table view holds them all. The canvas is drawn again on resize and on a change of
 * colour scheme (its colours come from the page's theme variables).
 */
export function TrendChart({
  points,
  by,
  statuses,
}: {
  points: Point[];
  by: 'run' | 'day';
  statuses: StatusSetting[];
}) {
  const box = useRef<HTMLDivElement>(null);
  const [hover, setHover] = useState<number | null>(null);
  const dark = useDark();
  const shown = chartStatuses(statuses).filter((s) =>
    points.some((p) => p.counts[s.id as keyof Point['counts']]),
  );

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const theme = getComputedStyle(el);
    const color = (name: string) => theme.getPropertyValue(name).trim();
    const [text, muted, border, surface] = ['--text', '--muted', '--border', '--surface'].map(color);
    const xs = points.map((_, i) => i);
    // Stacked: series i is the sum of statuses 0..i, drawn from the tallest down so each covers the one below.
    const stacks = shown.map((_, i) =>
      points.map((p) =>
        shown.slice(0, i + 1).reduce((n, s) => n + p.counts[s.id as keyof Point['counts']], 0),
      ),
    );
    const bars = uPlot.paths.bars!({ size: [0.7, 48], gap: 2 });
    const series: uPlot.Series[] = [{}];
    for (let i = shown.length - 1; i >= 0; i--) {
      series.push({
        label: shown[i].name,
        scale: 'n',
        fill: fillOf(shown[i]),
        stroke: fillOf(shown[i]),
        width: 0,
        paths: bars,
        points: { show: false },
      });
    }
    series.push({
      label: 'Pass rate',
      scale: '%',
      stroke: text,
      width: 2,
      points: { show: true, size: 6, fill: surface, stroke: text },
    });
    const data: uPlot.AlignedData = [
      xs,
      ...[...stacks].reverse(),
      points.map((p) => (p.passRate === null ? null : p.passRate * 100)),
    ];
    const font = '12px system-ui, sans-serif';
    const axis = {
      stroke: muted,
      font,
      grid: { stroke: border, width: 1 },
      ticks: { stroke: border, width: 1 },
    };
    const u = new uPlot(
      {
        width: Math.max(el.clientWidth, 200),
        height: el.clientWidth < 500 ? 200 : 240,
        legend: { show: false },
        cursor: { drag: { x: false, y: false }, points: { show: false } },
        scales: {
          x: { time: false, range: [-0.5, Math.max(points.length - 0.5, 0.5)] },
          '%': { range: [0, 100] },
          n: { range: (_u, _min, max) => [0, Math.max(max, 1) * 1.1] },
        },
        axes: [
          {
            ...axis,
            grid: { show: false },
            space: 60,
            incrs: [1, 2, 5, 10, 20, 50],
            values: (_u, splits) =>
              splits.map((i) =>
                points[i] ? (by === 'run' ? `#${points[i].key}` : points[i].label.slice(5)) : '',
              ),
          },
          { ...axis, scale: '%', values: (_u, splits) => splits.map((v) => `${v}%`), size: 48 },
          {
            ...axis,
            scale: 'n',
            side: 1,
            grid: { show: false },
            size: 48,
            values: (_u, splits) => splits.map((v) => (Number.isInteger(v) ? formatCount(v) : '')),
          },
        ],
        series,
        hooks: {
          setCursor: [(chart) => setHover(chart.cursor.idx ?? null)],
          draw: [() => el.setAttribute('data-drawn', 'true')],
        },
      },
      data,
      el,
    );
    const resize = new ResizeObserver(() =>
      u.setSize({ width: Math.max(el.clientWidth, 200), height: el.clientWidth < 500 ? 200 : 240 }),
    );
    resize.observe(el);
    return () => {
      resize.disconnect();
      u.destroy();
      el.removeAttribute('data-drawn');
    };
    // `shown` follows from points and statuses.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [points, by, statuses, dark]);

  const at = points[hover ?? points.length - 1];
  return (
    <div className="dash-trend">
      <div ref={box} className="dash-trend-canvas" role="img" aria-label={trendSummary(points, by)} />
      <p className="dash-legend" aria-hidden="true">
        {shown.map((s) => (
          <span key={s.id} className="dash-key">
            <svg width="10" height="10" aria-hidden="true">
              <rect width="10" height="10" rx="2" fill={fillOf(s)} />
            </svg>
            {s.name}
          </span>
        ))}
        <span className="dash-key">
          <svg width="16" height="10" aria-hidden="true">
            <line x1="0" y1="5" x2="16" y2="5" className="dash-key-line" />
          </svg>
          Pass rate
        </span>
      </p>
      {at && (
        <p className="dash-readout" data-testid="trend-readout">
          <strong>{pointName(at, by)}</strong>: {formatPassRate(at.passRate, 'whole')} passed ·{' '}
          {countsText(at.counts, statuses)}
        </p>
      )}
    </div>
  );
}

/** What the chart shows, in words, for screen readers. */
export function trendSummary(points: Point[], by: 'run' | 'day'): string {
  if (points.length === 0) return 'No results yet.';
  const rated = points.filter((p) => p.passRate !== null);
  const unit = by === 'run' ? 'runs' : 'days';
  if (rated.length === 0)
    return `Pass rate over the last ${formatCount(points.length)} ${unit}: nothing counted yet.`;
  const first = rated[0];
  const last = rated[rated.length - 1];
  const low = rated.reduce((a, b) => (b.passRate! < a.passRate! ? b : a));
  return (
    `Pass rate over the last ${formatCount(points.length)} ${unit}: ${formatPassRate(first.passRate, 'whole')} in ${pointName(first, by)}, ` +
    `${formatPassRate(last.passRate, 'whole')} in ${pointName(last, by)}; lowest ${formatPassRate(low.passRate, 'whole')} in ${pointName(low, by)}.`
  );
}
