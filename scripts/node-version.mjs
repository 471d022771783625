/**
 * The Node.js versions Casebook runs on, read from package.json's `engines.node` (one source of truth), and the
 * check that `npm start` and the test run make before anything else. On an older Node.js the
 * SQLite driver (better-sqlite3 13, built for Node.js 22 and 24) crashes the process later with a segmentation
 * fault that names nothing; this stops at once and says what was found and what is needed.
 * Plain JavaScript: it runs before anything is built.
 */
import fs from 'node:fs';
import process from 'node:process';
import { URL } from 'node:url';

const pkg = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

/** `engines.node` is kept in the one form this reads: `>=MAJOR.MINOR` (or `>=MAJOR.MINOR.PATCH`). */
function minimumOf(range) {
  const match = /^>=(\d+)\.(\d+)(?:\.(\d+))?$/.exec(range ?? '');
  if (!match)
    throw new Error(`package.json engines.node must read ">=MAJOR.MINOR", not ${JSON.stringify(range)}`);
  return [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)];
}

export const NODE_MINIMUM = minimumOf(pkg.engines?.node);

/** Why Casebook cannot run on Node.js `version` (e.g. "20.20.2"), or null when it can. */
export function nodeVersionProblem(version, executable = process.execPath) {
  const found = version.split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    if ((found[i] ?? 0) > NODE_MINIMUM[i]) return null;
    if ((found[i] ?? 0) < NODE_MINIMUM[i]) {
      return (
        `Casebook needs Node.js ${NODE_MINIMUM.join('.')} or newer (the maintained lines 22 and 24); ` +
        `this is Node.js ${version} (${executable}).\n` +
        'Install Node.js 24 or 22, or, in this repository, run `. scripts/node-env.sh` first: it fetches the ' +
        'pinned Node.js from the npm registry and puts it first on the PATH of this shell.'
      );
    }
  }
  return null;
}

/** Stops the process with the message when this Node.js is too old. */
export function requireSupportedNode() {
  const problem = nodeVersionProblem(process.versions.node);
  if (problem) {
    process.stderr.write(`casebook: ${problem}\n`);
    process.exit(1);
  }
}
