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
