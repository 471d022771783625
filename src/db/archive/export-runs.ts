import { parseJson } from '../../lib/json.js';
import { RUN_COUNTERS } from './format.js';
import { Numbering, PAGE, num, projectRows, type Row, type ExportContext } from './numbering.js';

/* The export's execution records: plans, runs, results with their links and files, run cases, run logs. */

/** The project's `result_files` rows by result and position, a page at a time (keyset on both: no id column). */
async function* resultFileRows(db: ExportContext['db'], projectId: string) {
  let after = { result: 0, position: 0 };
  for (;;) {
    const rows = await db
      .selectFrom('result_files as rf')
      .innerJoin('runs as r', 'r.id', 'rf.run_id')
      .select(['rf.result_id', 'rf.position', 'rf.file_id'])
      .where('r.project_id', '=', projectId)
      .where((eb) =>
        eb.or([
          eb('rf.result_id', '>', after.result),
          eb.and([eb('rf.result_id', '=', after.result), eb('rf.position', '>', after.position)]),
        ]),
      )
      .orderBy('rf.result_id')
      .orderBy('rf.position')
      .limit(PAGE)
      .execute();
    yield* rows;
    if (rows.length < PAGE) return;
    const last = rows[rows.length - 1];
    after = { result: last.result_id, position: last.position };
  }
}

export async function* runRecords(ctx: ExportContext, seqOf: Map<string, number>): AsyncGenerator<string> {
  const { db, projectId, out, person, html, folders, tags, milestones, configurations } = ctx;
  // Plans, runs, results (with their links), run cases, run logs.
  const plans = new Numbering<number>();
  for (const p of await db
    .selectFrom('plans')
    .selectAll()
    .where('project_id', '=', projectId)
    .orderBy('id')
    .execute()) {
    plans.add(p.id);
    yield out({
      t: 'plan',
      title: p.title,
      description: html(p.description),
      milestone: milestones.of(p.milestone_id),
      createdBy: person(p.created_by),
      createdAt: p.created_at,
      updatedAt: p.updated_at,
    });
  }
  const runs = new Numbering<number>();
  for await (const r of projectRows(db, projectId, 'runs')) {
    runs.add(Number(r.id));
    const plansOfRun = parseJson<Row[]>(r.query_plans, []).map((p) => ({
      ...p,
      ...(Array.isArray(p.tcaseIds)
        ? { tcaseIds: (p.tcaseIds as string[]).map((id) => (seqOf.has(id) ? `#${seqOf.get(id)}` : id)) }
        : {}),
      ...(Array.isArray(p.folderIds)
        ? { folderIds: (p.folderIds as number[]).map((id) => folders.of(id)) }
        : {}),
      ...(Array.isArray(p.tagIds) ? { tagIds: (p.tagIds as number[]).map((id) => tags.of(id)) } : {}),
    }));
    yield out({
      t: 'run',
      type: r.type,
      title: r.title,
      description: html(r.description),
      plan: plans.of(r.plan_id),
      milestone: milestones.of(r.milestone_id),
      assignee: person(r.assignment_id),
      configuration: configurations.of(r.configuration_id),
      isAutomated: r.is_automated,
      timeSpent: num(r.time_spent),
      queryPlans: plansOfRun,
      createdBy: person(r.created_by),
      createdAt: r.created_at,
      updatedAt: r.updated_at,
      closedAt: r.closed_at,
      closedBy: person(r.closed_by),
      membershipVersion: Number(r.membership_version),
      counts: Object.fromEntries(RUN_COUNTERS.map((c) => [c, Number(r[`cnt_${c}`])])),
      dueAt: r.due_at ?? null,
    });
  }
  const results = new Numbering<number>();
  const byRun = { through: { parent: 'runs', column: 'run_id' } } as const;
  for await (const x of projectRows(db, projectId, 'results', byRun)) {
    results.add(Number(x.id));
    yield out({
      t: 'result',
      run: runs.of(Number(x.run_id)),
      tcase: seqOf.get(x.tcase_id),
      tcaseVersion: x.tcase_version,
      status: x.status,
      comment: html(x.comment),
      timeTaken: num(x.time_taken),
      author: person(x.author_id),
      internal: x.internal,
      createdAt: x.created_at,
    });
  }
  for await (const l of projectRows(db, projectId, 'result_links', byRun))
    yield out({
      t: 'resultLink',
      result: results.of(Number(l.result_id)),
      url: l.url,
      text: l.text,
      meta: parseJson(l.meta, {}),
      commentStatus: l.comment_status ?? null,
      commentId: l.comment_id ?? null,
      commentError: l.comment_error ?? null,
      commentAt: l.comment_at ?? null,
    });
  for await (const f of resultFileRows(db, projectId))
    yield out({
      t: 'resultFile',
      result: results.of(f.result_id),
      file: ctx.files.of(f.file_id),
      position: f.position,
    });
  for (let n = 1, ids = runs.ids(); n <= ids.length; n++) {
    const runId = ids[n - 1];
    const members = await db.selectFrom('run_tcases').selectAll().where('run_id', '=', runId).execute();
    members.sort((a, b) => seqOf.get(a.tcase_id)! - seqOf.get(b.tcase_id)!);
    for (const m of members)
      yield out({
        t: 'runTcase',
        run: n,
        tcase: seqOf.get(m.tcase_id),
        status: m.status,
        isAutomated: m.is_automated,
        version: num(m.version),
        inRun: m.in_run,
        frozenFolder: folders.of(m.frozen_folder_id),
        frozenPos: num(m.frozen_pos),
        latestResult: results.of(num(m.latest_result_id)),
        updatedAt: m.updated_at,
        dueAt: m.due_at ?? null,
      });
    const logs = await db
      .selectFrom('run_logs')
      .selectAll()
      .where('run_id', '=', runId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    for (const g of logs)
      yield out({
        t: 'runLog',
        run: n,
        comment: html(g.comment),
        author: person(g.author_id),
        createdAt: g.created_at,
      });
  }
  const known = await db
    .selectFrom('known_failures')
    .selectAll()
    .where('project_id', '=', projectId)
    .orderBy('signature')
    .execute();
  for (const k of known)
    yield out({
      t: 'knownFailure',
      signature: k.signature,
      label: k.label,
      run: runs.of(num(k.run_id)),
      markedBy: person(k.marked_by),
      note: k.note,
      markedAt: k.marked_at,
    });
}
