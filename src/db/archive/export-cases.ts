import { parseJson } from '../../lib/json.js';
import { Numbering, pages, PAGE, projectRows, type Row, type ExportContext } from './numbering.js';
import { caseLinks } from './export-parts.js';

/* The export's test cases: every case by seq, its steps and preconditions, every version, the latest's rows. */

/**
 * A version's custom values without the tenant's field ids: a value saved under a field since deleted (its id is
 * not the current field's of that name) is marked `stale`, so it stays hidden after an import as it is here.
 */
function archivedValues(stored: Record<string, Row>, fieldNames: Map<string, string>): Record<string, Row> {
  const out: Record<string, Row> = {};
  for (const [name, value] of Object.entries(stored)) {
    const { fieldId, ...rest } = value;
    out[name] =
      fieldId === undefined || fieldNames.get(String(fieldId)) === name ? rest : { ...rest, stale: true };
  }
  return out;
}

/** The case records; answers through `seqOf` the seq of every case id (the runs' records name cases by seq). */
export async function* caseRecords(ctx: ExportContext, seqOf: Map<string, number>): AsyncGenerator<string> {
  const {
    db,
    projectId,
    out,
    person,
    html,
    folders,
    tags,
    requirements,
    sharedSteps,
    sharedPreconditions,
    fieldNames,
  } = ctx;
  const files = ctx.files;
  // Test cases by seq; a case is named by its seq everywhere in the archive.
  const seqs = pages(
    (after) =>
      db
        .selectFrom('tcases')
        .select(['id', 'seq'])
        .where('project_id', '=', projectId)
        .where('seq', '>', after)
        .orderBy('seq')
        .limit(PAGE)
        .execute(),
    (c) => c.seq,
  );
  for await (const c of seqs) seqOf.set(c.id, Number(c.seq));
  for await (const c of projectRows(db, projectId, 'tcases', { key: 'seq' }))
    yield out({
      t: 'tcase',
      seq: Number(c.seq),
      legacyId: c.legacy_id,
      type: c.type,
      folder: folders.of(c.folder_id),
      pos: c.pos,
      isDraft: c.is_draft,
      template: c.template_id === null ? null : (seqOf.get(c.template_id) ?? null),
      version: c.version,
      title: c.title,
      priority: c.priority,
      author: person(c.author_id),
      createdAt: c.created_at,
      updatedAt: c.updated_at,
      deletedAt: c.deleted_at,
    });
  const steps = new Numbering<number>();
  const byCase = { through: { parent: 'tcases', column: 'tcase_id' } } as const;
  for await (const s of projectRows(db, projectId, 'steps', byCase)) {
    steps.add(Number(s.id));
    yield out({
      t: 'step',
      tcase: seqOf.get(s.tcase_id),
      description: html(s.description),
      expected: html(s.expected),
      createdAt: s.created_at,
    });
  }
  const preconditions = new Numbering<number>();
  for await (const p of projectRows(db, projectId, 'preconditions')) {
    preconditions.add(Number(p.id));
    yield out({
      t: 'precondition',
      tcase: seqOf.get(p.tcase_id),
      text: html(p.text),
      createdAt: p.created_at,
    });
  }
  const stepRef = (r: { type: string; id: number }) =>
    r.type === 'shared' ? { type: 'shared', id: sharedSteps.of(r.id) } : { type: r.type, id: steps.of(r.id) };
  const preconditionRef = (r: { type: string; id: number } | null) =>
    !r || typeof r !== 'object'
      ? r
      : r.type === 'shared'
        ? { type: 'shared', id: sharedPreconditions.of(r.id) }
        : { type: r.type, id: preconditions.of(r.id) };
  for await (const v of projectRows(db, projectId, 'tcase_versions', byCase)) {
    yield out({
      t: 'tcaseVersion',
      tcase: seqOf.get(v.tcase_id),
      version: v.version,
      title: v.title,
      priority: v.priority,
      comment: html(v.comment),
      isEmpty: v.is_empty,
      precondition: preconditionRef(parseJson(v.precondition, null)) ?? {},
      steps: parseJson<{ type: string; id: number }[]>(v.steps, []).map(stepRef),
      tags: parseJson<number[]>(v.tag_ids, []).map((id) => tags.of(id)),
      requirements: parseJson<string[]>(v.requirement_ids, []).map((id) => requirements.of(id)),
      links: parseJson(v.links, []),
      customFields: archivedValues(parseJson(v.custom_fields, {}), fieldNames),
      files: parseJson<string[]>(v.file_ids, []).map((id) => files.of(id)),
      templateData: parseJson(v.template_data, {}),
      author: person(v.author_id),
      createdAt: v.created_at,
    });
  }
  yield* caseLinks(
    db,
    projectId,
    [
      {
        table: 'tcase_tags',
        columns: ['tag_id'],
        key: (r) => tags.of(Number(r.tag_id)) ?? 0,
        record: (r, seq) => ({ t: 'tcaseTag', tcase: seq, tag: tags.of(Number(r.tag_id)) }),
      },
      {
        table: 'tcase_custom_values',
        columns: ['field_id', 'value'],
        key: (r) => fieldNames.get(String(r.field_id)) ?? '',
        // Values of fields the archive does not hold (no longer the project's) stay out.
        record: (r, seq) =>
          fieldNames.has(String(r.field_id))
            ? { t: 'tcaseCustomValue', tcase: seq, field: fieldNames.get(String(r.field_id)), value: r.value }
            : undefined,
      },
      {
        table: 'tcase_requirements',
        columns: ['requirement_id'],
        key: (r) => requirements.of(String(r.requirement_id)) ?? 0,
        record: (r, seq) => ({
          t: 'tcaseRequirement',
          tcase: seq,
          requirement: requirements.of(String(r.requirement_id)),
        }),
      },
      {
        table: 'tcase_shared_steps',
        columns: ['shared_step_id'],
        key: (r) => sharedSteps.of(Number(r.shared_step_id)) ?? 0,
        record: (r, seq) => ({
          t: 'tcaseSharedStep',
          tcase: seq,
          sharedStep: sharedSteps.of(Number(r.shared_step_id)),
        }),
      },
      {
        table: 'tcase_shared_preconditions',
        columns: ['shared_precondition_id'],
        key: (r) => sharedPreconditions.of(Number(r.shared_precondition_id)) ?? 0,
        record: (r, seq) => ({
          t: 'tcaseSharedPrecondition',
          tcase: seq,
          sharedPrecondition: sharedPreconditions.of(Number(r.shared_precondition_id)),
        }),
      },
    ],
    out,
  );
}
