import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../dialect.js';

// File bodies in the database (CASEBOOK_FILE_STORAGE=postgres, docs/operations.md#file-storage): 256 KiB chunks
// per storage key, so that every machine on one PostgreSQL sees them and its backups hold them. Each file row
// names the backend that holds its bytes, so switching the setting (or `casebook files move`) never strands a
// file. SQLite gets the same schema, unused. Numbered 0025 as assigned. Frozen once shipped.

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = dialectOf(db) === 'postgres';
  await db.schema
    .alterTable('files')
    .addColumn('storage', 'text', (c) => c.notNull().defaultTo('local'))
    .execute();
  await db.schema
    .createTable('file_chunks')
    .addColumn('storage_key', 'text', (c) => c.notNull())
    .addColumn('idx', 'integer', (c) => c.notNull())
    .addColumn('data', postgres ? sql`bytea` : 'blob', (c) => c.notNull())
    .addPrimaryKeyConstraint('file_chunks_pk', ['storage_key', 'idx'])
    .execute();
  // Uploads are mostly compressed already (images, video, archives): PostgreSQL's own compression of each chunk
  // would cost CPU on every write and save nothing. EXTERNAL keeps them out of line, uncompressed.
  if (postgres) await sql`alter table file_chunks alter column data set storage external`.execute(db);
  // Chunks go with their file row (a tenant's removal cascades to its files). A trigger, not a foreign key: the
  // bytes are written before the row that names them is inserted, and a failed upload leaves neither.
  if (postgres) {
    await sql`create function casebook_file_chunks_drop() returns trigger language plpgsql as $$
      begin delete from file_chunks where storage_key = old.storage_key; return null; end $$`.execute(db);
    await sql`create trigger files_drop_chunks after delete on files for each row
      execute function casebook_file_chunks_drop()`.execute(db);
  } else {
    await sql`create trigger files_drop_chunks after delete on files for each row
      begin delete from file_chunks where storage_key = old.storage_key; end`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger files_drop_chunks${dialectOf(db) === 'postgres' ? sql` on files` : sql``}`.execute(
    db,
  );
  if (dialectOf(db) === 'postgres') await sql`drop function casebook_file_chunks_drop()`.execute(db);
  await db.schema.dropTable('file_chunks').execute();
  await db.schema.alterTable('files').dropColumn('storage').execute();
}
