import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/create-db.js';
import {
  client,
  countsFromResults,
  createScaleDatabase,
  getRun,
  killLeftovers,
  ok,
  openSqliteFile,
  resultBatch,
  runCli,
  seedProject,
  startServer,
  type Client,
  type ScaleDatabase,
  type ServerProcess,
} from './servers.js';

/**
 * `casebook backup --to FILE` copies a SQLite database consistently while the server keeps
 * writing to it (docs/operations.md). PostgreSQL is backed up with pg_dump, which the command says.
 */

const BATCH = 200;

describe('casebook backup of a SQLite database while the server writes', () => {
  let database: ScaleDatabase;
  let server: ServerProcess;
  let api: Client;
  let code: string;
  let tcaseIds: string[];
  let runId: number;

  beforeAll(async () => {
    database = await createScaleDatabase('sqlite');
    server = await startServer({ databaseUrl: database.url, dataDir: database.dataDir });
    api = client(server.url, server.bannerKey()!);
    ({ code, tcaseIds } = await seedProject(api, 'BKP', 50));
    runId = ok(
      await api.post(`/project/${code}/run`, {
        title: 'Backed up',
        type: 'static_struct',
        queryPlans: [{ tcaseIds }],
      }),
      'create run',
    ).id;
  }, 120_000);

  afterAll(async () => {
    try {
      expect(await server.stop()).toBe(0);
    } finally {
      killLeftovers();
      await database?.drop();
    }
  }, 60_000);

  it('copies a database that opens, passes integrity_check and holds every row acknowledged before it started', async () => {
    const before: number[] = [];
    for (let k = 0; k < 4; k++) {
      const reply = await api.post(
        `/project/${code}/run/${runId}/result/batch`,
        resultBatch(tcaseIds, BATCH, `before ${k}`, k),
      );
      before.push(...ok(reply, 'batch before the backup').ids);
    }

    // Two clients keep writing for the whole backup.
    let writing = true;
    const acksDuringBackup: number[] = [];
    let backupRunning = false;
    const writers = Array.from({ length: 2 }, async (_, w) => {
      for (let k = 0; writing && k < 500; k++) {
        const reply = await api.post(
          `/project/${code}/run/${runId}/result/batch`,
          resultBatch(tcaseIds, BATCH, `during ${w}-${k}`, w + k),
        );
        ok(reply, 'batch during the backup');
        if (backupRunning) acksDuringBackup.push(k);
      }
    });

    const file = path.join(database.dataDir, 'backups', 'copy.db');
    backupRunning = true;
    const backup = await runCli(['backup', '--to', file], { CASEBOOK_DATABASE_URL: database.url });
    backupRunning = false;
    writing = false;
    await Promise.all(writers);

    expect(backup.code, backup.stderr).toBe(0);
    expect(JSON.parse(backup.stdout)).toEqual({ file, bytes: fs.statSync(file).size });
    expect(
      acksDuringBackup.length,
      'the server kept acknowledging writes while the backup ran',
    ).toBeGreaterThan(0);
    expect(fs.existsSync(`${file}.partial`)).toBe(false);

    const copy = openSqliteFile(file);
    try {
      expect(copy.pragma('integrity_check')).toEqual([{ integrity_check: 'ok' }]);
      expect(copy.pragma('foreign_key_check')).toEqual([]);
      const ids = new Set(
        (copy.prepare('select id from results where run_id = ?').all(runId) as Array<{ id: number }>).map(
          (r) => r.id,
        ),
      );
      expect(before.filter((id) => !ids.has(id))).toEqual([]);
      // A snapshot: batches written during the copy are in it whole or not at all.
      const perBatch = copy
        .prepare('select comment, count(*) as n from results where run_id = ? group by comment')
        .all(runId) as Array<{ comment: string; n: number }>;
      expect(perBatch.filter((b) => b.n !== BATCH)).toEqual([]);
    } finally {
      copy.close();
    }

    // The restore of docs/operations.md: the copy as the database of a fresh server, counters agreeing with it.
    const restoreDir = path.join(database.dataDir, 'restored');
    fs.mkdirSync(restoreDir);
    fs.copyFileSync(file, path.join(restoreDir, 'casebook.db'));
    // The secret key is backed up apart from the database; without it the server refuses to start (its own test).
    fs.copyFileSync(path.join(database.dataDir, 'secret.key'), path.join(restoreDir, 'secret.key'));
    const restoredUrl = `sqlite:${path.join(restoreDir, 'casebook.db')}`;
    const restored = await startServer({ databaseUrl: restoredUrl, dataDir: restoreDir });
    const db = createDb(restoredUrl);
    try {
      expect(restored.bannerKey(), 'the restored database already has its owner').toBeUndefined();
      const counts = await getRun(client(restored.url, server.bannerKey()!), code, runId);
      expect(counts.statusCounts).toEqual(await countsFromResults(db, runId));
    } finally {
      await db.destroy();
      expect(await restored.stop()).toBe(0);
    }
  }, 180_000);

  it('refuses to overwrite an existing file and sends PostgreSQL users to pg_dump, with exit code 1 and a JSON error', async () => {
    const taken = path.join(database.dataDir, 'taken.db');
    fs.writeFileSync(taken, 'keep me');
    const again = await runCli(['backup', '--to', taken], { CASEBOOK_DATABASE_URL: database.url });
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stderr.split('\n')[0])).toEqual({
      error: `${taken} exists; choose a new file name`,
    });
    expect(fs.readFileSync(taken, 'utf8')).toBe('keep me');

    const pgUrl = await runCli(['backup', '--to', path.join(database.dataDir, 'pg.db')], {
      CASEBOOK_DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
    });
    expect(pgUrl.code).toBe(1);
    expect(JSON.parse(pgUrl.stderr.split('\n')[0]).error).toMatch(/for PostgreSQL use pg_dump/);

    const missing = await runCli(['backup'], { CASEBOOK_DATABASE_URL: database.url });
    expect(missing.code).toBe(2);
    expect(JSON.parse(missing.stderr.split('\n')[0])).toEqual({ error: '--to is required' });
  }, 60_000);
});
