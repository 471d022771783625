import { randomBytes, randomUUID } from 'node:crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/**
 * A random lower-case alphanumeric id that always starts with a letter, so it can never be read as a
 * sequence number (extensions.md: a test-case id is never all digits).
 */
export function newId(length = 16): string {
  const bytes = randomBytes(length);
  let out = ALPHABET[bytes[0] % 26];
  for (let i = 1; i < length; i++) out += ALPHABET[bytes[i] % ALPHABET.length];
  return out;
}

/**
 * A test-case id that sorts by creation time: `t`, nine base-36 digits of the millisecond (good until the year
 * 5188), ten random ones (3.6e15 per millisecond). Everything keyed by test-case id (tcases, their versions,
 * run_tcases, the results index) then lies in creation order, so cases created together (a suite imported at
 * once) share B-tree pages, and a batch of their results dirties a few pages instead of one per result.
 * Like newId, it starts with a letter and is never all digits.
 */
export function newTcaseId(now = Date.now()): string {
  const bytes = randomBytes(10);
  let out = `t${now.toString(36).padStart(9, '0')}`;
  for (let i = 0; i < 10; i++) out += ALPHABET[bytes[i] % ALPHABET.length];
  return out;
}

export const newUuid = (): string => randomUUID();

/** URL-safe random secret of `bytes` bytes of entropy. */
export const newSecret = (bytes = 32): string => randomBytes(bytes).toString('base64url');
