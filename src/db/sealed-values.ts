import type { Kysely } from 'kysely';
import type { Db } from './connection.js';

/**
 * One stored value of each kind sealed with the secret key (src/lib/secret-box.ts), for the kinds that have any:
 * a tracker credential, a webhook secret, a webhook's headers, a TOTP secret. The secret-key check opens them
 * before it records its own check value (src/secret-key.ts), so a database sealed before it had one is checked too.
 */
export interface SealedSamples {
  integrationToken?: string;
  webhookSecret?: string;
  webhookHeaders?: string;
  twoFactorSecret?: string;
}

export async function sealedSamples(db: Db): Promise<SealedSamples> {
  const token = await db
    .selectFrom('integrations')
    .select('token_enc')
    .where('token_enc', 'is not', null)
    .limit(1)
    .executeTakeFirst();
  const secret = await db
    .selectFrom('webhooks')
    .select('secret_enc')
    .where('secret_enc', 'is not', null)
    .limit(1)
    .executeTakeFirst();
  const headers = await db
    .selectFrom('webhooks')
    .select('headers_enc')
    .where('headers_enc', 'is not', null)
    .limit(1)
    .executeTakeFirst();
  const totp = await db.selectFrom('two_factor').select('secret_enc').limit(1).executeTakeFirst();
  return {
    integrationToken: token?.token_enc ?? undefined,
    webhookSecret: secret?.secret_enc ?? undefined,
    webhookHeaders: headers?.headers_enc ?? undefined,
    twoFactorSecret: totp?.secret_enc,
  };
}

/** The columns holding values sealed with the secret key, each row named by its key column. */
export const SEALED_COLUMNS = [
  { kind: 'integrationToken', table: 'integrations', key: 'id', column: 'token_enc' },
  { kind: 'webhookSecret', table: 'webhooks', key: 'id', column: 'secret_enc' },
  { kind: 'webhookHeaders', table: 'webhooks', key: 'id', column: 'headers_enc' },
  { kind: 'twoFactorSecret', table: 'two_factor', key: 'user_id', column: 'secret_enc' },
  { kind: 'oidcClientSecret', table: 'oidc_providers', key: 'id', column: 'client_secret_enc' },
  { kind: 'secretKeyCheck', table: 'instance_settings', key: 'name', column: 'value' },
] as const;

export type SealedKind = (typeof SEALED_COLUMNS)[number]['kind'];

/**
 * Every sealed value rewritten by `reseal` (in the caller's transaction); answers how many of each kind. The
 * instance_settings row is the secret key's check value alone.
 */
export async function resealAll(
  trx: Db,
  reseal: (kind: SealedKind, sealed: string) => string,
): Promise<Record<SealedKind, number>> {
  const counts = {} as Record<SealedKind, number>;
  const db = trx as unknown as Kysely<Record<string, Record<string, string | number | null>>>;
  for (const c of SEALED_COLUMNS) {
    let query = db.selectFrom(c.table).select([c.key, c.column]).where(c.column, 'is not', null);
    if (c.table === 'instance_settings') query = query.where('name', '=', 'secret_key_check');
    const rows = await query.execute();
    for (const row of rows)
      await db
        .updateTable(c.table)
        .set({ [c.column]: reseal(c.kind, String(row[c.column])) })
        .where(c.key, '=', row[c.key])
        .execute();
    counts[c.kind] = rows.length;
  }
  return counts;
}
