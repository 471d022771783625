import { randomBytes, randomUUID } from 'node:crypto';
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
/**
 * A random lower-case alphanumeric id that always starts with a letter, so it can never be read as a
 * sequence number (extensions.md: a test-case id is never all digits).
 */
export function newId(length = 16) {
    const bytes = randomBytes(length);
    let out = ALPHABET[bytes[0] % 26];
    for (let i = 1; i < length; i++)
        out += ALPHABET[bytes[i] % ALPHABET.length];
    return out;
}
export const newUuid = () => randomUUID();
/** URL-safe random secret of `bytes` bytes of entropy. */
export const newSecret = (bytes = 32) => randomBytes(bytes).toString('base64url');
//# sourceMappingURL=ids.js.map