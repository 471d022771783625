/**
 * docs/routes.md: every route the service answers, with the file that declares it, so a reader goes from
 * an address to its code in one step. `npm run docs:routes` writes it; `npm run docs:routes -- --check` (and
 * test/docs/routes-map.test.ts) fails when it is stale.
 *
 * The routes come from the built application (Fastify's own route tree, the list the authorisation matrix walks),
 * so a route added anywhere is listed; where it is declared comes from the route files' source (the path literal
 * of `app.<method>('…'`), and a route no file declares that way stops the script rather than being left out.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { collectRoutes } from '../test/security/collect-routes.js';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createDb } from '../src/db/create-db.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const ROUTES_FILE = path.join(ROOT, 'docs/routes.md');

/** Mount points of the route plugins (src/app.ts, SCIM's included): the longest that fits is taken off before matching. */
const PREFIXES = ['/api/public/v0', '/api', '/scim/v2', ''];

interface Declaration {
  method: string;
  /** The declared path; a template literal's `${…}` parts match one segment each. */
  path: RegExp;
  file: string;
}

function pathPattern(literal: string): RegExp {
  const parts = literal.replace(/\/$/, '').split(/\$\{[^}]*\}/);
  return new RegExp('^' + parts.map((p) => p.replace(/[.*+?^$()|[\]\\]/g, '\\$&')).join('[^/]+') + '/?$');
}

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(full)));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts'))
      out.push(full);
  }
  return out;
}

/** Every `x.get('/path'`, `x.post<…>(\n '/path'` … in the server's source. */
async function declarations(): Promise<Declaration[]> {
  const found: Declaration[] = [];
  // The path is a string or template literal, or an exported constant (`app.get(OPENAPI_PATH, …)`).
  const call =
    /\.(get|post|put|patch|delete)\s*(?:<[^>()]*>)?\(\s*(?:'([^']*)'|`([^`]*)`|([A-Z][A-Z0-9_]+)\b)/g;
  const texts = new Map<string, string>();
  for (const file of await filesUnder(path.join(ROOT, 'src')))
    texts.set(file, await fs.readFile(file, 'utf8'));
  const constants = new Map<string, string>();
  for (const text of texts.values()) {
    for (const m of text.matchAll(/export const ([A-Z][A-Z0-9_]+) = '([^']*)'/g)) constants.set(m[1], m[2]);
  }
  for (const [file, text] of texts) {
    for (const m of text.matchAll(call)) {
      const literal = m[2] ?? m[3] ?? constants.get(m[4]);
      if (literal === undefined || !literal.startsWith('/')) continue;
      found.push({
        method: m[1].toUpperCase(),
        path: pathPattern(literal),
        // No line numbers: the map changes when a route moves to another file, not with every edit.
        file: path.relative(ROOT, file).split(path.sep).join('/'),
      });
    }
  }
  return found;
}

function declarationOf(route: string, decls: Declaration[]): Declaration | undefined {
  const [method, full] = route.split(' ');
  const trimmed = full.replace(/\/$/, '') || '/';
  for (const prefix of PREFIXES) {
    if (prefix && !trimmed.startsWith(prefix + '/') && trimmed !== prefix) continue;
    const rest = trimmed.slice(prefix.length) || '/';
    const hit = decls.find((d) => d.method === method && d.path.test(rest));
    if (hit) return hit;
  }
  return undefined;
}

async function currentRoutes(): Promise<string[]> {
  const config = loadConfig({ CASEBOOK_LOG_LEVEL: 'silent', CASEBOOK_DATABASE_URL: 'sqlite::memory:' });
  const db = createDb(config.databaseUrl);
  // webRoot null: the web application's catch-all GET is named in the document's introduction instead.
  const app = await buildApp({ config, db, webRoot: null });
  try {
    await app.ready();
    return collectRoutes(app);
  } finally {
    await app.close();
    await db.destroy();
  }
}

/** The Markdown of docs/routes.md as the code is now; throws naming any route it cannot place. */
export async function generateRouteMap(): Promise<string> {
  const decls = await declarations();
  const rows: { area: string; route: string; where: string }[] = [];
  const unplaced: string[] = [];
  for (const route of await currentRoutes()) {
    const d = declarationOf(route, decls);
    if (!d) {
      // Fastify's own (the OpenAPI UI's static files) are not ours to place.
      if (route.includes('/docs')) continue;
      unplaced.push(route);
      continue;
    }
    const area = /^src\/modules\/([^/]+)\//.exec(d.file)?.[1] ?? path.dirname(d.file);
    rows.push({ area, route, where: d.file });
  }
  if (unplaced.length) throw new Error(`no route file declares: ${unplaced.join(', ')}`);
  const byPath = (r: string) => `${r.split(' ')[1]} ${r.split(' ')[0]}`;
  rows.sort((a, b) => a.area.localeCompare(b.area) || byPath(a.route).localeCompare(byPath(b.route)));
  const lines = [
    '# Routes: where each one is declared',
    '',
    'Generated by `npm run docs:routes` from the built application and the route files; a test fails when it is',
    "stale. Public API routes are under `/api/public/v0`, the web application's own under `/api`. Every other GET",
    "that asks for HTML is the web application's `index.html` (`src/http/web-app.ts`); `/docs` is the API",
    'reference (`src/http/openapi.ts`).',
    '',
  ];
  let area = '';
  for (const row of rows) {
    if (row.area !== area) {
      area = row.area;
      lines.push('', `## ${area}`, '', '| Route | Declared in |', '| --- | --- |');
    }
    lines.push(`| \`${row.route}\` | [${row.where}](../${row.where}) |`);
  }
  return lines.join('\n') + '\n';
}

async function main(): Promise<void> {
  const fresh = await generateRouteMap();
  if (process.argv.includes('--check')) {
    const current = await fs.readFile(ROUTES_FILE, 'utf8').catch(() => '');
    if (current !== fresh) {
      console.error('docs/routes.md is stale: run `npm run docs:routes` and commit it');
      process.exit(1);
    }
    console.log('docs/routes.md is up to date');
    return;
  }
  await fs.writeFile(ROUTES_FILE, fresh);
  console.log(`wrote ${path.relative(process.cwd(), ROUTES_FILE)}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) await main();
