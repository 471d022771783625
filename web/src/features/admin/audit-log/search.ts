/**
 * The audit log page keeps its filters and its place in the address, so an admin can bookmark or send the view
 * they look at. Days are the reader's calendar days (`YYYY-MM-DD`, `to` inclusive); anything malformed is dropped.
 */
export interface AuditLogSearch {
  /** One action or a comma-separated list. */
  action?: string;
  /** The person's user id. */
  user?: number;
  /** First day shown, in the reader's time zone. */
  from?: string;
  /** Last day shown (inclusive). */
  to?: string;
  /** Oldest first; newest first when absent (the page's default). */
  order?: 'asc';
  /** The page's cursor, oldest first: events after this id. */
  after?: number;
  /** The page's cursor, newest first: events before this id. */
  before?: number;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const isDay = (v: unknown): v is string => typeof v === 'string' && DAY.test(v) && !isNaN(Date.parse(v));
const positive = (v: unknown) => {
  const n = Number(v);
  return Number.isInteger(n) && n > 0 ? n : undefined;
};

export function validateAuditLogSearch(search: Record<string, unknown>): AuditLogSearch {
  const action = typeof search.action === 'string' ? search.action.trim().slice(0, 400) : '';
  const user = positive(search.user);
  const oldestFirst = search.order === 'asc';
  // Each order has its own cursor; one of the other order means nothing here.
  const after = oldestFirst ? positive(search.after) : undefined;
  const before = oldestFirst ? undefined : positive(search.before);
  return {
    ...(action ? { action } : {}),
    ...(user ? { user } : {}),
    ...(isDay(search.from) ? { from: search.from } : {}),
    ...(isDay(search.to) ? { to: search.to } : {}),
    ...(oldestFirst ? { order: 'asc' as const } : {}),
    ...(after ? { after } : {}),
    ...(before ? { before } : {}),
  };
}

/** Local midnight of a `YYYY-MM-DD` day as an ISO instant; `next` gives the following midnight (`to` inclusive). */
export function dayStart(day: string, next = false): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return new Date(y, m - 1, d + (next ? 1 : 0)).toISOString();
}

/** The API's query for these filters and the order (without the cursor). */
export function apiFilter(s: AuditLogSearch) {
  return {
    order: s.order ?? ('desc' as const),
    ...(s.action
      ? {
          action: s.action
            .split(',')
            .map((a) => a.trim())
            .filter(Boolean),
        }
      : {}),
    ...(s.user ? { userId: s.user } : {}),
    ...(s.from ? { from: dayStart(s.from) } : {}),
    ...(s.to ? { to: dayStart(s.to, true) } : {}),
  };
}

/** The export's address: the same filters as a query string (the download reads the session cookie). */
export function exportHref(s: AuditLogSearch): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(apiFilter(s)))
    params.set(k, Array.isArray(v) ? v.join(',') : String(v));
  const q = params.toString();
  return `/api/public/v0/audit-logs/export${q ? `?${q}` : ''}`;
}
