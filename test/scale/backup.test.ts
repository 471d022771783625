import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  API,
  client,
  countsFromResults,
  createScaleDatabase,
  getRun,
  killLeftovers,
  ok,
  resultBatch,
  runCli,
  scaleTargets,
  seedProject,
  startServer,
  type ScaleDatabase,
} from './servers.js';

/**
 * `casebook backup --to FILE` takes one archive (database snapshot, file bytes, manifest) while the server keeps
 * writing; `casebook backup verify` checks it; `casebook restore --from FILE` puts it into an empty database of
 * the other kind, which then answers the same (docs/operations.md#backups).
 */

const BATCH = 100;
const FILE_BODY = Buffer.from('backed-up evidence \u0000\u00ff 0123456789'.repeat(50));

async function upload(url: string, key: string): Promise<string> {
  const form = new FormData();
  form.append('files', new Blob([FILE_BODY], { type: 'application/octet-stream' }), 'evidence.bin');
  const res = await fetch(`${url}${API}/file/batch`, {
    method: 'POST',
    headers: { authorization: `ApiKey ${key}` },
    body: form,
  });
  const body = (await res.json()) as { files: Array<{ id: string }> };
  expect(res.status, JSON.stringify(body)).toBe(201);
  return body.files[0].id;
}

const other = (kind: 'sqlite' | 'postgres') =>
  kind === 'sqlite' && scaleTargets().includes('postgres') ? 'postgres' : 'sqlite';

for (const kind of scaleTargets()) {
  describe(`casebook backup of ${kind} while the server writes, restored on ${other(kind)}`, () => {
    const made: ScaleDatabase[] = [];

    afterAll(async () => {
      killLeftovers();
      for (const db of made) await db.drop();
    }, 60_000);

    it('restores a snapshot that answers the same: projects, cases, runs, whole result batches, file bytes', async () => {
      const source = await createScaleDatabase(kind);
      made.push(source);
      const server = await startServer({ databaseUrl: source.url, dataDir: source.dataDir });
      const key = server.bannerKey()!;
      const api = client(server.url, key);
      const { code, tcaseIds } = await seedProject(api, 'BKP', 20);
      const runId = ok(
        await api.post(`/project/${code}/run`, {
          title: 'Backed up',
          type: 'static_struct',
          queryPlans: [{ tcaseIds }],
        }),
        'create run',
      ).id;
      const fileId = await upload(server.url, key);
      const before = ok(
        await api.post(
          `/project/${code}/run/${runId}/result/batch`,
          resultBatch(tcaseIds, BATCH, 'before', 0),
        ),
        'batch before',
      ).ids as number[];

      // Two clients record results for the whole backup.
      let writing = true;
      let during = 0;
      const writers = Array.from({ length: 2 }, async (_, w) => {
        for (let k = 0; writing && k < 30; k++) {
          const reply = await api.post(
            `/project/${code}/run/${runId}/result/batch`,
            resultBatch(tcaseIds, BATCH, `during ${w}-${k}`, w + k),
          );
          ok(reply, 'batch during the backup');
          during++;
        }
      });
      const file = path.join(source.dataDir, 'backups', 'casebook.backup.tar.gz');
      const withKey = kind === 'sqlite';
      const backup = await runCli(['backup', '--to', file, ...(withKey ? ['--include-secret-key'] : [])], {
        CASEBOOK_DATABASE_URL: source.url,
        CASEBOOK_DATA_DIR: source.dataDir,
      });
      writing = false;
      await Promise.all(writers);
      expect(backup.code, backup.stderr).toBe(0);
      expect(during, 'the server kept acknowledging writes while the backup ran').toBeGreaterThan(0);
      const summary = JSON.parse(backup.stdout);
      expect(summary).toMatchObject({ file, database: kind, files: 1, secretKey: withKey });
      expect(summary.bytes).toBe(fs.statSync(file).size);
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      if (withKey) expect(backup.stderr).toMatch(/warning: the backup holds the secret key/);

      const verified = await runCli(['backup', 'verify', file], {});
      expect(verified.code, verified.stderr).toBe(0);
      expect(JSON.parse(verified.stdout)).toMatchObject({ ok: true, database: kind, files: 1 });

      const answersOf = async (url: string) => {
        const c = client(url, key);
        return {
          projects: ok(await c.get('/project'), 'projects'),
          cases: ok(await c.get(`/project/${code}/tcase?limit=100`), 'cases'),
          runs: ok(await c.get(`/project/${code}/run`), 'runs'),
          file: Buffer.from(
            await (
              await fetch(`${url}${API}/file/${fileId}`, { headers: { authorization: `ApiKey ${key}` } })
            ).arrayBuffer(),
          ),
        };
      };
      const sourceAnswers = await answersOf(server.url);
      // Its exit code is the drain tests' concern (under CI load a close may pass the 10 s limit); this one's is the backup.
      await server.stop();

      const target = await createScaleDatabase(other(kind));
      made.push(target);
      // Without the key in the archive, the key is carried apart, as an operator would.
      if (!withKey)
        fs.copyFileSync(path.join(source.dataDir, 'secret.key'), path.join(target.dataDir, 'secret.key'));
      const env = { CASEBOOK_DATABASE_URL: target.url, CASEBOOK_DATA_DIR: target.dataDir };
      const restore = await runCli(['restore', '--from', file], env);
      expect(restore.code, restore.stderr).toBe(0);
      expect(JSON.parse(restore.stdout).secretKey).toMatch(/the secret key opens the restored secrets$/);

      const again = await runCli(['restore', '--from', file], env);
      expect(again.code).toBe(1);
      expect(JSON.parse(again.stderr.split('\n')[0]).error).toMatch(
        /the target already holds data \(table \w+ has rows\): casebook restore writes only into an empty database/,
      );

      const restored = await startServer({ databaseUrl: target.url, dataDir: target.dataDir });
      try {
        expect(restored.bannerKey(), 'the restored database already has its owner').toBeUndefined();
        const restoredAnswers = await answersOf(restored.url);
        expect(restoredAnswers.projects).toEqual(sourceAnswers.projects);
        expect(restoredAnswers.cases).toEqual(sourceAnswers.cases);
        expect(restoredAnswers.runs.runs.map((r: { id: number }) => r.id)).toEqual(
          sourceAnswers.runs.runs.map((r: { id: number }) => r.id),
        );
        expect(restoredAnswers.file.equals(FILE_BODY)).toBe(true);
        // A snapshot: every result acknowledged before the backup, and batches written during it whole or not at all.
        const rows = await target.db
          .selectFrom('results')
          .select(['id', 'comment'])
          .where('run_id', '=', runId)
          .execute();
        const ids = new Set(rows.map((r) => Number(r.id)));
        expect(before.filter((id) => !ids.has(id))).toEqual([]);
        const perBatch = new Map<string, number>();
        for (const r of rows) perBatch.set(String(r.comment), (perBatch.get(String(r.comment)) ?? 0) + 1);
        expect([...perBatch.values()].filter((n) => n !== BATCH)).toEqual([]);
        const run = await getRun(client(restored.url, key), code, runId);
        expect(run.statusCounts).toEqual(await countsFromResults(target.db, runId));
      } finally {
        await restored.stop();
      }
    }, 240_000);
  });
}

describe('casebook backup and restore refusals', () => {
  it('refuses an existing target, a damaged archive and a missing --to, with exit codes and JSON errors', async () => {
    const dir = fs.mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'casebook-backup-refusals-'));
    try {
      const taken = path.join(dir, 'taken.tar.gz');
      fs.writeFileSync(taken, 'keep me');
      const env = { CASEBOOK_DATA_DIR: dir };
      const again = await runCli(['backup', '--to', taken], env);
      expect(again.code).toBe(1);
      expect(JSON.parse(again.stderr.split('\n')[0])).toEqual({
        error: `${taken} exists; choose a new file name`,
      });
      expect(fs.readFileSync(taken, 'utf8')).toBe('keep me');

      const verify = await runCli(['backup', 'verify', taken], env);
      expect(verify.code).toBe(1);
      expect(JSON.parse(verify.stderr.split('\n')[0]).error).toMatch(
        /^.*taken\.tar\.gz is not a usable Casebook backup: /,
      );

      const missing = await runCli(['backup'], env);
      expect(missing.code).toBe(2);
      expect(JSON.parse(missing.stderr.split('\n')[0])).toEqual({ error: '--to is required' });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
