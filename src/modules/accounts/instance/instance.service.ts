import type { Actor } from '../../../auth/actor.js';
import type { Config } from '../../../config.js';
import type { Db } from '../../../db/create-db.js';
import { getTenant } from '../../tenants/tenants.service.js';
import type { InstanceDetails } from '../accounts.schemas.js';

/** `smtp://user:pass@host:port` → `smtp://host:port`: the page names the server, never its credentials. */
function serverOf(smtpUrl: string): string {
  const url = new URL(smtpUrl);
  return `${url.protocol}//${url.host}`;
}

/**
 * The tenant as its owner sees it on the instance page (D3: owner only): its name and host, the public address
 * links in mails and shares point to, and whether mail is configured (server without credentials, sender).
 */
export async function instanceDetails(db: Db, actor: Actor, config: Config): Promise<InstanceDetails> {
  const tenant = await getTenant(db, actor.tenantId);
  return {
    tenant: {
      id: tenant.id,
      name: tenant.name,
      host: tenant.host,
      features: tenant.features,
      createdAt: tenant.createdAt,
    },
    publicUrl: config.publicUrl,
    publicUrlSet: config.publicUrlSet,
    mail: config.smtpUrl
      ? { configured: true, server: serverOf(config.smtpUrl), from: config.mailFrom }
      : { configured: false },
  };
}
