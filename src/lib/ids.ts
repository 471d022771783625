import { randomBytes, randomUUID } from 'node:crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/**
 * A random lower-case alphanumeric id that always starts with a letter, so it can never be read as a
 * sequence number (docs/api-decisions.md#wire-rules: a test-case id is never all digits).
 */
export function newId(length = 16): string {
  const bytes = randomBytes(length);
  let out = ALPHABET[bytes[0] % 26];
  for (let i = 1; i < length; i++) out += ALPHABET[bytes[i] % ALPHABET.length];
  return out;
}

let lastMs = -1;
let madeInMs = 0;

/**
 * `prefix`, nine base-36 digits of the millisecond (good until the year 5188), two counting the ids this process
 * made in that millisecond (up to 1,296), then `randomDigits` random ones: ids made by one process sort in the
 * order they were made, those of several processes by millisecond.
 */
function timeOrderedId(prefix: string, randomDigits: number, now: number): string {
  madeInMs = now === lastMs ? madeInMs + 1 : 0;
  lastMs = now;
  const bytes = randomBytes(randomDigits);
  let out = `${prefix}${now.toString(36).padStart(9, '0')}${Math.min(madeInMs, 1295).toString(36).padStart(2, '0')}`;
  for (let i = 0; i < randomDigits; i++) out += ALPHABET[bytes[i] % ALPHABET.length];
  return out;
}

/**
 * A test-case id that sorts by creation time: `t`, the millisecond and a count within it, eight random digits
 * (timeOrderedId; 2.8e12 per millisecond and count). Everything keyed by test-case id (tcases, their versions,
 * run_tcases, the results index) then lies in creation order, so cases created together (a suite imported at
 * once) share B-tree pages, and a batch of their results dirties a few pages instead of one per result.
 * Like newId, it starts with a letter and is never all digits.
 */
export const newTcaseId = (now = Date.now()): string => timeOrderedId('t', 8, now);

/**
 * An id for rows listed "in creation order" by (created_at, id): created in the same millisecond, they still
 * list in the order they were made (configurations, run logs). Starts with a letter, like newId.
 */
export const newOrderedId = (now = Date.now()): string => timeOrderedId('o', 8, now);

export const newUuid = (): string => randomUUID();

/** URL-safe random secret of `bytes` bytes of entropy. */
export const newSecret = (bytes = 32): string => randomBytes(bytes).toString('base64url');

/** Largest value of the 32-bit integer columns (ids, sequence numbers) on both databases. */
const INT32_MAX = 2_147_483_647;

/**
 * A test-case reference that is a sequence number (all digits, within the column's range), or
 * undefined: `2147483648` cannot be a seq and must not reach PostgreSQL as one (docs/api-decisions.md#hostile-input).
 */
export function seqOf(ref: string): number | undefined {
  if (!/^\d{1,10}$/.test(ref)) return undefined;
  const seq = Number(ref);
  return seq <= INT32_MAX ? seq : undefined;
}
