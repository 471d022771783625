import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from 'node:crypto';

// Secrets the service must read back (TOTP secrets, tracker credentials) are sealed with AES-256-GCM under
// a key derived from the configured secret key (CASEBOOK_SECRET_KEY) with scrypt. Each kind of secret has
// its own `purpose`, so its key differs. Format: `v1:<iv>:<tag>:<data>`, base64url; a fresh 96-bit IV each time.

const keys = new Map<string, Buffer>();

function keyFor(secretKey: string, purpose: string): Buffer {
  const id = `${purpose}\u0000${secretKey}`;
  let key = keys.get(id);
  if (!key) {
    key = scryptSync(secretKey, purpose, 32, { N: 16384, r: 8, p: 1 });
    keys.set(id, key);
  }
  return key;
}

export function seal(plain: string, secretKey: string, purpose = 'casebook-secret-box'): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyFor(secretKey, purpose), iv);
  const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  return ['v1', iv, tag, data].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join(':');
}

/**
 * The key, or an internal error when there is none. A started server always has one (src/bootstrap.ts prepareStart:
 * CASEBOOK_SECRET_KEY, else the data directory's key file, generated on first start), so an empty key means the
 * application was built without it: a programming error (a 500, logged), never a request the client can fix.
 */
export function requireSecretKey(secretKey: string): string {
  if (!secretKey) {
    throw new Error('no secret key: the application was built without the one prepareStart settles');
  }
  return secretKey;
}

/** Opens what `seal` made; throws when the key is wrong or the data was altered. */
export function open(sealed: string, secretKey: string, purpose = 'casebook-secret-box'): string {
  const [version, iv, tag, data] = sealed.split(':');
  if (version !== 'v1' || !iv || !tag || data === undefined) throw new Error('unknown sealed format');
  const decipher = createDecipheriv('aes-256-gcm', keyFor(secretKey, purpose), Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
}
