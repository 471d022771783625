import { useState, type ReactNode } from 'react';
import { Button } from '../../../components/Button';

/**
 * A dashboard panel with a chart and a table of the same numbers: "Table" is a toggle button (pressed: the table
 * is shown), so keyboard and screen-reader users reach every figure as a real table.
 */
export function ChartPanel({
  id,
  title,
  className = '',
  actions,
  chart,
  table,
  footer,
}: {
  id: string;
  title: string;
  className?: string;
  actions?: ReactNode;
  chart: ReactNode;
  /** Null when there is nothing to tabulate (the chart then shows its empty state). */
  table: ReactNode | null;
  footer?: ReactNode;
}) {
  const [asTable, setAsTable] = useState(false);
  return (
    <section aria-labelledby={id} className={`panel dash-panel ${className}`}>
      <div className="dash-panel-head">
        <h2 id={id} className="panel-title">
          {title}
        </h2>
        <div className="dash-panel-actions">
          {actions}
          {table !== null && (
            <Button
              variant="ghost"
              className="dash-toggle"
              aria-pressed={asTable}
              aria-label={`Table view of ${title.toLowerCase()}`}
              onPress={() => setAsTable((v) => !v)}
            >
              Table
            </Button>
          )}
        </div>
      </div>
      {asTable && table !== null ? <div className="dash-table-wrap">{table}</div> : chart}
      {footer}
    </section>
  );
}

/** A table of a chart's numbers: caption, column headers, a header cell per row. */
export function DataTable({
  caption,
  columns,
  rows,
}: {
  caption: string;
  columns: string[];
  rows: { key: string; head: ReactNode; cells: ReactNode[] }[];
}) {
  return (
    <table className="dash-table">
      <caption>{caption}</caption>
      <thead>
        <tr>
          {columns.map((c, i) => (
            <th key={c} scope="col" className={i > 0 ? 'num' : undefined}>
              {c}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.key}>
            <th scope="row">{r.head}</th>
            {r.cells.map((c, i) => (
              <td key={i} className="num">
                {c}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
