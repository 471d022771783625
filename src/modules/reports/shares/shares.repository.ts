import type { Insertable } from 'kysely';
import type { Db } from '../../../db/create-db.js';
import type { ReportSharesTable } from '../../../db/tables/reports.js';

export const insertShare = async (db: Db, row: Insertable<ReportSharesTable>) =>
  (await db.insertInto('report_shares').values(row).returning('id').executeTakeFirstOrThrow()).id;

/** A project's links, newest first, with their creators' names (joined from `users`: one statement, not one per link). */
export const listShares = (db: Db, tenantId: string, projectId: string) =>
  db
    .selectFrom('report_shares as s')
    .leftJoin('users as u', 'u.id', 's.created_by')
    .select([
      's.id',
      's.project_id',
      's.kind',
      's.params',
      's.created_by',
      's.created_at',
      's.expires_at',
      's.revoked_at',
      'u.name as creator_name',
    ])
    .where('s.tenant_id', '=', tenantId)
    .where('s.project_id', '=', projectId)
    .orderBy('s.id', 'desc')
    .execute();

export const findShare = (db: Db, tenantId: string, projectId: string, id: number) =>
  db
    .selectFrom('report_shares')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .executeTakeFirst();

/** The link a token opens, in the tenant the request's host names; the caller checks expiry and revocation. */
export const findShareByTokenHash = (db: Db, tenantId: string, tokenHash: string) =>
  db
    .selectFrom('report_shares')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();

export const revokeShare = (db: Db, id: number, at: string) =>
  db
    .updateTable('report_shares')
    .set({ revoked_at: at })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .execute();
