import { useState, type ReactNode } from 'react';

export interface Column<T> {
  key: string;
  header: string;
  cell: (row: T) => ReactNode;
  /** The value a sortable column sorts by; columns without one keep the report's own order. */
  sortBy?: (row: T) => number | string;
  /** Names and keys read A→Z first; counts, times and dates the most first. */
  ascendingFirst?: boolean;
  numeric?: boolean;
  /** Kept on one line (dates, durations): a phone scrolls the table rather than stacking them. */
  nowrap?: boolean;
}

type Sort = { key: string; dir: 'ascending' | 'descending' } | null;

/**
 * A report's list as a table. Rows come in the report's own order (most failing first, …); a column header
 * with a sort value is a button that sorts by it — the most, the slowest, the newest first, or names A→Z —
 * and says so through `aria-sort`.
 */
export function ReportTable<T>({
  caption,
  columns,
  rows,
  rowKey,
}: {
  caption: string;
  columns: Column<T>[];
  rows: T[];
  rowKey: (row: T) => string | number;
}) {
  const [sort, setSort] = useState<Sort>(null);
  const column = sort && columns.find((c) => c.key === sort.key);
  const shown =
    column?.sortBy === undefined
      ? rows
      : [...rows].sort((a, b) => {
          const x = column.sortBy!(a);
          const y = column.sortBy!(b);
          const order =
            typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
          return sort!.dir === 'ascending' ? order : -order;
        });
  const press = (c: Column<T>) =>
    setSort((s) =>
      s?.key === c.key
        ? { key: c.key, dir: s.dir === 'descending' ? 'ascending' : 'descending' }
        : { key: c.key, dir: c.ascendingFirst ? 'ascending' : 'descending' },
    );
  return (
    <div className="rep-table-wrap">
      <table className="rep-table">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th
                key={c.key}
                scope="col"
                className={c.numeric ? 'num' : undefined}
                aria-sort={c.sortBy && sort?.key === c.key ? sort.dir : undefined}
              >
                {c.sortBy ? (
                  <button type="button" className="rep-sort" onClick={() => press(c)}>
                    {c.header}
                    <span aria-hidden="true" className="rep-sort-mark">
                      {sort?.key === c.key ? (sort.dir === 'descending' ? '▼' : '▲') : '↕'}
                    </span>
                  </button>
                ) : (
                  c.header
                )}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {shown.map((row) => (
            <tr key={rowKey(row)}>
              {columns.map((c) => (
                <td
                  key={c.key}
                  className={
                    [c.numeric && 'num', c.nowrap && 'nowrap'].filter(Boolean).join(' ') || undefined
                  }
                >
                  {c.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
