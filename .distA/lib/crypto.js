import { createHash, randomBytes, scrypt as scryptCb, timingSafeEqual, } from 'node:crypto';
const scrypt = (password, salt, keylen, options) => new Promise((resolve, reject) => scryptCb(password, salt, keylen, options, (err, key) => (err ? reject(err) : resolve(key))));
const N = 16384;
const R = 8;
const P = 1;
const KEYLEN = 32;
/** Hashes a password with scrypt; the result records its parameters so they can be raised later. */
export async function hashPassword(password) {
    const salt = randomBytes(16);
    const key = await scrypt(password, salt, KEYLEN, { N, r: R, p: P });
    return `scrypt$${N}$${R}$${P}$${salt.toString('base64')}$${key.toString('base64')}`;
}
export async function verifyPassword(password, stored) {
    if (!stored)
        return false;
    const [scheme, n, r, p, saltB64, keyB64] = stored.split('$');
    if (scheme !== 'scrypt')
        return false;
    const expected = Buffer.from(keyB64, 'base64');
    const key = await scrypt(password, Buffer.from(saltB64, 'base64'), expected.length, {
        N: Number(n),
        r: Number(r),
        p: Number(p),
    });
    return timingSafeEqual(key, expected);
}
/** Hash for high-entropy secrets (API keys, session tokens): they need no slow hashing. */
export const sha256 = (value) => createHash('sha256').update(value).digest('hex');
export function safeEqualHex(a, b) {
    const ab = Buffer.from(a, 'hex');
    const bb = Buffer.from(b, 'hex');
    return ab.length === bb.length && timingSafeEqual(ab, bb);
}
//# sourceMappingURL=crypto.js.map