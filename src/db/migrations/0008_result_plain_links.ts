import { sql, type Kysely } from 'kysely';
import { dialectOf, withIdColumn } from '../dialect.js';

// D24: a result link may be plain ({text, url}: a CI log, a dashboard), with no integration, so
// result_links.integration_id becomes nullable.
// Frozen once shipped: never edit a migration that has landed; add a new one.

export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) === 'postgres') {
    await db.schema
      .alterTable('result_links')
      .alterColumn('integration_id', (c) => c.dropNotNull())
      .execute();
    return;
  }
  await rebuildSqlite(db, false);
}

/** Plain links cannot be kept under NOT NULL: going down removes them. */
export async function down(db: Kysely<any>): Promise<void> {
  await db.deleteFrom('result_links').where('integration_id', 'is', null).execute();
  if (dialectOf(db) === 'postgres') {
    await db.schema
      .alterTable('result_links')
      .alterColumn('integration_id', (c) => c.setNotNull())
      .execute();
    return;
  }
  await rebuildSqlite(db, true);
}

/**
 * SQLite cannot change a column's NOT NULL: the table is made anew as 0005 made it (but for that column),
 * the rows copied with their ids, the AUTOINCREMENT high-water mark carried over (ids of deleted links are
 * never handed out again), and the index recreated. Nothing references result_links, so dropping it is safe
 * with foreign keys on; the migrator runs this inside one transaction.
 */
async function rebuildSqlite(db: Kysely<any>, integrationRequired: boolean): Promise<void> {
  await withIdColumn(db, db.schema.createTable('result_links_new'))
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('result_id', 'integer', (c) => c.notNull().references('results.id').onDelete('cascade'))
    .addColumn('integration_id', 'text', (c) => (integrationRequired ? c.notNull() : c))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('meta', 'text', (c) => c.notNull().defaultTo('{}'))
    .execute();
  await sql`insert into result_links_new (id, tenant_id, result_id, integration_id, url, text, meta)
    select id, tenant_id, result_id, integration_id, url, text, meta from result_links`.execute(db);
  await sql`delete from sqlite_sequence where name = 'result_links_new'`.execute(db);
  await sql`insert into sqlite_sequence (name, seq)
    select 'result_links_new', seq from sqlite_sequence where name = 'result_links'`.execute(db);
  await db.schema.dropTable('result_links').execute();
  await sql`alter table result_links_new rename to result_links`.execute(db);
  await db.schema.createIndex('result_links_result_idx').on('result_links').column('result_id').execute();
}
