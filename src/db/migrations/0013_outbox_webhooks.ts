import { sql, type Kysely } from 'kysely';
import { bigIdColumn, dialectOf } from '../dialect.js';

// The job outbox and webhooks.
// Frozen once shipped: never edit a migration that has landed; add a new one.

export async function up(db: Kysely<any>): Promise<void> {
  const tenantRef = (c: any) => c.notNull().references('tenants.id').onDelete('cascade');

  // One row per job; written in the transaction of the change that causes it (src/jobs/outbox.ts).
  await db.schema
    .createTable('jobs')
    .addColumn('id', bigIdColumn(db), (c) =>
      bigIdColumn(db) === 'integer' ? c.primaryKey().autoIncrement() : c.primaryKey(),
    )
    .addColumn('tenant_id', 'text', tenantRef)
    .addColumn('kind', 'text', (c) => c.notNull())
    // Jobs sharing a queue key run one at a time, in order (a webhook's deliveries).
    .addColumn('queue_key', 'text')
    .addColumn('payload', 'text', (c) => c.notNull())
    // pending | running | done | failed
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('max_attempts', 'integer', (c) => c.notNull())
    .addColumn('run_at', 'text', (c) => c.notNull())
    // The claim: a random token per claim and the time the lease ends.
    .addColumn('locked_by', 'text')
    .addColumn('locked_until', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .execute();
  // Claims and the look-ahead read due jobs of some kinds in run_at order.
  await db.schema
    .createIndex('jobs_ready_idx')
    .on('jobs')
    .columns(['kind', 'status', 'run_at', 'id'])
    .execute();
  await db.schema.createIndex('jobs_queue_idx').on('jobs').columns(['queue_key', 'status']).execute();
  await db.schema.createIndex('jobs_finished_idx').on('jobs').columns(['finished_at']).execute();

  await db.schema
    .createTable('webhooks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', tenantRef)
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('endpoint', 'text', (c) => c.notNull())
    // AES-256-GCM ciphertexts (src/lib/secret-box.ts); never returned.
    .addColumn('secret_enc', 'text')
    .addColumn('headers_enc', 'text')
    // JSON array of event types.
    .addColumn('event_types', 'text', (c) => c.notNull())
    .addColumn('all_projects', 'integer', (c) => c.notNull())
    // JSON array of project ids (when all_projects is 0).
    .addColumn('project_ids', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('payload_template', 'text')
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('disabled_reason', 'text')
    // The first failed attempt since the last success; 24 h of failures disable the webhook.
    .addColumn('failing_since', 'text')
    .addColumn('created_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('webhooks_tenant_name_uq', ['tenant_id', 'name'])
    .execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', tenantRef)
    .addColumn('webhook_id', 'text', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    // pending | succeeded | failed
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('response_code', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('error', 'text')
    .addColumn('duration_ms', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_attempt_at', 'text')
    .addColumn('next_attempt_at', 'text')
    .addColumn('finished_at', 'text')
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_webhook_idx')
    .on('webhook_deliveries')
    .columns(['webhook_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_created_idx')
    .on('webhook_deliveries')
    .column('created_at')
    .execute();

  if (dialectOf(db) === 'postgres') {
    // Wakes every runner listening (LISTEN casebook_jobs) when jobs are added, at commit, once per statement:
    // enqueuing costs no extra round trip (graphile-worker does the same).
    await sql`create function casebook_jobs_notify() returns trigger language plpgsql as $$
      begin perform pg_notify('casebook_jobs', ''); return null; end $$`.execute(db);
    await sql`create trigger jobs_notify after insert on jobs
      for each statement execute function casebook_jobs_notify()`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('webhooks').execute();
  await db.schema.dropTable('jobs').execute();
  if (dialectOf(db) === 'postgres') await sql`drop function if exists casebook_jobs_notify()`.execute(db);
}
