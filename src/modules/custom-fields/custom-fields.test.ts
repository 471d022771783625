import { describe, expect, it } from 'vitest';
import { describeEachDb, type TestEnv } from '../../../test/helpers/test-app.js';
import { createProject, userWithKey } from '../../../test/helpers/factories.js';
import { createTcase, getTcase } from '../../../test/helpers/tcase-factories.js';
import { listFieldsBySystemName, normalizeTcaseCustomFields } from './custom-fields.service.js';

let n = 0;
const sys = (base: string) => `${base}_${n++}`;

async function createField(t: TestEnv, body: Record<string, unknown>): Promise<string> {
  const res = await t.post('/custom-field', { name: 'A field', ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describeEachDb('custom fields', (t) => {
  describe('POST /custom-field', () => {
    it('answers 201 {id: string}; GET shows every field, with string option ids and the default', async () => {
      const systemName = sys('environment');
      const res = await t.post('/custom-field', {
        type: 'dropdown',
        systemName,
        name: '  Environment ',
        required: true,
        options: [{ value: 'dev' }, { value: ' staging ' }, { value: 'prod' }],
        defaultValue: 'staging',
      });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body)).toEqual(['id']);
      expect(res.body.id).toMatch(/^[a-z][a-z0-9]+$/);
      const got = await t.get(`/custom-field/${res.body.id}`);
      expect(got.status).toBe(200);
      expect(got.body).toEqual({
        id: res.body.id,
        type: 'dropdown',
        systemName,
        name: 'Environment',
        required: true,
        enabled: true,
        options: [
          { id: expect.stringMatching(/^[a-z][a-z0-9]+$/), value: 'dev' },
          { id: expect.any(String), value: 'staging' },
          { id: expect.any(String), value: 'prod' },
        ],
        defaultValue: 'staging',
        pos: expect.any(Number),
        allowAllProjects: true,
        allowedProjectIds: null,
        createdAt: expect.stringMatching(ISO),
        updatedAt: got.body.createdAt,
      });
    });

    it('creates text, checkbox and richtext fields with options null and leaves defaultValue out when none', async () => {
      const text = await createField(t, { type: 'text', systemName: sys('owner') });
      const checkbox = await createField(t, {
        type: 'checkbox',
        systemName: sys('automated'),
        defaultValue: 'false',
      });
      const rich = await createField(t, {
        type: 'richtext',
        systemName: sys('notes'),
        defaultValue: '<p>See <a href="javascript:x()">here</a></p><script>x</script>',
        enabled: false,
      });
      const t1 = (await t.get(`/custom-field/${text}`)).body;
      expect(t1).toMatchObject({ type: 'text', options: null, required: false, enabled: true });
      expect(t1).not.toHaveProperty('defaultValue');
      expect((await t.get(`/custom-field/${checkbox}`)).body).toMatchObject({
        options: null,
        defaultValue: 'false',
      });
      expect((await t.get(`/custom-field/${rich}`)).body).toMatchObject({
        enabled: false,
        defaultValue: '<p>See <a>here</a></p>',
      });
    });

    it('puts a new field last in the order', async () => {
      const a = await createField(t, { type: 'text', systemName: sys('first') });
      const b = await createField(t, { type: 'text', systemName: sys('second') });
      const pa = (await t.get(`/custom-field/${a}`)).body.pos;
      expect((await t.get(`/custom-field/${b}`)).body.pos).toBe(pa + 1);
    });

    it.each([['Upper'], ['1digit'], ['with-dash'], ['with space'], [''], ['a'.repeat(65)]])(
      'answers 400 for the systemName %j',
      async (systemName) => {
        const res = await t.post('/custom-field', { type: 'text', systemName, name: 'Bad' });
        expect(res.status).toBe(400);
        expect(res.body.details).toEqual([
          { path: '/systemName', message: expect.stringContaining('lower-case') },
        ]);
      },
    );

    it('answers 409 when the systemName is taken', async () => {
      const systemName = sys('taken');
      await createField(t, { type: 'text', systemName });
      const res = await t.post('/custom-field', { type: 'checkbox', systemName, name: 'Again' });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({
        code: 'CONFLICT',
        message: `a custom field with the system name "${systemName}" exists`,
      });
    });

    it('answers 400 for bad options, defaults, names and types, creating nothing', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ type: 'dropdown' }, '/options'],
        [{ type: 'dropdown', options: [] }, '/options'],
        [{ type: 'dropdown', options: [{ value: 'a' }, { value: 'a ' }] }, '/options/1/value'],
        [{ type: 'dropdown', options: [{ value: ' ' }] }, '/options/0/value'],
        [{ type: 'dropdown', options: [{ id: 'x', value: 'a' }] }, '/options'],
        [{ type: 'dropdown', options: [{ value: 'a' }], defaultValue: 'b' }, '/defaultValue'],
        [{ type: 'text', options: [{ value: 'a' }] }, '/options'],
        [{ type: 'checkbox', defaultValue: 'yes' }, '/defaultValue'],
        [{ type: 'text', name: ' ' }, '/name'],
        [{ type: 'number' }, '/type'],
        [{ type: 'text', colour: 'red' }, '/colour'],
        [{ type: 'text', required: 'yes' }, '/required'],
      ];
      for (const [body, path] of cases) {
        const systemName = sys('bad');
        const res = await t.post('/custom-field', { name: 'Bad', systemName, ...body });
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
        expect((await listFieldsBySystemName(t.db, t.tenantId)).has(systemName)).toBe(false);
      }
    });

    it('takes allowedProjectIds as ids or codes, stores ids, and implies allowAllProjects false', async () => {
      const a = await createProject(t);
      const b = await createProject(t);
      const id = await createField(t, {
        type: 'text',
        systemName: sys('scoped'),
        allowedProjectIds: [a.id, b.code.toLowerCase()],
      });
      expect((await t.get(`/custom-field/${id}`)).body).toMatchObject({
        allowAllProjects: false,
        allowedProjectIds: [a.id, b.id],
      });
      const none = await createField(t, {
        type: 'text',
        systemName: sys('nowhere'),
        allowAllProjects: false,
      });
      expect((await t.get(`/custom-field/${none}`)).body).toMatchObject({
        allowAllProjects: false,
        allowedProjectIds: [],
      });
    });

    it('answers 400 for an unknown project and for allowAllProjects true with a project list', async () => {
      const p = await createProject(t);
      const unknown = await t.post('/custom-field', {
        type: 'text',
        systemName: sys('unknown_project'),
        name: 'x',
        allowedProjectIds: [p.id, 'NOPE5'],
      });
      expect(unknown.status).toBe(400);
      expect(unknown.body.details).toEqual([
        { path: '/allowedProjectIds/1', message: 'project "NOPE5" not found' },
      ]);
      const both = await t.post('/custom-field', {
        type: 'text',
        systemName: sys('contradiction'),
        name: 'x',
        allowAllProjects: true,
        allowedProjectIds: [p.id],
      });
      expect(both.status).toBe(400);
      expect(both.body.details[0].path).toBe('/allowedProjectIds');
    });

    it.each(['user', 'test-runner', 'viewer'] as const)('answers 403 to a %s', async (role) => {
      const { key } = await userWithKey(t, role);
      const res = await t.post(
        '/custom-field',
        { type: 'text', systemName: sys('denied'), name: 'x' },
        { key },
      );
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('FORBIDDEN');
    });

    it('lets an admin create one', async () => {
      const { key } = await userWithKey(t, 'admin');
      const res = await t.post(
        '/custom-field',
        { type: 'text', systemName: sys('by_admin'), name: 'x' },
        { key },
      );
      expect(res.status).toBe(201);
    });
  });

  describe('GET /project/:p/custom-field', () => {
    it('lists the fields available in the project (all-project and allowed ones, enabled or not) by position', async () => {
      const p = await createProject(t);
      const other = await createProject(t);
      const everywhere = await createField(t, { type: 'text', systemName: sys('everywhere') });
      const here = await createField(t, {
        type: 'checkbox',
        systemName: sys('here'),
        allowedProjectIds: [p.id],
      });
      const elsewhere = await createField(t, {
        type: 'text',
        systemName: sys('elsewhere'),
        allowedProjectIds: [other.id],
      });
      const disabled = await createField(t, { type: 'text', systemName: sys('disabled'), enabled: false });
      const res = await t.get(`/project/${p.code}/custom-field`);
      expect(res.status).toBe(200);
      const ids = res.body.customFields.map((f: { id: string }) => f.id);
      expect(ids).toEqual(expect.arrayContaining([everywhere, here, disabled]));
      expect(ids).not.toContain(elsewhere);
      const positions = res.body.customFields.map((f: { pos: number }) => f.pos);
      expect(positions).toEqual([...positions].sort((x: number, y: number) => x - y));
      expect(res.body.customFields.find((f: { id: string }) => f.id === here)).toEqual(
        (await t.get(`/custom-field/${here}`)).body,
      );
    });

    it('lets a viewer member read it; 403 to a non-member, 404 for an unknown project', async () => {
      const viewer = await userWithKey(t, 'viewer');
      const p = await createProject(t, {}, [viewer.user.id]);
      expect((await t.get(`/project/${p.code}/custom-field`, { key: viewer.key })).status).toBe(200);
      const outsider = await userWithKey(t, 'viewer');
      expect((await t.get(`/project/${p.code}/custom-field`, { key: outsider.key })).status).toBe(403);
      expect((await t.get('/project/NOPE6/custom-field')).status).toBe(404);
    });
  });

  describe('GET /custom-field', () => {
    it('lists every field of the tenant to an admin and answers 403 to a user', async () => {
      const p = await createProject(t);
      const scoped = await createField(t, {
        type: 'text',
        systemName: sys('tenant_list'),
        allowedProjectIds: [p.id],
      });
      const res = await t.get('/custom-field');
      expect(res.status).toBe(200);
      expect(res.body.customFields.map((f: { id: string }) => f.id)).toContain(scoped);
      const user = await userWithKey(t, 'user');
      expect((await t.get('/custom-field', { key: user.key })).status).toBe(403);
      expect((await t.get(`/custom-field/${scoped}`, { key: user.key })).status).toBe(403);
      expect((await t.get('/custom-field/nope')).status).toBe(404);
    });
  });

  describe('PATCH /custom-field/:id', () => {
    it('changes name, required, enabled and availability, and answers the field', async () => {
      const p = await createProject(t);
      const id = await createField(t, { type: 'text', systemName: sys('patched') });
      const before = (await t.get(`/custom-field/${id}`)).body;
      await new Promise((resolve) => setTimeout(resolve, 3));
      const res = await t.patch(`/custom-field/${id}`, {
        name: 'Renamed',
        required: true,
        enabled: false,
        allowedProjectIds: [p.code],
        defaultValue: 'n/a',
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        ...before,
        name: 'Renamed',
        required: true,
        enabled: false,
        allowAllProjects: false,
        allowedProjectIds: [p.id],
        defaultValue: 'n/a',
        updatedAt: expect.stringMatching(ISO),
      });
      expect(res.body.updatedAt > before.updatedAt).toBe(true);
      const back = await t.patch(`/custom-field/${id}`, { allowAllProjects: true, defaultValue: null });
      expect(back.body).toMatchObject({ allowAllProjects: true, allowedProjectIds: null });
      expect(back.body).not.toHaveProperty('defaultValue');
      const off = await t.patch(`/custom-field/${id}`, { allowAllProjects: false });
      expect(off.body).toMatchObject({ allowAllProjects: false, allowedProjectIds: [] });
    });

    it('keeps option ids, gives new options ids, and carries the default along a renamed option', async () => {
      const id = await createField(t, {
        type: 'dropdown',
        systemName: sys('opts'),
        options: [{ value: 'low' }, { value: 'high' }],
        defaultValue: 'low',
      });
      const [low, high] = (await t.get(`/custom-field/${id}`)).body.options;
      const res = await t.patch(`/custom-field/${id}`, {
        options: [{ id: high.id, value: 'high' }, { id: low.id, value: 'lowest' }, { value: 'middle' }],
      });
      expect(res.status).toBe(200);
      expect(res.body.options).toEqual([
        { id: high.id, value: 'high' },
        { id: low.id, value: 'lowest' },
        { id: expect.any(String), value: 'middle' },
      ]);
      expect(res.body.defaultValue).toBe('lowest');
    });

    it('answers 400 for a removed default option, an unknown option id, a bad default and fixed fields, changing nothing', async () => {
      const id = await createField(t, {
        type: 'dropdown',
        systemName: sys('strict'),
        options: [{ value: 'a' }, { value: 'b' }],
        defaultValue: 'a',
      });
      const before = (await t.get(`/custom-field/${id}`)).body;
      const [a] = before.options;
      const cases: [Record<string, unknown>, string][] = [
        [{ options: [{ value: 'b' }] }, '/defaultValue'],
        [{ options: [{ id: 'unknown', value: 'a' }] }, '/options/0/id'],
        [
          {
            options: [
              { id: a.id, value: 'a' },
              { id: a.id, value: 'c' },
            ],
          },
          '/options/1/id',
        ],
        [{ defaultValue: 'z' }, '/defaultValue'],
        [{ systemName: 'renamed' }, '/systemName'],
        [{ type: 'text' }, '/type'],
        [{ name: '' }, '/name'],
        [{ allowedProjectIds: ['NOPE7'] }, '/allowedProjectIds/0'],
      ];
      for (const [body, path] of cases) {
        const res = await t.patch(`/custom-field/${id}`, body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
      }
      expect((await t.get(`/custom-field/${id}`)).body).toEqual(before);
    });

    it('answers 404 for an unknown field and 403 to a user', async () => {
      expect((await t.patch('/custom-field/nope', { name: 'x' })).status).toBe(404);
      const id = await createField(t, { type: 'text', systemName: sys('guarded') });
      const user = await userWithKey(t, 'user');
      expect((await t.patch(`/custom-field/${id}`, { name: 'x' }, { key: user.key })).status).toBe(403);
    });
  });

  describe('POST /custom-field/order', () => {
    it('puts the fields in the given order', async () => {
      await createField(t, { type: 'text', systemName: sys('order_a') });
      await createField(t, { type: 'text', systemName: sys('order_b') });
      const ids: string[] = (await t.get('/custom-field')).body.customFields.map((f: { id: string }) => f.id);
      const reversed = [...ids].reverse();
      const res = await t.post('/custom-field/order', { ids: reversed });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Custom fields reordered' });
      const after = (await t.get('/custom-field')).body.customFields;
      expect(after.map((f: { id: string }) => f.id)).toEqual(reversed);
      expect(after.map((f: { pos: number }) => f.pos)).toEqual(reversed.map((_, i) => i));
    });

    it('answers 400 when ids miss a field, repeat one or name an unknown one; 403 to a user', async () => {
      await createField(t, { type: 'text', systemName: sys('order_c') });
      const ids: string[] = (await t.get('/custom-field')).body.customFields.map((f: { id: string }) => f.id);
      const missing = await t.post('/custom-field/order', { ids: ids.slice(1) });
      expect(missing.status).toBe(400);
      expect(missing.body.message).toContain(`missing ${ids[0]}`);
      const repeated = await t.post('/custom-field/order', { ids: [...ids, ids[0]] });
      expect(repeated.body.details).toEqual([
        { path: `/ids/${ids.length}`, message: `custom field "${ids[0]}" is listed twice` },
      ]);
      const unknown = await t.post('/custom-field/order', { ids: [...ids, 'nope'] });
      expect(unknown.status).toBe(400);
      const user = await userWithKey(t, 'user');
      expect((await t.post('/custom-field/order', { ids }, { key: user.key })).status).toBe(403);
      expect((await t.get('/custom-field')).body.customFields.map((f: { id: string }) => f.id)).toEqual(ids);
    });
  });

  describe('DELETE /custom-field/:id', () => {
    it('deletes a field (then 404), and answers 403 to a user', async () => {
      const id = await createField(t, { type: 'text', systemName: sys('doomed') });
      const user = await userWithKey(t, 'user');
      expect((await t.del(`/custom-field/${id}`, { key: user.key })).status).toBe(403);
      const res = await t.del(`/custom-field/${id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Custom field deleted' });
      expect((await t.get(`/custom-field/${id}`)).status).toBe(404);
      expect((await t.del(`/custom-field/${id}`)).status).toBe(404);
    });
  });

  describe('normalizeTcaseCustomFields', () => {
    // Fields scoped to their own project so they do not bind the other tests of this file.
    async function scopedFields() {
      const p = await createProject(t);
      const other = await createProject(t);
      const names = {
        env: sys('env'),
        owner: sys('owner'),
        auto: sys('auto'),
        notes: sys('notes'),
        must: sys('must'),
        off: sys('off'),
        foreign: sys('foreign'),
      };
      const scope = { allowedProjectIds: [p.id] };
      await createField(t, {
        type: 'dropdown',
        systemName: names.env,
        options: [{ value: 'dev' }, { value: 'prod' }],
        defaultValue: 'dev',
        ...scope,
      });
      await createField(t, { type: 'text', systemName: names.owner, ...scope });
      await createField(t, { type: 'checkbox', systemName: names.auto, ...scope });
      await createField(t, { type: 'richtext', systemName: names.notes, ...scope });
      await createField(t, { type: 'text', systemName: names.must, required: true, ...scope });
      await createField(t, { type: 'text', systemName: names.off, enabled: false, ...scope });
      await createField(t, { type: 'text', systemName: names.foreign, allowedProjectIds: [other.id] });
      return { p, names };
    }

    it('validates values, sanitises richtext and fills defaults with isDefault true on create', async () => {
      const { p, names } = await scopedFields();
      const fields = await listFieldsBySystemName(t.db, t.tenantId);
      const envOptions = fields.get(names.env)!.options!;
      const out = await normalizeTcaseCustomFields(t.db, t.tenantId, p.id, {
        [names.owner]: { isDefault: false, value: 'alice' },
        [names.auto]: { isDefault: false, value: 'true' },
        [names.notes]: { isDefault: false, value: '<b>ok</b><script>x</script>' },
        [names.must]: { isDefault: false, value: 'here' },
      });
      expect(out).toMatchObject({
        [names.env]: { value: 'dev', isDefault: true },
        [names.owner]: { value: 'alice', isDefault: false },
        [names.auto]: { value: 'true', isDefault: false },
        [names.notes]: { value: '<b>ok</b>', isDefault: false },
        [names.must]: { value: 'here', isDefault: false },
      });
      expect(out).not.toHaveProperty(names.off);
      expect(out).not.toHaveProperty(names.foreign);
      const byId = await normalizeTcaseCustomFields(t.db, t.tenantId, p.id, {
        [names.env]: { isDefault: false, value: envOptions[1].id },
        [names.must]: { isDefault: false, value: 'x' },
      });
      // Stored with the id of the field it was saved under.
      expect(byId[names.env]).toEqual({
        value: 'prod',
        isDefault: false,
        fieldId: fields.get(names.env)!.id,
      });
    });

    it('answers 400 naming the field for every bad input', async () => {
      const { p, names } = await scopedFields();
      const must = { [names.must]: { isDefault: false, value: 'x' } };
      const cases: [Record<string, { isDefault?: boolean; value?: string }>, string, string][] = [
        [{}, names.must, `custom field "${names.must}" is required`],
        [
          { [names.must]: { isDefault: false, value: '' } },
          names.must,
          `custom field "${names.must}" is required`,
        ],
        [{ ...must, nope_field: { value: 'x' } }, 'nope_field', 'unknown custom field "nope_field"'],
        [{ ...must, [names.off]: { value: 'x' } }, names.off, `custom field "${names.off}" is disabled`],
        [
          { ...must, [names.foreign]: { value: 'x' } },
          names.foreign,
          `custom field "${names.foreign}" is not available in this project`,
        ],
        [
          { ...must, [names.env]: { value: 'staging' } },
          names.env,
          `custom field "${names.env}" takes one of "dev", "prod"; got "staging"`,
        ],
        [
          { ...must, [names.auto]: { value: 'yes' } },
          names.auto,
          `custom field "${names.auto}" is a checkbox: its value is "true" or "false"`,
        ],
        [
          { ...must, [names.owner]: { isDefault: true } },
          names.owner,
          `custom field "${names.owner}" has no default value`,
        ],
        [
          { ...must, [names.owner]: { value: 'x'.repeat(1025) } },
          names.owner,
          `custom field "${names.owner}" takes at most 1024 characters`,
        ],
      ];
      for (const [input, field, message] of cases) {
        const err = await normalizeTcaseCustomFields(t.db, t.tenantId, p.id, input).catch((e) => e);
        expect(err, message).toMatchObject({
          code: 'VALIDATION_FAILED',
          message,
          details: [{ path: `/customFields/${field}`, message }],
        });
      }
    });

    it('on update changes only the named fields, keeps the rest, and refuses clearing a required one', async () => {
      const { p, names } = await scopedFields();
      const fields = await listFieldsBySystemName(t.db, t.tenantId);
      const idOf = (name: string) => fields.get(name)!.id;
      const previous = {
        [names.env]: { value: 'prod', isDefault: false },
        [names.must]: { value: 'kept', isDefault: false },
        [names.owner]: { value: 'bob', isDefault: false },
        gone_field: { value: 'stale', isDefault: false },
      };
      const out = await normalizeTcaseCustomFields(
        t.db,
        t.tenantId,
        p.id,
        { [names.owner]: { isDefault: false, value: '' }, [names.env]: { isDefault: true } },
        previous,
      );
      expect(out).toEqual({
        [names.env]: { value: 'dev', isDefault: true, fieldId: idOf(names.env) },
        [names.must]: { value: 'kept', isDefault: false, fieldId: idOf(names.must) },
      });
      await expect(
        normalizeTcaseCustomFields(t.db, t.tenantId, p.id, { [names.must]: { value: '' } }, previous),
      ).rejects.toMatchObject({ message: `custom field "${names.must}" is required` });
    });
  });

  describe('with test cases', () => {
    it('stores validated values with defaults on create and answers 400 naming the field through the API', async () => {
      const p = await createProject(t);
      const env = sys('tc_env');
      const must = sys('tc_must');
      await createField(t, {
        type: 'dropdown',
        systemName: env,
        options: [{ value: 'dev' }, { value: 'prod' }],
        defaultValue: 'dev',
        allowedProjectIds: [p.id],
      });
      await createField(t, { type: 'text', systemName: must, required: true, allowedProjectIds: [p.id] });
      const missing = await t.post(`/project/${p.code}/tcase`, {
        title: 'No required value',
        type: 'standalone',
        priority: 'low',
        folderId: (await t.post(`/project/${p.code}/tcase/folder/bulk`, { folders: [{ path: ['CF'] }] })).body
          .ids[0][0],
      });
      expect(missing.status).toBe(400);
      expect(missing.body.message).toBe(`custom field "${must}" is required`);
      const created = await createTcase(t, p, {
        customFields: { [must]: { isDefault: false, value: 'set' } },
      });
      expect((await getTcase(t, p, created.id)).customFields).toMatchObject({
        [env]: { value: 'dev', isDefault: true },
        [must]: { value: 'set', isDefault: false },
      });
      const bad = await t.patch(`/project/${p.code}/tcase/${created.id}`, {
        customFields: { [env]: { isDefault: false, value: 'qa' } },
      });
      expect(bad.status).toBe(400);
      expect(bad.body.message).toContain(`custom field "${env}" takes one of`);
    });
  });
});
