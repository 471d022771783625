import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { databaseTargets } from '../../../../test/helpers/databases.js';
import { describeEachDb } from '../../../../test/helpers/test-app.js';
import { createProject, userWithKey } from '../../../../test/helpers/factories.js';
import {
  exportArchive,
  importArchive,
  populate,
  postArchive,
  records,
  secondService,
  type Service,
} from '../../../../test/helpers/archive-factories.js';

/** What a case answers, without what an import renews (ids, addresses, the project's id). */
async function caseView(s: Service, code: string, seq: number) {
  const res = await s.get(`/project/${code}/tcase/${seq}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const c = res.body;
  return {
    seq: c.seq,
    title: c.title,
    version: c.version,
    priority: c.priority,
    type: c.type,
    precondition: c.precondition?.text?.replace(/http:\/\/[^/]+\/api\/public\/v0\/file\/\w+/g, 'FILE'),
    steps: (c.steps ?? []).map((x: any) => [x.type, x.title, x.description, x.expected, x.subSteps?.length]),
    tags: (c.tags ?? []).map((g: any) => g.title).sort(),
    requirements: (c.requirements ?? []).map((r: any) => [r.text, r.url]),
    links: c.links,
    files: (c.files ?? []).map((f: any) => [f.fileName, f.size]),
    customFields: c.customFields,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
  };
}

async function runsView(s: Service, code: string) {
  const res = await s.get(`/project/${code}/run`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const out = [];
  for (const r of res.body.runs as any[]) {
    const cases = await s.get(`/project/${code}/run/${r.id}/tcase`);
    const results = [];
    for (const c of cases.body.tcases as any[]) {
      const rs = await s.get(`/project/${code}/run/${r.id}/tcase/${c.seq}`);
      expect(rs.status, JSON.stringify(rs.body)).toBe(200);
      results.push(
        ...(rs.body.results as any[]).map((x: any) => [
          c.seq,
          x.status,
          String(x.comment).replace(/http:\/\/[^/]+\/api\/public\/v0\/file\/\w+/g, 'FILE'),
          x.timeTaken,
          (x.links ?? []).map((l: any) => l.url),
          x.author?.email ?? x.authorId ?? null,
          x.createdAt,
          (x.files ?? []).map((f: any) => [f.fileName, f.mimeType, f.size]),
        ]),
      );
    }
    const logs = await s.get(`/project/${code}/run/${r.id}/log`);
    out.push({
      logs: JSON.stringify(logs.body).match(/Environment was slow/g)?.length ?? 0,
      title: r.title,
      type: r.type,
      closedAt: r.closedAt,
      milestone: r.milestone?.title,
      configuration: r.configuration?.title,
      cases: (cases.body.tcases as any[]).map((c) => [c.seq, c.title, c.status]),
      results,
    });
  }
  return out;
}

describeEachDb('project archive: export and import a whole project', (t) => {
  let code: string;
  let data: Awaited<ReturnType<typeof populate>>;
  let archive: Buffer;
  let other: Service & { close: () => Promise<void> };

  beforeAll(async () => {
    const project = await createProject(t, { title: 'Shop', overviewTitle: 'The shop' });
    code = project.code;
    data = await populate(t, project);
    const res = await exportArchive(t, code);
    expect(res.status, res.body).toBe(200);
    archive = res.bytes;
    // The other database when there are two (SQLite → PostgreSQL and back), else a second one of the same kind.
    const others = databaseTargets().filter((d) => d.name !== t.dbName);
    other = await secondService(others[0]?.name ?? t.dbName);
  });
  afterAll(async () => {
    await other?.close();
  });

  it('streams the project as a gzip archive holding every kind of record', async () => {
    const res = await exportArchive(t, code);
    expect(res.headers['content-type']).toBe('application/gzip');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="${code}.casebook"`);
    const all = records(res.bytes);
    expect(all[0]).toMatchObject({
      t: 'archive',
      format: 'casebook-archive',
      formatVersion: 1,
      project: code,
    });
    const kinds = new Set(all.map((r) => r.t));
    for (const kind of [
      'person',
      'project',
      'member',
      'customField',
      'status',
      'folder',
      'tag',
      'milestone',
      'configuration',
      'requirement',
      'file',
      'fileData',
      'sharedStep',
      'sharedStepVersion',
      'sharedSubStep',
      'sharedPrecondition',
      'sharedPreconditionVersion',
      'tcase',
      'step',
      'precondition',
      'tcaseVersion',
      'tcaseTag',
      'tcaseCustomValue',
      'tcaseRequirement',
      'tcaseSharedStep',
      'tcaseSharedPrecondition',
      'plan',
      'run',
      'result',
      'resultLink',
      'resultFile',
      'runTcase',
      'runLog',
      'knownFailure',
      'end',
    ])
      expect(kinds, kind).toContain(kind);
    const file = all.find((r) => r.t === 'fileData');
    expect(Buffer.from(file.data, 'base64').toString()).toBe('the evidence');
    // A file linked from HTML is named by its archive number, not by this service's address.
    const result = all.find((r) => r.t === 'result' && r.comment.includes('Attachments'));
    expect(result.comment).toContain('href="casebook-file:1"');
    // Due dates and known failures travel with the project.
    expect(all.find((r) => r.t === 'run' && r.description === '<p>Nightly</p>').dueAt).toBe('2030-01-31');
    expect(all.filter((r) => r.t === 'runTcase' && r.dueAt === '2030-01-15')).toHaveLength(1);
    expect(all.find((r) => r.t === 'knownFailure')).toMatchObject({ note: 'flaky staging', run: 1 });
    // A result's files travel as resultFile records naming archived files, in the result's order.
    const attached = all.filter((r) => r.t === 'resultFile');
    expect(attached.map((r) => r.position)).toEqual([1, 2]);
    const fileNames = all.filter((r) => r.t === 'file').map((r) => r.fileName);
    expect(attached.map((r) => fileNames[r.file - 1])).toEqual(['screen.png', 'evidence.txt']);
    expect(all.find((r) => r.t === 'tcase' && r.seq === data.a.seq)).toMatchObject({
      version: 2,
      title: 'Pay by card',
    });
  });

  it('holds no credential, key hash, password hash, session or secret', async () => {
    const text = gunzipSync(archive).toString('utf8');
    const [, keyId, secret] = t.ownerKey.split('.');
    const { key: testerKey } = data.tester;
    expect(text).not.toContain(secret);
    expect(text).not.toContain(testerKey.split('.')[2]);
    expect(text).not.toContain(keyId);
    for (const k of await t.db.selectFrom('api_keys').select(['id', 'secret_hash']).execute()) {
      expect(text).not.toContain(k.secret_hash);
      expect(text).not.toContain(k.id);
    }
    for (const u of await t.db.selectFrom('users').select('password_hash').execute())
      if (u.password_hash) expect(text).not.toContain(u.password_hash);
    expect(text).not.toMatch(/password|secret_hash|session/i);
  });

  it('answers 403 to a caller below admin, for the export and the import', async () => {
    const { key } = await userWithKey(t, 'user');
    const res = await exportArchive(t, code, key);
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body).message).toMatch(/admin/);
    const posted = await postArchive(t, archive, {}, key);
    expect(posted.status).toBe(403);
    expect((await t.get('/import/1', { key })).status).toBe(403);
  });

  it('imports into an empty service on the other database: the same cases, versions, runs and results, and the same archive again', async () => {
    const done = await importArchive(other, archive);
    expect(done).toMatchObject({ status: 'done', code, project: { code } });
    expect(done.progress.done).toBe(done.progress.total);
    for (const seq of [data.a.seq, data.b.seq, data.template.seq])
      expect(await caseView(other, code, seq)).toEqual(await caseView(t, code, seq));
    const versions = async (s: Service) =>
      (await s.get(`/project/${code}/tcase/${data.a.seq}/version/1`)).body;
    const v1 = await versions(other);
    expect(v1.title ?? v1).toEqual((await versions(t)).title ?? v1);
    expect(await runsView(other, code)).toEqual(await runsView(t, code));
    // The file came along and is served by the new service.
    const c = (await other.get(`/project/${code}/tcase/${data.a.seq}`)).body;
    const file = await other.app.inject({
      method: 'GET',
      url: `/api/public/v0/file/${c.files[0].id}`,
      headers: { authorization: `ApiKey ${other.ownerKey}` },
    });
    expect(file.body).toBe('the evidence');
    // Round trip: the archive of the imported project is the same, record for record.
    const again = await exportArchive(other, code);
    expect(records(again.bytes)).toEqual(records(archive));
  });

  it('answers 409 when the code is taken, and imports under another code', async () => {
    const before = await t.db.selectFrom('project_imports').select('id').execute();
    const taken = await postArchive(t, archive);
    expect(taken.status).toBe(409);
    expect(taken.body.message).toContain(code);
    expect(await t.db.selectFrom('project_imports').select('id').execute()).toEqual(before);
    const copy = await importArchive(t, archive, { code: 'CPY' });
    expect(copy).toMatchObject({ status: 'done', code: 'CPY', project: { code: 'CPY' } });
    const project = (await t.get('/project/CPY')).body;
    expect(project.title).toBe('Shop (CPY)');
    expect(await caseView(t, 'CPY', data.a.seq)).toEqual(await caseView(t, code, data.a.seq));
  });

  it('imports an archive written before due dates, known failures and result files existed, reading them as none', async () => {
    const lines = gunzipSync(archive)
      .toString()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((r) => r.t !== 'knownFailure' && r.t !== 'resultFile')
      .map(({ dueAt: _gone, ...r }) =>
        r.t === 'end' ? { ...r, counts: { ...r.counts, knownFailure: undefined, resultFile: undefined } } : r,
      );
    const older = gzipSync(lines.map((r) => JSON.stringify(r)).join('\n'));
    const done = await importArchive(t, older, { code: 'OLD' });
    expect(done).toMatchObject({ status: 'done', code: 'OLD' });
    const runs = (await t.get('/project/OLD/run')).body.runs as { dueAt?: string }[];
    expect(runs.length).toBeGreaterThan(0);
    expect(runs.every((r) => r.dueAt === undefined)).toBe(true);
    const project = (await t.get('/project/OLD')).body;
    const marks = await t.db
      .selectFrom('known_failures')
      .selectAll()
      .where('project_id', '=', project.id)
      .execute();
    expect(marks).toEqual([]);
    const attached = await t.db
      .selectFrom('result_files as rf')
      .innerJoin('runs as r', 'r.id', 'rf.run_id')
      .select('rf.file_id')
      .where('r.project_id', '=', project.id)
      .execute();
    expect(attached).toEqual([]);
  });

  it('refuses with 400 what is not an archive or not a version it reads, storing nothing', async () => {
    const counts = async () => ({
      projects: (await t.db.selectFrom('projects').select('id').execute()).length,
      imports: (await t.db.selectFrom('project_imports').select('id').execute()).length,
    });
    const before = await counts();
    const notGzip = await postArchive(t, Buffer.from('Folder,Name\nA,B\n'), { code: 'BAD' });
    expect(notGzip.status).toBe(400);
    expect(notGzip.body.message).toMatch(/not a Casebook archive/);
    const notArchive = await postArchive(t, gzipSync('{"hello":1}\n'), { code: 'BAD' });
    expect(notArchive.status).toBe(400);
    expect(notArchive.body.message).toMatch(/first line is not its header/);
    const lines = gunzipSync(archive).toString().split('\n');
    const header = JSON.parse(lines[0]);
    const future = gzipSync([JSON.stringify({ ...header, formatVersion: 99 }), ...lines.slice(1)].join('\n'));
    const wrong = await postArchive(t, future, { code: 'BAD' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toMatch(/version 99 is not supported/);
    const missing = await postArchive(t, undefined, { code: 'BAD' });
    expect(missing.status).toBe(400);
    expect(await counts()).toEqual(before);
  });

  it('fails the job of a truncated archive with its reason, writing nothing', async () => {
    const users = (await t.db.selectFrom('users').select('id').execute()).length;
    const files = (await t.db.selectFrom('files').select('id').execute()).length;
    const cut = archive.subarray(0, Math.floor(archive.length * 0.7));
    const failed = await importArchive(t, cut, { code: 'TRC' });
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(/truncated/);
    expect((await t.get('/project/TRC')).status).toBe(404);
    expect((await t.db.selectFrom('users').select('id').execute()).length).toBe(users);
    expect((await t.db.selectFrom('files').select('id').execute()).length).toBe(files);
  });

  it('cleans archived HTML as any write is cleaned (D22)', async () => {
    const lines = gunzipSync(archive).toString().trim().split('\n');
    const hostile = lines.map((l) => {
      const r = JSON.parse(l);
      if (r.t !== 'step') return l;
      return JSON.stringify({
        ...r,
        description: '<p>Open</p><img src=x onerror="alert(1)"><script>alert(2)</script>',
      });
    });
    const done = await importArchive(t, gzipSync(hostile.join('\n') + '\n'), { code: 'XSS' });
    expect(done.status, done.error).toBe('done');
    const c = (await t.get(`/project/XSS/tcase/${data.a.seq}`)).body;
    const text = JSON.stringify(c.steps);
    expect(text).toContain('<p>Open</p>');
    expect(text).not.toMatch(/onerror|<script/);
  });

  it('removes what it wrote when the archive fails part-way', async () => {
    const users = (await t.db.selectFrom('users').select('id').execute()).length;
    const files = (await t.db.selectFrom('files').select('id').execute()).length;
    // A late record names a step the archive does not hold: found only while writing, after the cases.
    const lines = gunzipSync(archive).toString().trim().split('\n');
    const broken = lines.map((l) => {
      const r = JSON.parse(l);
      if (r.t !== 'tcaseVersion' || r.steps.length === 0) return l;
      return JSON.stringify({ ...r, steps: [{ type: 'standalone', id: 9999 }] });
    });
    const failed = await importArchive(t, gzipSync(broken.join('\n') + '\n'), { code: 'PRT' });
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(/step 9999/);
    expect((await t.get('/project/PRT')).status).toBe(404);
    expect((await t.db.selectFrom('users').select('id').execute()).length).toBe(users);
    expect((await t.db.selectFrom('files').select('id').execute()).length).toBe(files);
    const left = await t.db
      .selectFrom('project_imports')
      .selectAll()
      .where('code', '=', 'PRT')
      .executeTakeFirstOrThrow();
    expect(left).toMatchObject({ project_id: null, file_key: null });
  });
});

describeEachDb(
  'project archive: the size limit',
  (t) => {
    it('refuses an archive over the import limit with 413 and keeps nothing', async () => {
      const dir = path.join(t.config.dataDir, 'files', 'imports');
      const stored = () => (fs.existsSync(dir) ? fs.readdirSync(dir) : []);
      const before = stored();
      const big = gzipSync(randomBytes(8192));
      const res = await postArchive(t, big);
      expect(res.status).toBe(413);
      expect(res.body.message).toBe('the file is larger than the import limit of 4096 bytes');
      expect(await t.db.selectFrom('project_imports').selectAll().execute()).toEqual([]);
      expect(stored()).toEqual(before);
    });
  },
  { env: { CASEBOOK_IMPORT_MAX_BYTES: '4096' } },
);
