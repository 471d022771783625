import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The newest modification time of the files below `dir` that `keep` keeps (ms; 0 for none). */
export function newestMtime(dir: string, keep: (name: string) => boolean = () => true): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !keep(entry.name)) continue;
    newest = Math.max(newest, fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

export const mtime = (file: string) => (fs.existsSync(file) ? fs.statSync(file).mtimeMs : 0);

/** Whether dist/ holds the server built from the sources as they are (its tests are not built). */
export function serverBuildIsCurrent(): boolean {
  const built = Math.max(
    mtime(path.join(ROOT, 'dist/cli/main.js')),
    mtime(path.join(ROOT, 'dist/.build-stamp')),
  );
  return built > 0 && built >= newestMtime(path.join(ROOT, 'src'), (name) => !name.endsWith('.test.ts'));
}

let args: string[] | undefined;

/**
 * The arguments after `node` that start the real command line (`casebook …`): the build in dist/ when it is as new
 * as the sources, as in CI, which builds first (a start then costs no compiling: a third to a half of a test that
 * starts many); else the sources through tsx. Never builds: test files running at once would race writing dist/.
 */
export function cliArgs(): string[] {
  args ??= serverBuildIsCurrent()
    ? [path.join(ROOT, 'dist/cli/main.js')]
    : ['--import', 'tsx', path.join(ROOT, 'src/cli/main.ts')];
  return args;
}
