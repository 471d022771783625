import { AppError, badRequest } from '../../errors.js';
import { checkPassword, getUser } from '../users/users.service.js';
import * as repo from './auth.repository.js';
// Failed sign-ins are rows in `sign_in_failures`, not an in-memory window, so the limits hold across
// every process serving the tenant (several workers, several machines on one PostgreSQL).
export const THROTTLE_WINDOW_MS = 15 * 60 * 1000;
/** Failures per account (e-mail) within the window before sign-in is refused. */
export const MAX_FAILURES_PER_EMAIL = 5;
/** Failures per address within the window before sign-in is refused. */
export const MAX_FAILURES_PER_IP = 20;
/** A 429 that knows when to come back; routes put `retryAfterSeconds` into `Retry-After`. */
export class SignInThrottled extends AppError {
    retryAfterSeconds;
    constructor(retryAfterSeconds) {
        super('RATE_LIMITED', `too many failed sign-in attempts; try again in ${retryAfterSeconds} seconds`);
        this.retryAfterSeconds = retryAfterSeconds;
    }
}
const normEmail = (email) => email.trim().toLowerCase();
/**
 * Refuses (429) while the account has 5 or the address 20 failures in the last 15 minutes; checked before
 * the password, so a right guess during the lock-out does not get through.
 */
export async function assertSignInAllowed(db, source, email) {
    const now = Date.now();
    const since = new Date(now - THROTTLE_WINDOW_MS).toISOString();
    const checks = [
        { by: { emailNorm: normEmail(email) }, max: MAX_FAILURES_PER_EMAIL },
        { by: { ip: source.ip }, max: MAX_FAILURES_PER_IP },
    ];
    for (const { by, max } of checks) {
        const { count, oldest } = await repo.failuresSince(db, source.tenantId, by, since);
        if (count >= max && oldest) {
            const freeAt = Date.parse(oldest) + THROTTLE_WINDOW_MS;
            throw new SignInThrottled(Math.max(1, Math.ceil((freeAt - now) / 1000)));
        }
    }
}
export async function recordSignInFailure(db, source, email) {
    const now = new Date();
    await repo.deleteFailuresBefore(db, source.tenantId, new Date(now.getTime() - THROTTLE_WINDOW_MS).toISOString());
    await repo.insertFailure(db, source.tenantId, normEmail(email), source.ip, now.toISOString());
}
/** A successful sign-in forgives the account's failures (the address's other failures still count). */
export const clearSignInFailures = (db, tenantId, email) => repo.deleteFailuresForEmail(db, tenantId, normEmail(email));
/**
 * Checks a signed-in user's current password before a sensitive change; a wrong one is a 400 at `path`
 * and counts as a failed sign-in, so a stolen session cannot be used to guess the password.
 */
export async function confirmPassword(db, actor, password, path) {
    const user = await getUser(db, actor.tenantId, actor.userId);
    await assertSignInAllowed(db, actor, user.email);
    if (!(await checkPassword(db, actor.tenantId, actor.userId, password))) {
        await recordSignInFailure(db, actor, user.email);
        throw badRequest('the current password is not correct', path);
    }
}
//# sourceMappingURL=throttle.service.js.map