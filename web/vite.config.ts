import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import optimizeLocales from '@react-aria/optimize-locales-plugin';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin, type Rolldown } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));
const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);
const COMPRESSIBLE = /\.(js|css|svg|json|txt|map)$/;

/**
 * Writes `.br` and `.gz` beside every text asset once, at build time, so the service sends them by
 * negotiation (@fastify/static `preCompressed`) instead of compressing on every request.
 */
function precompress(): Plugin {
  return {
    name: 'casebook-precompress',
    apply: 'build',
    async writeBundle(options, bundle) {
      const dir = options.dir ?? path.join(here, 'dist');
      await Promise.all(
        Object.keys(bundle)
          .filter((name) => name.startsWith('assets/') && COMPRESSIBLE.test(name))
          .map(async (name) => {
            const file = path.join(dir, name);
            const raw = await fs.readFile(file);
            const [br, gz] = await Promise.all([
              brotli(raw, {
                params: {
                  [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY,
                  [zlib.constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
                },
              }),
              gzip(raw, { level: zlib.constants.Z_BEST_COMPRESSION }),
            ]);
            // A variant no smaller than the file would only cost a read.
            if (br.length < raw.length) await fs.writeFile(`${file}.br`, br);
            if (gz.length < raw.length) await fs.writeFile(`${file}.gz`, gz);
          }),
      );
    },
  };
}

/** The pages boot.ts starts early (its `pageOf`), by the module the router loads for them. */
const EARLY_PAGES: Record<string, string> = {
  shell: 'src/app/shell/AppShell.tsx',
  projects: 'src/features/projects/ProjectsPage.tsx',
  repository: 'src/features/repository/RepositoryPage.tsx',
  run: 'src/features/runs/RunPage.tsx',
  dashboard: 'src/features/reports/dashboard/DashboardPage.tsx',
};

type Chunk = Rolldown.OutputChunk;

/** A chunk, its static imports and their CSS: what importing it loads. */
function closure(byFile: Map<string, Chunk>, fileName: string, into = new Set<string>()): Set<string> {
  const chunk = byFile.get(fileName);
  if (!chunk || into.has(fileName)) return into;
  into.add(fileName);
  for (const css of chunk.viteMetadata?.importedCss ?? []) into.add(css);
  for (const dep of chunk.imports) closure(byFile, dep, into);
  return into;
}

const isMainEntry = (c: Chunk) => c.isEntry && !!c.facadeModuleId?.endsWith('index.html');
/** The chunk the router loads for a page's module (EARLY_PAGES). */
const pageChunk = (chunks: Chunk[], source: string) =>
  chunks.find((c) => c.facadeModuleId === path.join(here, source));

/**
 * V8's explicit compile hint (Chrome 136+; a plain comment elsewhere): the functions of a file that starts with
 * `//# allFunctionsCalledOnLoad` are compiled while the file is parsed off the main thread, instead of one by one
 * on the main thread when first called. Given to what a cold load runs at once (the main entry's files and the
 * early pages'), it took about a quarter off the main thread's script time before the repository page's first
 * paint here (the first paint itself stays about the same on two cores: the compiling moves to the other one); the
 * heavy parts loaded on use (the editor, the diff) keep lazy compilation. Added after the file names are hashed:
 * only this comment can differ between two files of one name.
 */
function compileHints(): Plugin {
  return {
    name: 'casebook-compile-hints',
    apply: 'build',
    generateBundle(_options, bundle) {
      const chunks = Object.values(bundle).filter((c): c is Chunk => c.type === 'chunk');
      const byFile = new Map(chunks.map((c) => [c.fileName, c]));
      const early = new Set<string>();
      const main = chunks.find(isMainEntry);
      if (main) closure(byFile, main.fileName, early);
      for (const source of Object.values(EARLY_PAGES)) {
        const page = pageChunk(chunks, source);
        if (page) closure(byFile, page.fileName, early);
      }
      for (const file of early) {
        const chunk = byFile.get(file);
        if (chunk) chunk.code = `//# allFunctionsCalledOnLoad\n${chunk.code}`;
      }
    },
  };
}

/**
 * Builds web/src/boot.ts as a file of its own and puts it first in index.html's head, `async`: it starts the
 * opened page's first requests, and the download of the page's own code, before the application's code has
 * even loaded (the main entry would run only after all of its modules are fetched and parsed). Its `data-pages`
 * attribute names the files of each early page that index.html does not already load. In development there is
 * no boot script; pages just ask.
 */
function bootScript(): Plugin {
  const entry = path.join(here, 'src/boot.ts');
  return {
    name: 'casebook-boot-script',
    apply: 'build',
    buildStart() {
      this.emitFile({ type: 'chunk', id: entry, name: 'boot' });
    },
    transformIndexHtml: {
      order: 'post',
      handler(html, ctx) {
        const chunks = Object.values(ctx.bundle ?? {}).filter((c) => c.type === 'chunk');
        const boot = chunks.find((c) => c.facadeModuleId === entry);
        if (!boot) throw new Error('casebook-boot-script: the boot chunk is missing from the bundle');
        if (boot.imports.length > 0)
          throw new Error(`casebook-boot-script: boot.ts must import nothing (it imports ${boot.imports})`);
        const byFile = new Map(chunks.map((c) => [c.fileName, c]));
        const main = chunks.find(isMainEntry);
        const loaded = main ? closure(byFile, main.fileName) : new Set<string>();
        const pages: Record<string, string[]> = {};
        for (const [page, source] of Object.entries(EARLY_PAGES)) {
          const chunk = pageChunk(chunks, source);
          if (!chunk) throw new Error(`casebook-boot-script: no chunk for ${source}`);
          pages[page] = [...closure(byFile, chunk.fileName)].filter((f) => !loaded.has(f));
        }
        // Right after the charset, ahead of the main entry's own files, and asked for at high priority (an async
        // script is otherwise fetched last); the files of each early page ride on it as data.
        const charset = '<meta charset="UTF-8" />';
        if (!html.includes(charset)) throw new Error('casebook-boot-script: index.html has no charset meta');
        const attribute = JSON.stringify(pages).replaceAll('&', '&amp;').replaceAll('"', '&quot;');
        return html.replace(
          charset,
          `${charset}\n    <script type="module" async fetchpriority="high" src="/${boot.fileName}" ` +
            `data-pages="${attribute}"></script>`,
        );
      },
    },
  };
}

// In development Vite serves the pages and passes the API to a running service (`npm run dev`).
const apiTarget = process.env.CASEBOOK_DEV_API ?? 'http://127.0.0.1:3000';

export default defineConfig({
  root: here,
  plugins: [
    react(),
    // The interface is in English: React Aria's own strings (announcements, drag hints) for its 34 other locales
    // were a seventh of the repository page's JavaScript, parsed on every cold load. Other locales fall back to en-US.
    optimizeLocales.vite({ locales: ['en-US'] }),
    bootScript(),
    compileHints(),
    precompress(),
  ],
  build: {
    outDir: path.join(here, 'dist'),
    emptyOutDir: true,
    target: 'es2022',
    // Small assets stay files: the CSP allows no data: scripts, and a file is cached once for good.
    assetsInlineLimit: 0,
    // Maximum brotli takes a few seconds once per build; that is the point, not a slow plugin to report.
    rolldownOptions: {
      checks: { pluginTimings: false },
      output: {
        // Left alone, the code every page shares came in 15 files, many under 1 KB: a cold load spent more time
        // queueing them on the browser's six connections than receiving them. React, TanStack and the API client
        // now come in two; React Aria stays split by use, so sign-in does not load the repository's tree.
        codeSplitting: {
          groups: [
            {
              name: 'framework',
              test: /node_modules[\\/](react|react-dom|scheduler|@tanstack[\\/](react-query|query-core|react-router|router-core|history|store|react-store)|openapi-fetch|use-sync-external-store)[\\/]/,
            },
            { name: 'api', test: /web[\\/]src[\\/]api[\\/]/ },
          ],
        },
      },
    },
  },
  server: {
    proxy: {
      '/api': {
        target: apiTarget,
        // D4: cookie-authenticated writes must come from the service's own origin; through the proxy
        // they do, so the proxy says so.
        configure: (proxy) => proxy.on('proxyReq', (req) => req.setHeader('origin', apiTarget)),
      },
      '/docs': apiTarget,
    },
  },
});
