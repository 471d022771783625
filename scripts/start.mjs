/**
 * `npm start`: builds what changed since the last successful build, then runs the server IN THIS PROCESS.
 *
 * Why a launcher: `npm run build && node …` in the start script put a shell between npm and the server, so
 * `kill <pid of npm start>` stopped at the shell and the server went on serving; and it rebuilt (~10 s) on every
 * start. The start script `exec`s this file, so npm's signal reaches this process, which becomes the server
 * (src/main.ts closes cleanly on SIGTERM/SIGINT). Plain JavaScript: it must run before anything is built.
 *
 * Extra arguments go to `serve`: `npm start -- --port 8080 --workers 2`.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { requireSupportedNode } from './node-version.mjs';

// Before building anything: on an older Node.js the SQLite driver would crash the server later, naming nothing.
requireSupportedNode();

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');
const VITE = path.join(ROOT, 'node_modules/vite/bin/vite.js');

/**
 * The build steps, in order. Each is skipped when no input (file or folder: a deleted or renamed file changes its
 * folder's time) is newer than its stamp, which is written only after the step succeeded.
 */
const STEPS = [
  {
    name: 'server',
    inputs: ['src', 'tsconfig.json', 'package.json', 'package-lock.json'],
    // Tests are not part of the server's build (tsconfig.json excludes them).
    skip: (file) => file.endsWith('.test.ts'),
    output: 'dist/cli/main.js',
    stamp: 'dist/.build-stamp',
    command: [process.execPath, TSC, '-p', 'tsconfig.json'],
  },
  {
    name: 'web application',
    inputs: ['web', 'package.json', 'package-lock.json'],
    // Its own output and the browser tests' screenshots are not inputs.
    skip: (file) => file.startsWith(path.join(ROOT, 'web/dist')) || file.includes(`${path.sep}node_modules`),
    output: 'web/dist/index.html',
    stamp: 'web/dist/.build-stamp',
    command: [process.execPath, VITE, 'build', '--config', 'web/vite.config.ts', '--logLevel', 'warn'],
  },
];

/** The newest modification time under `p` (files and folders), in ms; 0 when it does not exist. */
function newest(p, skip) {
  let stat;
  try {
    stat = fs.statSync(p);
  } catch {
    return 0;
  }
  let time = stat.mtimeMs;
  if (stat.isDirectory()) {
    for (const entry of fs.readdirSync(p)) {
      const child = path.join(p, entry);
      if (!skip(child)) time = Math.max(time, newest(child, skip));
    }
  }
  return time;
}

function upToDate(step) {
  const stamp = path.join(ROOT, step.stamp);
  if (!fs.existsSync(path.join(ROOT, step.output)) || !fs.existsSync(stamp)) return false;
  const built = fs.statSync(stamp).mtimeMs;
  return step.inputs.every((input) => newest(path.join(ROOT, input), step.skip) <= built);
}

for (const step of STEPS) {
  if (upToDate(step)) continue;
  process.stderr.write(`casebook: building the ${step.name} (sources changed since the last build)\n`);
  const [cmd, ...args] = step.command;
  const result = spawnSync(cmd, args, { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) {
    process.stderr.write(`casebook: the ${step.name} build failed; not starting\n`);
    process.exit(result.status ?? 1);
  }
  fs.writeFileSync(path.join(ROOT, step.stamp), `${new Date().toISOString()}\n`);
}

// The server's own entry, as if run as `node dist/cli/main.js serve …`: it reads process.argv, and
// `--workers` forks workers from process.argv[1], which then start the built server directly.
const main = path.join(ROOT, 'dist/cli/main.js');
process.argv = [process.argv[0], main, 'serve', ...process.argv.slice(2)];
await import(pathToFileURL(main).href);
