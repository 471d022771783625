import { sql, type Kysely } from 'kysely';
import type { Db } from '../connection.js';
import { dialectOf, withIdColumn } from '../dialect.js';
import { rebuildSearchDocs } from '../search-docs.js';

// Full-text search of test cases: one document per live case (title; precondition, steps and expected
// results as plain text), indexed by FTS5 on SQLite and by a tsvector with a GIN index on PostgreSQL, and the
// backfill of the cases that exist. The backfill builds documents with the application's own builder
// (src/db/search-docs.ts): the index is derived data that every case write rewrites the same way.
// Frozen once shipped: never edit a migration that has landed; add a new one.

const BACKFILL_BATCH = 500;

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = dialectOf(db) === 'postgres';
  let table = withIdColumn(db, db.schema.createTable('tcase_search_docs'))
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('tcase_id', 'text', (c) => c.notNull().unique().references('tcases.id').onDelete('cascade'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull());
  if (postgres) table = table.addColumn('doc', sql`tsvector`, (c) => c.notNull());
  await table.execute();
  if (postgres) {
    await sql`create index tcase_search_docs_doc_idx on tcase_search_docs using gin (doc)`.execute(db);
  } else {
    // External content: the documents stay in tcase_search_docs; the triggers keep the index in step with them
    // in the same transaction (a cascade from a deleted project or tenant fires them too).
    await sql`create virtual table tcase_search using fts5(title, body, content='tcase_search_docs', content_rowid='id', tokenize='unicode61 remove_diacritics 2')`.execute(
      db,
    );
    await sql`create trigger tcase_search_docs_ai after insert on tcase_search_docs begin
      insert into tcase_search(rowid, title, body) values (new.id, new.title, new.body); end`.execute(db);
    await sql`create trigger tcase_search_docs_ad after delete on tcase_search_docs begin
      insert into tcase_search(tcase_search, rowid, title, body) values ('delete', old.id, old.title, old.body); end`.execute(
      db,
    );
    await sql`create trigger tcase_search_docs_au after update on tcase_search_docs begin
      insert into tcase_search(tcase_search, rowid, title, body) values ('delete', old.id, old.title, old.body);
      insert into tcase_search(rowid, title, body) values (new.id, new.title, new.body); end`.execute(db);
  }

  await rebuildSearchDocs(db as Db, BACKFILL_BATCH);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) !== 'postgres') {
    for (const t of ['ai', 'ad', 'au'])
      await sql`drop trigger ${sql.raw(`tcase_search_docs_${t}`)}`.execute(db);
    await sql`drop table tcase_search`.execute(db);
  }
  await db.schema.dropTable('tcase_search_docs').execute();
}
