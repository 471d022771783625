import type { Kysely } from 'kysely';

// Custom-field values left behind by deleted fields. Before this, deleting a field left its values in
// every version, and a later field with the same system name showed them as its own: a text saved under a text
// field became live rich text. Deletion now removes a field's values and new values carry the id of their field;
// this removes the values already left behind, so that a value without a field id always belongs to the current
// field of its name. A value belongs to the current field when it was last set at or after that field was made:
// values were carried unchanged from version to version (also across a deletion), so the version where it took
// its present form is what counts. Each tenant that lost values gets one system audit event. Versions never
// change otherwise (D15). Frozen once shipped: never edit a migration that has landed.

interface StoredValue {
  value: string;
  isDefault: boolean;
}

interface VersionRow {
  id: number;
  tenant_id: string;
  tcase_id: string;
  created_at: string;
  custom_fields: string;
}

/** Test cases whose versions are read and rewritten at a time. */
const CASES_PER_BATCH = 200;

function parse(text: string): Record<string, StoredValue> {
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, StoredValue>)
      : {};
  } catch {
    return {};
  }
}

export async function up(db: Kysely<any>): Promise<void> {
  const fields = new Map<string, { id: string; createdAt: string }>();
  for (const f of await db
    .selectFrom('custom_fields')
    .select(['id', 'tenant_id', 'system_name', 'created_at'])
    .execute())
    fields.set(`${f.tenant_id}\u0000${f.system_name}`, { id: f.id, createdAt: f.created_at });
  const lost = new Map<string, { cases: number; versions: number }>();
  let after = '';
  for (;;) {
    const cases = (
      await db
        .selectFrom('tcases')
        .select(['id', 'tenant_id', 'version'])
        .where('id', '>', after)
        .orderBy('id')
        .limit(CASES_PER_BATCH)
        .execute()
    ).map((c) => ({ id: c.id as string, tenantId: c.tenant_id as string, latest: Number(c.version) }));
    if (cases.length === 0) break;
    after = cases[cases.length - 1].id;
    const rows: (VersionRow & { version: number })[] = await db
      .selectFrom('tcase_versions')
      .select(['id', 'tenant_id', 'tcase_id', 'version', 'created_at', 'custom_fields'])
      .where(
        'tcase_id',
        'in',
        cases.map((c) => c.id),
      )
      .where('custom_fields', '<>', '{}')
      .orderBy('tcase_id')
      .orderBy('version')
      .execute();
    const latestOf = new Map(cases.map((c) => [c.id, c.latest]));
    // Per case and system name: the value of the previous version read, and when it took that form.
    const since = new Map<string, { text: string; at: string; version: number }>();
    const staleLatest: { tcaseId: string; fieldId: string }[] = [];
    const touched = new Set<string>();
    for (const row of rows) {
      const values = parse(row.custom_fields);
      let changed = false;
      for (const [name, v] of Object.entries(values)) {
        const key = `${row.tcase_id}\u0000${name}`;
        const text = JSON.stringify([v?.value, v?.isDefault]);
        const prev = since.get(key);
        // Carried from the version just before, unchanged: it took this form when that one did.
        const at = prev && prev.text === text && prev.version === row.version - 1 ? prev.at : row.created_at;
        since.set(key, { text, at, version: row.version });
        const field = fields.get(`${row.tenant_id}\u0000${name}`);
        if (field && at >= field.createdAt) continue;
        delete values[name];
        changed = true;
        if (field && row.version === latestOf.get(row.tcase_id))
          staleLatest.push({ tcaseId: row.tcase_id, fieldId: field.id });
      }
      if (!changed) continue;
      await db
        .updateTable('tcase_versions')
        .set({ custom_fields: JSON.stringify(values) })
        .where('id', '=', row.id)
        .execute();
      const count = lost.get(row.tenant_id) ?? { cases: 0, versions: 0 };
      count.versions += 1;
      if (!touched.has(row.tcase_id)) count.cases += 1;
      touched.add(row.tcase_id);
      lost.set(row.tenant_id, count);
    }
    // The `cf_` filter rows of the latest versions were written under the current field's id.
    for (const s of staleLatest) {
      await db
        .deleteFrom('tcase_custom_values')
        .where('tcase_id', '=', s.tcaseId)
        .where('field_id', '=', s.fieldId)
        .execute();
    }
  }
  const at = new Date().toISOString();
  for (const [tenantId, count] of lost) {
    await db
      .insertInto('audit_events')
      .values({
        tenant_id: tenantId,
        user_id: null,
        action: 'custom_field.stale_values_removed',
        ip: '',
        user_agent: '',
        meta: JSON.stringify({ cases_changed: count.cases, versions_changed: count.versions }),
        created_at: at,
      })
      .execute();
  }
}

/** What was removed was never meant to be shown; nothing to put back. */
export async function down(): Promise<void> {}
