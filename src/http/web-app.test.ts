import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../app.js';
import { loadConfig } from '../config.js';
import { createDb, type Db } from '../db/create-db.js';

// Serving needs no tables: the app is built over an empty in-memory SQLite database.
async function appServing(webRoot: string, logStream?: NodeJS.WritableStream) {
  const config = loadConfig({
    CASEBOOK_LOG_LEVEL: logStream ? 'info' : 'silent',
    CASEBOOK_DATABASE_URL: 'sqlite::memory:',
    CASEBOOK_PUBLIC_URL: 'http://casebook.test',
  });
  const db = createDb(config.databaseUrl);
  const app = await buildApp({ config, db, webRoot, logStream });
  await app.ready();
  return { app, db };
}

const INDEX =
  '<!doctype html><html><head><script type="module" src="/assets/app-abc123.js"></script></head></html>';
const SCRIPT = `export const words = ${JSON.stringify('casebook '.repeat(500))};\n`;

describe('the web application served by the service', () => {
  let root: string;
  let app: FastifyInstance;
  let db: Db;

  beforeAll(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'casebook-web-'));
    fs.mkdirSync(path.join(root, 'assets'));
    fs.writeFileSync(path.join(root, 'index.html'), INDEX);
    const script = path.join(root, 'assets', 'app-abc123.js');
    fs.writeFileSync(script, SCRIPT);
    fs.writeFileSync(`${script}.br`, zlib.brotliCompressSync(SCRIPT));
    fs.writeFileSync(`${script}.gz`, zlib.gzipSync(SCRIPT));
    ({ app, db } = await appServing(root));
  });

  afterAll(async () => {
    await app.close();
    await db.destroy();
    fs.rmSync(root, { recursive: true, force: true });
  });

  const html = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };

  it('answers / with index.html, never cached, under a CSP that allows no inline script', async () => {
    const res = await app.inject({ method: 'GET', url: '/', headers: html });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.body).toBe(INDEX);
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
  });

  it('answers 304 to a revalidation of an unchanged index.html', async () => {
    const first = await app.inject({ method: 'GET', url: '/', headers: html });
    const again = await app.inject({
      method: 'GET',
      url: '/',
      headers: { ...html, 'if-none-match': String(first.headers.etag) },
    });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
  });

  it.each([
    '/project/ABC/run/12',
    '/project/ABC/tcase/7',
    '/sign-in?returnTo=%2Fproject%2FABC',
    // The device sign-in's verification_uri[_complete] (and the CLI's ?code= fallback) is a page of the app.
    '/device',
    '/device?user_code=BCDF-GHJK',
    '/device?code=BCDF-GHJK',
    '/invite/abc',
    '/reset-password/abc',
    '/no/such/page',
  ])('answers the application page %s with index.html when HTML is asked for', async (url) => {
    const res = await app.inject({ method: 'GET', url, headers: html });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe(INDEX);
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers['content-security-policy']).toBeDefined();
  });

  it('answers a shared report page with noindex and no-referrer, and other pages without them', async () => {
    const shared = await app.inject({ method: 'GET', url: '/shared/some-token', headers: html });
    expect(shared.statusCode).toBe(200);
    expect(shared.body).toBe(INDEX);
    expect(shared.headers['x-robots-tag']).toBe('noindex');
    expect(shared.headers['referrer-policy']).toBe('no-referrer');
    const other = await app.inject({ method: 'GET', url: '/project/ABC/run/12/report', headers: html });
    expect(other.headers['x-robots-tag']).toBeUndefined();
    expect(other.headers['referrer-policy']).toBe('same-origin');
  });

  it('answers an application address asked for as JSON with the D7 404', async () => {
    const res = await app.inject({
      method: 'GET',
      url: '/project/ABC/run/12',
      headers: { accept: 'application/json' },
    });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ code: 'NOT_FOUND', message: 'Route GET /project/ABC/run/12 not found' });
  });

  it.each(['/api/public/v0/no-such-thing', '/api/nothing', '/api'])(
    'keeps answering %s with a JSON 404 even when a browser asks for HTML',
    async (url) => {
      const res = await app.inject({ method: 'GET', url, headers: html });
      expect(res.statusCode).toBe(404);
      expect(res.headers['content-type']).toContain('application/json');
      expect(res.json()).toMatchObject({ code: 'NOT_FOUND' });
    },
  );

  it('keeps the API itself answering JSON (401 without credentials)', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/public/v0/project', headers: html });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ code: 'UNAUTHORIZED' });
  });

  it('answers a missing asset with a 404, not with the application', async () => {
    const res = await app.inject({ method: 'GET', url: '/assets/gone-123.js', headers: html });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('sends the brotli file to a client that accepts br, cached for a year as immutable', async () => {
    const res = await app.inject({
      method: 'GET',
      url: '/assets/app-abc123.js',
      headers: { 'accept-encoding': 'gzip, deflate, br' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe('br');
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(String(res.headers.vary)).toMatch(/accept-encoding/i);
    expect(res.headers['content-type']).toMatch(/javascript/);
    expect(zlib.brotliDecompressSync(res.rawPayload).toString()).toBe(SCRIPT);
  });

  it('sends the gzip file to a client that accepts only gzip', async () => {
    const res = await app.inject({
      method: 'GET',
      url: '/assets/app-abc123.js',
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(res.rawPayload).toString()).toBe(SCRIPT);
  });

  it('sends the plain file to a client that accepts no compression', async () => {
    const res = await app.inject({
      method: 'GET',
      url: '/assets/app-abc123.js',
      headers: { 'accept-encoding': 'identity' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.body).toBe(SCRIPT);
  });

  it('keeps /healthz and the API docs working', async () => {
    const health = await app.inject({ method: 'GET', url: '/healthz', headers: html });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toEqual({ status: 'ok' });
    const docs = await app.inject({ method: 'GET', url: '/docs/', headers: html });
    expect(docs.statusCode).toBe(200);
    expect(docs.body).toContain('swagger');
    expect(docs.body).not.toBe(INDEX);
  });
});

describe('the service without a web build', () => {
  it('starts, answers / with a JSON 404 and says in its log that the web application is not built', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'casebook-noweb-'));
    const lines: string[] = [];
    const log = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const { app, db } = await appServing(empty, log);
    try {
      const res = await app.inject({ method: 'GET', url: '/', headers: { accept: 'text/html' } });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ code: 'NOT_FOUND' });
      expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
      expect(lines.join('')).toContain('web application not built');
    } finally {
      await app.close();
      await db.destroy();
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });
});
