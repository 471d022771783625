import { open, seal } from '../../lib/secret-box.js';

/**
 * Tracker credentials are encrypted at rest (src/lib/secret-box.ts) under their own key derived from the secret
 * key (CASEBOOK_SECRET_KEY, else `<data dir>/secret.key`, generated on first start: src/secret-key.ts). Every
 * process must use the same key to read what another wrote; one that cannot open the database's check value
 * refuses to start.
 */
const PURPOSE = 'casebook:integration-credentials:v1';

export const encryptCredential = (secretKey: string, plaintext: string): string =>
  seal(plaintext, secretKey, PURPOSE);

/** Throws when the stored value was written with another key or was tampered with. */
export const decryptCredential = (secretKey: string, stored: string): string =>
  open(stored, secretKey, PURPOSE);

/** The hosted services' API addresses, used when a tracker_a / tracker_c integration sets no `apiUrl`. */
export const DEFAULT_API_URL = {
  tracker_a: 'https://api.github.com',
  tracker_c: 'https://api.linear.app',
} as const;

/**
 * Where an integration's credential is sent (runs/tracker-comment.adapters.ts): the API base of its type, the hosted service's
 * unless configured; undefined for a type that calls nothing.
 */
export function credentialUrl(type: string, config: Partial<Record<string, string>>): string | undefined {
  if (type === 'tracker_a' || type === 'tracker_c') return config.apiUrl ?? DEFAULT_API_URL[type];
  if (type === 'tracker_b') return config.url;
  return undefined;
}

/** Why a custom integration has no connection test. */
export const CUSTOM_CALLS_NOTHING =
  'custom integrations only build links and call no tracker: there is no connection to test';
