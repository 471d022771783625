import { open, seal } from '../../lib/secret-box.js';

/**
 * Tracker credentials are encrypted at rest (src/lib/secret-box.ts) under their own key derived from
 * CASEBOOK_SECRET_KEY, so every process that shares the configuration can read what another wrote.
 * Without a configured key, credentials are refused with a 400 naming the setting (see integrations.service)
 * rather than sealed under a key generated into one machine's data directory: other machines sharing the
 * PostgreSQL database could not open them, and losing that file would lose every credential silently.
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
 * Where an integration's credential is sent (src/jobs/trackers.ts): the API base of its type, the hosted service's
 * unless configured; undefined for a type that calls nothing.
 */
export function credentialUrl(type: string, config: Partial<Record<string, string>>): string | undefined {
  if (type === 'tracker_a' || type === 'tracker_c') return config.apiUrl ?? DEFAULT_API_URL[type];
  if (type === 'tracker_b') return config.url;
  return undefined;
}
