/**
 * docs/configuration.md: every setting, its flag, default and meaning, from src/config-reference.ts.
 * `npm run docs:config` writes it; test/docs/configuration.test.ts fails when it is stale.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderConfigurationPage } from '../src/config-reference.js';

export const CONFIGURATION_FILE = path.join(
  path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..'),
  'docs/configuration.md',
);

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  fs.writeFileSync(CONFIGURATION_FILE, renderConfigurationPage());
  process.stdout.write(`wrote ${CONFIGURATION_FILE}\n`);
}
