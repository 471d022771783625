/**
 * The web application's production build for `npm start` (scripts/start.mjs runs it as a child process): Vite's
 * own build of web/vite.config.ts, quiet but for warnings, with a plugin that reports how far along it is to the
 * parent over IPC ({ progress: 0..1 }). Vite says nothing in between when its output is not a terminal.
 *
 * How far along, by phase (PHASES: each phase's share of a full build's time, measured on the reference machine:
 * module graph 0.65 s, rendering 0.4 s, writing with the .br/.gz copies 5.3 s):
 * - the module graph: modules parsed over modules found so far (the set found grows as each parsed module names
 *   its imports, so the share is held at its highest);
 * - rendering the chunks;
 * - writing: the bytes of the assets whose compressed copies are written (web/vite.config.ts's precompress(), at
 *   the highest Brotli quality, is most of the build) over the bytes of all it compresses, looked at every 200 ms.
 */
import { Buffer } from 'node:buffer';
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { clearInterval, setInterval } from 'node:timers';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Where each phase starts, as a share of the whole build (measured, see the header). */
const PHASES = { modules: 0, render: 0.1, write: 0.17 };
/** The assets precompress() makes .br/.gz copies of (web/vite.config.ts). */
const COMPRESSIBLE = /^assets\/.*\.(js|css|svg|json|txt|map)$/;

const report = (share) => process.send?.({ progress: Math.min(1, Math.max(0, share)) });

function progress() {
  const found = new Set();
  let parsed = 0;
  let highest = 0;
  let timer;
  return {
    name: 'casebook-build-progress',
    apply: 'build',
    buildStart() {
      report(PHASES.modules);
    },
    moduleParsed(info) {
      found.add(info.id);
      for (const id of info.importedIds) found.add(id);
      for (const id of info.dynamicallyImportedIds) found.add(id);
      parsed += 1;
      const share = parsed / found.size;
      if (share <= highest) return;
      highest = share;
      report(PHASES.modules + highest * (PHASES.render - PHASES.modules));
    },
    renderStart() {
      report(PHASES.render);
    },
    generateBundle(options, bundle) {
      report(PHASES.write);
      const dir = options.dir ?? path.join(ROOT, 'web/dist');
      const sizes = Object.values(bundle)
        .filter((file) => COMPRESSIBLE.test(file.fileName))
        .map((file) => [file.fileName, Buffer.byteLength(file.type === 'chunk' ? file.code : file.source)]);
      const total = sizes.reduce((sum, [, size]) => sum + size, 0);
      if (total === 0) return;
      // A file's .gz is written last of its copies (a tiny file may get none: it weighs next to nothing).
      timer = setInterval(() => {
        const done = sizes
          .filter(([name]) => fs.existsSync(path.join(dir, `${name}.gz`)))
          .reduce((sum, [, size]) => sum + size, 0);
        report(PHASES.write + (done / total) * (1 - PHASES.write));
      }, 200);
    },
    closeBundle() {
      clearInterval(timer);
    },
  };
}

await build({
  configFile: path.join(ROOT, 'web/vite.config.ts'),
  logLevel: 'warn',
  // The framework chunk (React, TanStack, the API client: 572 kB minified, 175 kB gzip) is one file by design
  // (web/vite.config.ts's codeSplitting); Vite's 500 kB advice about it is not for someone starting the service.
  build: { chunkSizeWarningLimit: 700 },
  plugins: [progress()],
});
report(1);
