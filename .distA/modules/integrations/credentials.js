import { open, seal } from '../../lib/secret-box.js';
/**
 * Tracker credentials are encrypted at rest (src/lib/secret-box.ts) under their own key derived from
 * CASEBOOK_SECRET_KEY, so every process that shares the configuration can read what another wrote.
 * Without a configured key, credentials are refused with a 400 naming the setting (see integrations.service)
 * rather than sealed under a key generated into one machine's data directory: other machines sharing the
 * PostgreSQL database could not open them, and losing that file would lose every credential silently.
 */
const PURPOSE = 'casebook:integration-credentials:v1';
export const encryptCredential = (secretKey, plaintext) => seal(plaintext, secretKey, PURPOSE);
/** Throws when the stored value was written with another key or was tampered with. */
export const decryptCredential = (secretKey, stored) => open(stored, secretKey, PURPOSE);
//# sourceMappingURL=credentials.js.map