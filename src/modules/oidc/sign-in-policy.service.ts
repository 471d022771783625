import type { Actor } from '../../auth/actor.js';
import type { Db } from '../../db/create-db.js';
import { validationFailed } from '../../errors.js';
import { recordAudit } from '../audit/audit.service.js';
import { getTenant, setPasswordSignIn, type PasswordSignIn } from '../tenants/tenants.service.js';
import * as repo from './oidc.repository.js';

/**
 * "Sign in through the provider only", with a break-glass owner (docs/api-decisions.md#openid-connect-sign-in): the
 * tenant's `passwordSignIn` is `everyone` or `owners`. With `owners` the password sign-in refuses everyone but the
 * owner (auth module); API keys and the CLI's device sign-in are not password sign-ins and keep working.
 */
export async function signInSettings(db: Db, tenantId: string): Promise<{ passwordSignIn: PasswordSignIn }> {
  return { passwordSignIn: (await getTenant(db, tenantId)).passwordSignIn };
}

/** Sets it (the owner, at the route): `owners` needs an enabled provider, or nobody but the owner could sign in. */
export async function setSignInSettings(
  db: Db,
  actor: Actor,
  input: { passwordSignIn: PasswordSignIn },
): Promise<{ passwordSignIn: PasswordSignIn }> {
  if (
    input.passwordSignIn === 'owners' &&
    (await repo.listEnabledProviders(db, actor.tenantId)).length === 0
  ) {
    throw validationFailed([
      {
        path: '/passwordSignIn',
        message: 'enable an identity provider first: without one, nobody but the owner could sign in',
      },
    ]);
  }
  const before = await signInSettings(db, actor.tenantId);
  if (before.passwordSignIn === input.passwordSignIn) return before;
  await db.transaction().execute(async (trx) => {
    await setPasswordSignIn(trx, actor.tenantId, input.passwordSignIn);
    await recordAudit(trx, actor, 'sign_in.password_policy', {
      password_sign_in: input.passwordSignIn,
      previous: before.passwordSignIn,
    });
  });
  return { passwordSignIn: input.passwordSignIn };
}
