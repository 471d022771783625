import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

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

// In development Vite serves the pages and passes the API to a running service (`npm run dev`).
const apiTarget = process.env.CASEBOOK_DEV_API ?? 'http://127.0.0.1:3000';

export default defineConfig({
  root: here,
  plugins: [react(), precompress()],
  build: {
    outDir: path.join(here, 'dist'),
    emptyOutDir: true,
    target: 'es2022',
    // Small assets stay files: the CSP allows no data: scripts, and a file is cached once for good.
    assetsInlineLimit: 0,
    // Maximum brotli takes a few seconds once per build; that is the point, not a slow plugin to report.
    rolldownOptions: { checks: { pluginTimings: false } },
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
