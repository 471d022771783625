import SQLite from 'better-sqlite3';
import pg from 'pg';

/**
 * Writes `count` audit events for the default tenant straight into the database (the API has no bulk path for
 * audit events, by design), dated within the current month. Returns the id just before the first inserted event.
 */
export async function insertAuditEvents(databaseUrl: string, count: number): Promise<number> {
  const now = Date.now();
  if (databaseUrl.startsWith('sqlite:')) {
    const db = new SQLite(databaseUrl.slice('sqlite:'.length));
    db.pragma('busy_timeout = 30000');
    const before = (db.prepare('select coalesce(max(id), 0) as m from audit_events').get() as { m: number })
      .m;
    const insert = db.prepare(
      `insert into audit_events (tenant_id, user_id, action, ip, user_agent, meta, created_at) values ('default', 1, ?, '127.0.0.1', 'bench', ?, ?)`,
    );
    const chunk = 50_000;
    for (let done = 0; done < count; done += chunk) {
      db.transaction(() => {
        for (let i = done; i < Math.min(count, done + chunk); i++) {
          insert.run(
            i % 2 ? 'login' : 'archive_project',
            i % 2 ? null : '{"project_id":"x","project_code":"P","project_title":"T"}',
            new Date(now - (count - i)).toISOString(),
          );
        }
      })();
    }
    db.close();
    return before;
  }
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  const before = Number((await c.query('select coalesce(max(id), 0) as m from audit_events')).rows[0].m);
  await c.query(
    `insert into audit_events (tenant_id, user_id, action, ip, user_agent, meta, created_at)
     select 'default', 1, case when g % 2 = 1 then 'login' else 'archive_project' end, '127.0.0.1', 'bench',
            case when g % 2 = 1 then null else '{"project_id":"x","project_code":"P","project_title":"T"}' end,
            to_char((now() at time zone 'utc') - ((${count} - g) || ' milliseconds')::interval, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
     from generate_series(1, ${count}) g`,
  );
  // Events written through the API accrue over months while autovacuum keeps the statistics current; a bulk
  // load of a million rows does not, and the planner would take the table for empty (as a fresh import would).
  await c.query('analyze audit_events');
  await c.end();
  return before;
}
