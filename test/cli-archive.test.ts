import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { firstStart } from '../src/bootstrap.js';
import { loadConfig } from '../src/config.js';
import { createDb, type Db } from '../src/db/create-db.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { cliArgs } from './helpers/cli-command.js';

/* `casebook export` and `casebook import`: a project archive offline, against the configured database. */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

describe('casebook export and import of a project archive [sqlite]', () => {
  let dir: string;
  let url: string;
  let db: Db;
  const env = () => ({
    ...process.env,
    CASEBOOK_DATABASE_URL: url,
    CASEBOOK_DATA_DIR: dir,
    CASEBOOK_LOG_LEVEL: 'silent',
    CASEBOOK_PUBLIC_URL: 'http://casebook.test',
  });
  const cli = (...args: string[]): Promise<CliResult> =>
    new Promise((resolve) => {
      execFile(
        process.execPath,
        [...cliArgs(), ...args],
        { cwd: ROOT, env: env(), timeout: 60_000 },
        (err, stdout, stderr) =>
          resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
      );
    });
  const errorOf = (r: CliResult) =>
    JSON.parse(r.stderr.split('\n').find((l) => l.startsWith('{"error"'))!).error;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'casebook-archive-cli-'));
    url = `sqlite:${path.join(dir, 'casebook.db')}`;
    db = createDb(url);
    await migrateToLatest(db);
    const config = loadConfig({
      CASEBOOK_DATA_DIR: dir,
      CASEBOOK_LOG_LEVEL: 'silent',
      CASEBOOK_OWNER_EMAIL: 'owner@example.com',
      CASEBOOK_OWNER_PASSWORD: 'owner-password',
      CASEBOOK_PUBLIC_URL: 'http://casebook.test',
      CASEBOOK_SECRET_KEY: 'test-secret-key-0123456789',
    });
    const first = await firstStart(db, config);
    const app = await buildApp({ config, db, webRoot: null });
    const call = async (method: string, url: string, body: unknown) => {
      const res = await app.inject({
        method: method as 'POST',
        url: `/api/public/v0${url}`,
        headers: { authorization: `ApiKey ${first!.apiKey}`, 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      });
      expect(res.statusCode, res.body).toBeLessThan(300);
      return JSON.parse(res.body);
    };
    await call('POST', '/project', { code: 'CLI', title: 'Command line' });
    const folder = (await call('POST', '/project/CLI/tcase/folder/bulk', { folders: [{ path: ['Suite'] }] }))
      .ids[0][0];
    for (const title of ['First', 'Second'])
      await call('POST', '/project/CLI/tcase', {
        title,
        type: 'standalone',
        priority: 'low',
        folderId: folder,
        steps: [{ description: `<p>${title} step</p>` }],
      });
    await app.close();
  });
  afterAll(async () => {
    await db?.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('exports a project to a file, with progress on stderr and a summary on stdout', async () => {
    const out = path.join(dir, 'cli.casebook');
    const r = await cli('export', '--project', 'cli', '--out', out);
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout);
    expect(summary).toEqual({ file: out, bytes: fs.statSync(out).size, records: expect.any(Number) });
    expect(r.stderr).toContain(`{"progress":{"records":${summary.records}}}`);
    const lines = gunzipSync(fs.readFileSync(out)).toString().trim().split('\n');
    expect(lines).toHaveLength(summary.records);
    expect(JSON.parse(lines[0])).toMatchObject({ format: 'casebook-archive', project: 'CLI' });
    expect(fs.existsSync(`${out}.partial`)).toBe(false);
  });

  it('imports the archive under another code, and refuses the code taken', async () => {
    const file = path.join(dir, 'cli.casebook');
    const taken = await cli('import', '--file', file);
    expect(taken.code).toBe(1);
    expect(taken.stdout).toBe('');
    expect(errorOf(taken)).toMatch(/a project with the code CLI exists/);
    const r = await cli('import', '--file', file, '--code', 'CLI2');
    expect(r.code, r.stderr).toBe(0);
    const done = JSON.parse(r.stdout);
    expect(done).toEqual({ project: { id: expect.any(String), code: 'CLI2' }, records: expect.any(Number) });
    expect(r.stderr).toContain(`"total":${done.records}`);
    const titles = await db
      .selectFrom('tcases')
      .select(['seq', 'title'])
      .where('project_id', '=', done.project.id)
      .orderBy('seq')
      .execute();
    expect(titles).toEqual([
      { seq: 1, title: 'First' },
      { seq: 2, title: 'Second' },
    ]);
  });

  it('refuses a file that is not an archive, writing nothing', async () => {
    const bad = path.join(dir, 'not.casebook');
    fs.writeFileSync(bad, 'Folder,Name\n');
    const before = await db.selectFrom('projects').select('id').execute();
    const r = await cli('import', '--file', bad, '--code', 'BAD');
    expect(r.code).toBe(1);
    expect(errorOf(r)).toMatch(/not a Casebook archive/);
    expect(await db.selectFrom('projects').select('id').execute()).toEqual(before);
    const unknown = await cli('export', '--project', 'NOPE', '--out', path.join(dir, 'x.casebook'));
    expect(unknown.code).toBe(1);
    expect(errorOf(unknown)).toMatch(/project "NOPE" not found/);
  });
});
