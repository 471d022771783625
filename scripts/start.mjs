/**
 * `npm start`: builds what changed since the last successful build, then runs the server IN THIS PROCESS.
 *
 * Why a launcher: `npm run build && node …` in the start script put a shell between npm and the server, so
 * `kill <pid of npm start>` stopped at the shell and the server went on serving; and it rebuilt (~10 s) on every
 * start. The start script `exec`s this file, so npm's signal reaches this process, which becomes the server
 * (src/main.ts closes cleanly on SIGTERM/SIGINT). Plain JavaScript: it must run before anything is built.
 *
 * Extra arguments go to `serve`: `npm start -- --port 8080 --workers 2`. `--build-only` builds what changed and
 * exits: `npm run build` is that, so a later `npm start` finds the stamps and starts at once.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { requireSupportedNode } from './node-version.mjs';

// Before building anything: on an older Node.js the SQLite driver would crash the server later, naming nothing.
requireSupportedNode();

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');

/**
 * The build steps, in order. Each is skipped when no input (file or folder: a deleted or renamed file changes its
 * folder's time) is newer than its stamp, which is written only after the step succeeded.
 */
const STEPS = [
  {
    name: 'the server (TypeScript)',
    inputs: ['src', 'tsconfig.json', 'package.json', 'package-lock.json'],
    // Tests are not part of the server's build (tsconfig.json excludes them).
    skip: (file) => file.endsWith('.test.ts'),
    output: 'dist/cli/main.js',
    stamp: 'dist/.build-stamp',
    command: [process.execPath, TSC, '-p', 'tsconfig.json'],
  },
  {
    name: 'the web application (Vite)',
    inputs: ['web', 'package.json', 'package-lock.json'],
    // Its own output and the browser tests' screenshots are not inputs.
    skip: (file) => file.startsWith(path.join(ROOT, 'web/dist')) || file.includes(`${path.sep}node_modules`),
    output: 'web/dist/index.html',
    stamp: 'web/dist/.build-stamp',
    // Reports how far along it is over IPC (scripts/build-web.mjs).
    command: [process.execPath, path.join(ROOT, 'scripts/build-web.mjs')],
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

/**
 * One line per step on stderr: what is built, how far along (a step that reports it), how long it took. A terminal
 * sees the share rewritten in place; a log file or a pipe gets it in quarters on the same line.
 */
function progressLine(name) {
  const tty = process.stderr.isTTY;
  const head = `casebook: building ${name}…`;
  const started = Date.now();
  let shown = 0;
  process.stderr.write(head);
  return {
    progress(share) {
      const step = tty ? 1 : 25;
      const percent = Math.floor((share * 100) / step) * step;
      if (percent <= shown || percent >= 100) return;
      shown = percent;
      process.stderr.write(tty ? `\r${head} ${percent}%` : ` ${percent}%`);
    },
    end(ok) {
      const seconds = Math.round((Date.now() - started) / 1000);
      const tail = ok ? ` done in ${seconds} s` : ` failed after ${seconds} s`;
      process.stderr.write(`${tty ? `\r\x1b[2K${head}` : ''}${tail}\n`);
    },
  };
}

/** Runs a step's command; its output (compiler errors, warnings) is shown after the step's line. */
function run(step, line) {
  const [cmd, ...args] = step.command;
  return new Promise((resolve) => {
    // A start serves production: a NODE_ENV=test or development left in the shell (Vitest sets one) would make
    // Vite bundle React's development build, half again as large and slower.
    const child = spawn(cmd, args, {
      cwd: ROOT,
      env: { ...process.env, NODE_ENV: 'production' },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('message', (message) => line.progress(message.progress));
    child.on('error', (err) => {
      output += `${err.message}\n`;
    });
    child.on('close', (code) => resolve({ ok: code === 0, output, code }));
  });
}

for (const step of STEPS) {
  if (upToDate(step)) continue;
  const line = progressLine(step.name);
  const result = await run(step, line);
  line.end(result.ok);
  if (result.output) process.stderr.write(result.output);
  if (!result.ok) {
    process.stderr.write(`casebook: building ${step.name} failed; not starting\n`);
    process.exit(result.code || 1);
  }
  fs.writeFileSync(path.join(ROOT, step.stamp), `${new Date().toISOString()}\n`);
}

if (process.argv.includes('--build-only')) process.exit(0);

// The server's own entry, as if run as `node dist/cli/main.js serve …`: it reads process.argv, and
// `--workers` forks workers from process.argv[1], which then start the built server directly.
const main = path.join(ROOT, 'dist/cli/main.js');
process.argv = [process.argv[0], main, 'serve', ...process.argv.slice(2)];
await import(pathToFileURL(main).href);
