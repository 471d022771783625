import fs from 'node:fs';
import path from 'node:path';
import { CREDENTIALS_FILE } from '../../src/bootstrap.js';

export interface SavedCredentials {
  email: string;
  /** The generated password, or '(from CASEBOOK_OWNER_PASSWORD)'. */
  password: string;
  key: string;
}

/** The owner's credentials as the first start writes them (its file, or a banner shown on a terminal). */
export function parseCredentials(text: string): SavedCredentials {
  const field = (name: string) => {
    const value = new RegExp(`${name}: +(.+)`).exec(text)?.[1];
    if (!value) throw new Error(`no "${name}" in the first start's credentials:\n${text}`);
    return value.trim();
  };
  return { email: field('E-mail'), password: field('Password'), key: field('API key') };
}

/** The first start's credentials file in a data directory, or undefined when there is none. */
export function readSavedCredentials(dataDir: string): SavedCredentials | undefined {
  const file = path.join(dataDir, CREDENTIALS_FILE);
  return fs.existsSync(file) ? parseCredentials(fs.readFileSync(file, 'utf8')) : undefined;
}
