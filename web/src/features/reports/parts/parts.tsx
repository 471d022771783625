import type { ReactNode } from 'react';
import { STATUS_FILL, type StatusSetting } from '../../../api/statuses';
import { formatCount, formatPassRate } from '../../../lib/format';

export type Counts = Record<string, number>;

/** A status in its tenant's name and colour (the dot only decorates: the name says it). */
export function StatusName({ id, statuses }: { id: string; statuses: StatusSetting[] }) {
  const s = statuses.find((x) => x.id === id);
  return (
    <span className="rep-status">
      <span className="rep-dot" aria-hidden="true" style={{ background: STATUS_FILL[s?.color ?? 'gray'] }} />
      {s?.name ?? id}
    </span>
  );
}

/** The statuses worth a column: those a tester can record now, and any other that some row counts. */
export function statusColumns(statuses: StatusSetting[], rows: Counts[]): StatusSetting[] {
  return statuses.filter((s) => s.isActive || s.isDefault || rows.some((c) => (c[s.id] ?? 0) > 0));
}

/** The headline of a report: cases, each status with cases and the pass rate. */
export function Summary({
  counts,
  passRate,
  statuses,
  children,
}: {
  counts: Counts;
  passRate: number | null;
  statuses: StatusSetting[];
  children?: ReactNode;
}) {
  return (
    <dl className="rep-summary">
      <div className="rep-stat">
        <dt>Pass rate</dt>
        <dd>{formatPassRate(passRate)}</dd>
      </div>
      <div className="rep-stat">
        <dt>Cases</dt>
        <dd>{formatCount(counts.all ?? 0)}</dd>
      </div>
      {statuses
        .filter((s) => (counts[s.id] ?? 0) > 0)
        .map((s) => (
          <div key={s.id} className="rep-stat">
            <dt>
              <StatusName id={s.id} statuses={statuses} />
            </dt>
            <dd>{formatCount(counts[s.id])}</dd>
          </div>
        ))}
      {children}
    </dl>
  );
}

/**
 * "Download CSV": a plain link, so the browser saves the file with the session cookie and the page never holds
 * it. `label` names what is downloaded when a page has several.
 */
export function CsvLink({ href, label }: { href: string; label?: string }) {
  return (
    <a className="btn btn-secondary rep-csv no-print" href={href} download aria-label={label}>
      Download CSV
    </a>
  );
}
