import { expect, it } from 'vitest';
import { describeEachDb, type TestEnv } from '../../../test/helpers/test-app.js';
import { createProject } from '../../../test/helpers/factories.js';
import { createTcase, getTcase } from '../../../test/helpers/tcase-factories.js';
import { up as removeStaleValues } from '../../db/migrations/0015_stale_custom_values.js';

/*
 * Deleting a custom field removes its values from every version of every case (the audited exception to D15), and
 * a value is only ever shown under the field it was saved under: a text saved under a deleted text field never
 * comes back as the value of a rich-text field that later takes the same system name.
 */

let n = 0;
const sys = (base: string) => `${base}_${Date.now().toString(36)}_${n++}`;
const PAYLOAD = '<img src=x onerror=alert(1)>';

async function createField(t: TestEnv, type: string, systemName: string): Promise<string> {
  const res = await t.post('/custom-field', { type, systemName, name: `Field ${systemName}` });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

/** What every version of the case stores, in version order. */
async function storedValues(t: TestEnv, tcaseId: string): Promise<Record<string, { value: string }>[]> {
  const rows = await t.db
    .selectFrom('tcase_versions')
    .select(['custom_fields'])
    .where('tcase_id', '=', tcaseId)
    .orderBy('version')
    .execute();
  return rows.map((r) => JSON.parse(r.custom_fields));
}

async function auditEvents(t: TestEnv, action: string) {
  const res = await t.get('/audit-logs', { query: { count: 1000 } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (res.body.events as { action: string; meta?: Record<string, unknown> }[]).filter(
    (e) => e.action === action,
  );
}

const patch = async (t: TestEnv, code: string, id: string, body: Record<string, unknown>) => {
  const res = await t.patch(`/project/${code}/tcase/${id}`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describeEachDb('deleting a custom field', (t) => {
  it('removes its values from every version of every case, keeps the others, and audits how many lost one', async () => {
    const p = await createProject(t);
    const gone = sys('gone');
    const kept = sys('kept');
    const goneId = await createField(t, 'text', gone);
    await createField(t, 'text', kept);
    const one = await createTcase(t, p, {
      customFields: { [gone]: { value: 'one' }, [kept]: { value: 'k' } },
    });
    await patch(t, p.code, one.id, { title: 'Second version' });
    await patch(t, p.code, one.id, { customFields: { [gone]: { value: 'two' } } });
    const two = await createTcase(t, p, { customFields: { [gone]: { value: 'x' } } });
    const three = await createTcase(t, p, { customFields: { [kept]: { value: 'y' } } });
    expect((await storedValues(t, one.id)).map((v) => v[gone]?.value)).toEqual(['one', 'one', 'two']);
    // What the confirmation names before the delete: the same counts the audit event records after it.
    const usage = await t.get(`/custom-field/${goneId}/usage`);
    expect(usage.status).toBe(200);
    expect(usage.body).toEqual({ cases: 2, versions: 4 });

    const res = await t.del(`/custom-field/${goneId}`);
    expect(res.status).toBe(200);

    expect((await storedValues(t, one.id)).map((v) => Object.keys(v))).toEqual([[kept], [kept], [kept]]);
    expect(await storedValues(t, two.id)).toEqual([{}]);
    expect((await storedValues(t, three.id))[0][kept].value).toBe('y');
    const index = await t.db
      .selectFrom('tcase_custom_values')
      .select('tcase_id')
      .where('field_id', '=', goneId)
      .execute();
    expect(index).toEqual([]);
    expect((await t.get(`/project/${p.code}/tcase/${one.id}/version/1`)).body.customFields).toEqual({
      [kept]: { value: 'k', isDefault: false },
    });
    const events = await auditEvents(t, 'custom_field.deleted');
    expect(events.map((e) => e.meta).filter((m) => m?.custom_field_id === goneId)).toEqual([
      {
        custom_field_id: goneId,
        custom_field_system_name: gone,
        custom_field_type: 'text',
        cases_changed: 2,
        versions_changed: 4,
      },
    ]);
    const after = await t.get(`/custom-field/${goneId}/usage`);
    expect(after.status).toBe(404);
    expect(after.body.code).toBe('NOT_FOUND');
  });

  it('counts no case for a field nobody filled in', async () => {
    const id = await createField(t, 'checkbox', sys('unused'));
    expect((await t.get(`/custom-field/${id}/usage`)).body).toEqual({ cases: 0, versions: 0 });
  });

  it('never shows a text saved under a deleted text field as the value of a later rich-text field of its name', async () => {
    const p = await createProject(t);
    const name = sys('notes');
    const textId = await createField(t, 'text', name);
    const tcase = await createTcase(t, p, { customFields: { [name]: { value: PAYLOAD } } });
    expect((await getTcase(t, p, tcase.id)).customFields[name]).toEqual({ value: PAYLOAD, isDefault: false });
    expect((await t.del(`/custom-field/${textId}`)).status).toBe(200);
    await createField(t, 'richtext', name);
    expect((await getTcase(t, p, tcase.id)).customFields).toEqual({});
    expect((await t.get(`/project/${p.code}/tcase/${tcase.id}/version/1`)).body.customFields).toEqual({});
    const listed = await t.get(`/project/${p.code}/tcase`, { query: { include: 'customFields' } });
    expect(listed.body.data.map((c: { customFields: object }) => c.customFields)).toEqual([{}]);
  });
});

describeEachDb('a stored custom-field value belongs to the field it was saved under', (t) => {
  it('is neither shown, filtered on nor carried into the index under another field of the same name', async () => {
    const p = await createProject(t);
    const name = sys('env');
    await createField(t, 'text', name);
    const tcase = await createTcase(t, p, { customFields: { [name]: { value: 'prod' } } });
    // What a write racing the field's deletion could leave: the value of an earlier field with this name.
    const [row] = await t.db
      .selectFrom('tcase_versions')
      .select(['id', 'custom_fields'])
      .where('tcase_id', '=', tcase.id)
      .execute();
    const values = JSON.parse(row.custom_fields);
    values[name].fieldId = 'an-earlier-field';
    await t.db
      .updateTable('tcase_versions')
      .set({ custom_fields: JSON.stringify(values) })
      .where('id', '=', row.id)
      .execute();
    await patch(t, p.code, tcase.id, { title: 'Renamed, values carried' });

    expect((await getTcase(t, p, tcase.id)).customFields).toEqual({});
    const filtered = await t.get(`/project/${p.code}/tcase`, { query: { [`cf_${name}`]: 'prod' } });
    expect(filtered.body.data).toEqual([]);
  });
});

describeEachDb('migration 0015: values left behind by fields deleted before it', (t) => {
  /** The old deletion: the field row went, its values stayed in the versions (stored without a field id). */
  async function deleteTheOldWay(fieldId: string) {
    await t.db.deleteFrom('custom_fields').where('id', '=', fieldId).execute();
  }
  async function stripFieldIds(tcaseId: string) {
    for (const row of await t.db
      .selectFrom('tcase_versions')
      .select(['id', 'custom_fields'])
      .where('tcase_id', '=', tcaseId)
      .execute()) {
      const values = JSON.parse(row.custom_fields) as Record<string, { fieldId?: string }>;
      for (const v of Object.values(values)) delete v.fieldId;
      await t.db
        .updateTable('tcase_versions')
        .set({ custom_fields: JSON.stringify(values) })
        .where('id', '=', row.id)
        .execute();
    }
  }

  it('removes them, also where a later version carried them past a new field of the same name, and keeps the rest', async () => {
    const p = await createProject(t);
    const name = sys('notes');
    const other = sys('other');
    await createField(t, 'text', other);
    const oldId = await createField(t, 'text', name);
    const stale = await createTcase(t, p, {
      customFields: { [name]: { value: PAYLOAD }, [other]: { value: 'stays' } },
    });
    await stripFieldIds(stale.id);
    await deleteTheOldWay(oldId);
    await sleep(5);
    await createField(t, 'richtext', name);
    await sleep(5);
    // Carried forward unchanged into a version made after the new field.
    await patch(t, p.code, stale.id, { title: 'Edited after the new field' });
    const fresh = await createTcase(t, p, { customFields: { [name]: { value: '<p>rich</p>' } } });
    await stripFieldIds(stale.id);
    await stripFieldIds(fresh.id);
    // Before the migration the stale text shows as the rich-text field's value: the bug.
    expect((await getTcase(t, p, stale.id)).customFields[name]?.value).toBe(PAYLOAD);

    await removeStaleValues(t.db);

    expect(await storedValues(t, stale.id)).toEqual([
      { [other]: { value: 'stays', isDefault: false } },
      { [other]: { value: 'stays', isDefault: false } },
    ]);
    expect((await getTcase(t, p, stale.id)).customFields).toEqual({
      [other]: { value: 'stays', isDefault: false },
    });
    expect((await getTcase(t, p, fresh.id)).customFields[name]).toEqual({
      value: '<p>rich</p>',
      isDefault: false,
    });
    const filtered = await t.get(`/project/${p.code}/tcase`, { query: { [`cf_${name}`]: PAYLOAD } });
    expect(filtered.body.data).toEqual([]);
    const events = await auditEvents(t, 'custom_field.stale_values_removed');
    expect(events.map((e) => e.meta)).toEqual([{ cases_changed: 1, versions_changed: 2 }]);
  });
});
