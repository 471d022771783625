import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyStatic from '@fastify/static';

/** Where `npm run build` puts the web application: `web/dist` beside `src/` and `dist/`. */
export const DEFAULT_WEB_ROOT = fileURLToPath(new URL('../../web/dist', import.meta.url));

/**
 * React Aria's press handling adds one constant <style> element (touch-action for pressable elements); it is
 * allowed by its hash, nothing else inline. The browser tests fail on any CSP violation, so a React Aria
 * upgrade that changes the text shows up there.
 */
const REACT_ARIA_PRESS_STYLE = "'sha256-38RhXrc7EdReTKsOm23ZPOCUgniTUUcjky8QOOrQx6o='";

/**
 * The pages load only what the service itself serves: no inline script, no inline style but the one above,
 * no other origin. Styles set from scripts (CSSOM) are not inline styles, so React's `style` props still work.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  `style-src 'self' ${REACT_ARIA_PRESS_STYLE}`,
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Hashed file names change with their content, so a browser may keep them for a year without asking. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

/** Paths that are never the application, whatever the request accepts. */
const NOT_APP = /^\/(api|assets|docs)(\/|$)/;

/**
 * Serves the web application built into `root`: `/assets/…` (hashed, immutable, brotli/gzip by negotiation)
 * and `index.html` for `/` and every other GET that asks for HTML, so the application's own addresses
 * (e.g. `/project/ABC/run/12`) open it. Without a build the service runs as an API only and says so.
 */
export async function installWebApp(app: FastifyInstance, root: string): Promise<void> {
  const indexFile = path.join(root, 'index.html');
  if (!fs.existsSync(indexFile)) {
    app.log.warn(
      { webRoot: root },
      'web application not built (no index.html): serving the API only; `npm run build` builds it',
    );
    return;
  }
  // Read once: a new build comes with a restart, and every page view then costs no file system call.
  const index = fs.readFileSync(indexFile);
  const etag = `"${createHash('sha256').update(index).digest('base64url').slice(0, 27)}"`;

  await app.register(fastifyStatic, {
    root: path.join(root, 'assets'),
    prefix: '/assets/',
    preCompressed: true,
    cacheControl: false,
    setHeaders: (reply: FastifyReply) => void reply.header('cache-control', IMMUTABLE),
    index: false,
    dotfiles: 'ignore',
    // Only /assets is served from disk; the wildcard below answers the rest.
    decorateReply: false,
  });

  const sendIndex = (request: FastifyRequest, reply: FastifyReply, referrer = 'same-origin') => {
    reply
      .header('cache-control', 'no-cache')
      .header('etag', etag)
      .header('content-security-policy', CONTENT_SECURITY_POLICY)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', referrer)
      .header('vary', 'accept');
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    return reply.type('text/html; charset=utf-8').send(index);
  };

  const hidden = { config: { access: { public: true } }, schema: { hide: true } };
  app.get('/', hidden, sendIndex);
  app.get('/*', hidden, (request, reply) => {
    const pathname = request.url.split('?')[0];
    const wantsHtml = (request.headers.accept ?? '').includes('text/html');
    // APIs, assets and docs keep their JSON 404 (D7); so does anything that did not ask for a page.
    if (NOT_APP.test(pathname) || !wantsHtml) return reply.callNotFound();
    // A shared report's page: kept out of search engines even by those that run no script (the page's own
    // robots meta), and its token out of the Referer of any link it shows.
    if (pathname.startsWith('/shared/')) reply.header('x-robots-tag', 'noindex');
    return sendIndex(request, reply, pathname.startsWith('/shared/') ? 'no-referrer' : 'same-origin');
  });
  app.log.info({ webRoot: root }, 'serving the web application');
}
