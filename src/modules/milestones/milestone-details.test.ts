import { describe, expect, it } from 'vitest';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { auditRows, createProject, userWithKey } from '../../../test/helpers/factories.js';
import { isCalendarDate } from './milestones.service.js';

describe('isCalendarDate', () => {
  it('takes dates that exist written YYYY-MM-DD and nothing else', () => {
    expect(isCalendarDate('2026-12-31')).toBe(true);
    expect(isCalendarDate('2028-02-29')).toBe(true);
    for (const bad of ['2026-02-30', '2027-02-29', '2026-13-01', '26-01-01', '2026-1-1', 'tomorrow', ''])
      expect(isCalendarDate(bad), bad).toBe(false);
  });
});

/** Issue 28: a milestone's description and due date, one milestone read, and edits after the fact. */
describeEachDb('milestone details and edits', (t) => {
  const create = async (code: string, body: Record<string, unknown>) => {
    const res = await t.post(`/project/${code}/milestone`, body);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id as number;
  };

  it('creates a milestone with a description and a due date and answers it from GET one and the list', async () => {
    const p = await createProject(t);
    const id = await create(p.code, {
      title: 'Release 3',
      description: '  Ship the new checkout.\nNo regressions.  ',
      due: '2026-12-24',
    });
    const one = await t.get(`/project/${p.code}/milestone/${id}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual({
      id,
      title: 'Release 3',
      description: 'Ship the new checkout.\nNo regressions.',
      due: '2026-12-24',
      archived: false,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect((await t.get(`/project/${p.code}/milestone`)).body.milestones).toEqual([one.body]);
  });

  it('answers 404 for an unknown milestone or one of another project', async () => {
    const p = await createProject(t);
    const other = await createProject(t);
    const foreign = await create(other.code, { title: 'Theirs' });
    for (const path of [`/project/${p.code}/milestone/${foreign}`, `/project/${p.code}/milestone/999999`]) {
      const res = await t.get(path);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
      expect((await t.patch(path, { title: 'x' })).status).toBe(404);
    }
    expect((await t.get(`/project/${other.code}/milestone/${foreign}`)).body.title).toBe('Theirs');
  });

  it('edits only the given fields, clears the due date with null and records milestone.updated', async () => {
    const p = await createProject(t);
    const id = await create(p.code, { title: 'Sprint 4', description: 'Search', due: '2026-01-10' });
    const before = (await t.get(`/project/${p.code}/milestone/${id}`)).body;
    const res = await t.patch(`/project/${p.code}/milestone/${id}`, {
      title: '  Sprint 4b ',
      due: '2026-02-01',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, title: 'Sprint 4b', description: 'Search', due: '2026-02-01' });
    expect(res.body.updatedAt >= before.updatedAt).toBe(true);
    expect((await t.get(`/project/${p.code}/milestone/${id}`)).body).toEqual(res.body);
    const [event] = await auditRows(t, 'milestone.updated').then((rows) =>
      rows.filter((r) => JSON.parse(r.meta ?? '{}').milestone_id === id),
    );
    expect(JSON.parse(event!.meta!)).toEqual({
      project_id: p.id,
      project_code: p.code,
      milestone_id: id,
      milestone_title: 'Sprint 4b',
      changed: ['title', 'due'],
      previous_title: 'Sprint 4',
      due: '2026-02-01',
    });
    const cleared = await t.patch(`/project/${p.code}/milestone/${id}`, { due: null, description: '' });
    expect(cleared.status).toBe(200);
    expect(cleared.body.description).toBe('');
    expect('due' in cleared.body).toBe(false);
  });

  it('renames to a title another milestone has (titles are not unique) and edits an archived milestone', async () => {
    const p = await createProject(t);
    await create(p.code, { title: 'Beta' });
    const id = await create(p.code, { title: 'Alpha' });
    await t.post(`/project/${p.code}/milestone/${id}/archive`);
    const res = await t.patch(`/project/${p.code}/milestone/${id}`, { title: 'Beta', description: 'late' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ title: 'Beta', description: 'late', archived: true });
  });

  it.each([
    [{ title: '' }, ['/title']],
    [{ title: 'x'.repeat(256) }, ['/title']],
    [{ due: '2026-02-30' }, ['/due']],
    [{ due: 'next friday' }, ['/due']],
    [{ description: 'd'.repeat(2001) }, ['/description']],
    [{ title: ' ', due: '2026-13-01' }, ['/title', '/due']],
  ])('answers 400 naming the fields of %j and changes nothing', async (body, paths) => {
    const p = await createProject(t);
    const id = await create(p.code, { title: 'Kept', due: '2026-05-05' });
    const before = (await t.get(`/project/${p.code}/milestone/${id}`)).body;
    const res = await t.patch(`/project/${p.code}/milestone/${id}`, body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_FAILED');
    expect(res.body.details.map((d: { path: string }) => d.path)).toEqual(paths);
    expect((await t.get(`/project/${p.code}/milestone/${id}`)).body).toEqual(before);
    // Creation checks the same fields the same way.
    const created = await t.post(`/project/${p.code}/milestone`, { title: 'New', ...body });
    expect(created.status).toBe(400);
    expect(created.body.details.map((d: { path: string }) => d.path)).toEqual(paths);
  });

  it('answers 400 for an empty body or an unknown field (D8)', async () => {
    const p = await createProject(t);
    const id = await create(p.code, { title: 'M' });
    expect((await t.patch(`/project/${p.code}/milestone/${id}`, {})).status).toBe(400);
    const unknown = await t.patch(`/project/${p.code}/milestone/${id}`, { archived: true });
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe('VALIDATION_FAILED');
  });

  it('lets a test-runner member edit, answers 403 to a viewer and reads for both', async () => {
    const viewer = await userWithKey(t, 'viewer');
    const runner = await userWithKey(t, 'test-runner');
    const p = await createProject(t, {}, [viewer.user.id, runner.user.id]);
    const id = await create(p.code, { title: 'Roles' });
    const url = `/project/${p.code}/milestone/${id}`;
    const denied = await t.patch(url, { title: 'by viewer' }, { key: viewer.key });
    expect(denied.status).toBe(403);
    expect((await t.get(url, { key: viewer.key })).body.title).toBe('Roles');
    expect((await t.patch(url, { title: 'by runner' }, { key: runner.key })).status).toBe(200);
    expect((await t.get(url, { key: runner.key })).body.title).toBe('by runner');
  });
});
