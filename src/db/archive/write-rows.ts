import { newId, newOrderedId, newTcaseId } from '../../lib/ids.js';
import { RUN_COUNTERS, type ArchiveRecord } from './format.js';
import { ArchiveError } from './read.js';

/*
 * The rows of the archive's plain records: each kind's table and row, its archive numbers mapped to the new ids
 * handed out so far. Kinds needing more than a mapping (people, project, fields, statuses, files) are write.ts's.
 */

export type Row = Record<string, unknown>;
type R = ArchiveRecord & Record<string, never>;

/** New ids in archive-number order, per kind. */
export class Ids {
  folder: number[] = [];
  folderParent: number[] = [];
  tag: number[] = [];
  milestone: number[] = [];
  configuration: string[] = [];
  requirement: string[] = [];
  file: string[] = [];
  sharedStep: number[] = [];
  sharedPrecondition: number[] = [];
  step: number[] = [];
  precondition: number[] = [];
  plan: number[] = [];
  run: number[] = [];
  result: number[] = [];
  /** The run of each result (result_links.run_id). */
  resultRun: number[] = [];
  /** Test cases by seq. */
  tcase = new Map<number, string>();
  /** Filled cases and the seq of their template, set once every case is there. */
  templates: [string, number][] = [];
  /** Custom fields: system name → id here. */
  fields = new Map<string, string>();
}

/** What the row builders are handed. */
export interface RowContext {
  tenantId: string;
  projectId: string;
  ids: Ids;
  /** The user id of an archived e-mail (null for none). */
  person: (email: unknown) => number | null;
  /** Archived HTML with its file references as this service's addresses. */
  html: (text: unknown) => string;
  /** The importer: the author of a case or version whose person the archive leaves out. */
  userId: number | null;
}

/** Archive number (1-based) → new id. */
export const at = <T>(list: T[], n: unknown, what: string): T => {
  const v = typeof n === 'number' ? list[n - 1] : undefined;
  if (v === undefined)
    throw new ArchiveError(`a record names ${what} ${String(n)}, which the archive does not hold`);
  return v;
};
const opt = <T>(list: T[], n: unknown, what: string): T | null =>
  n === null || n === undefined ? null : at(list, n, what);

function tcaseOf(c: RowContext, seq: unknown): string {
  const id = c.ids.tcase.get(seq as number);
  if (!id)
    throw new ArchiveError(`a record names test case seq ${String(seq)}, which the archive does not hold`);
  return id;
}

/** A table, its row, and (for tables with generated ids) the list the new ids go to. */
export interface PlainRow {
  table: string;
  row: Row;
  ids?: number[];
}

type Builder = (r: R, c: RowContext) => PlainRow;

const BUILDERS: Record<string, Builder> = {
  member: (r, c) => ({
    table: 'project_members',
    row: {
      tenant_id: c.tenantId,
      project_id: c.projectId,
      user_id: c.person(r.user),
      created_at: r.createdAt,
    },
  }),
  folder: (r, c) => {
    c.ids.folderParent.push(r.parent as number);
    return {
      table: 'folders',
      row: {
        tenant_id: c.tenantId,
        project_id: c.projectId,
        // Unique among siblings meanwhile; the real parent is set once every folder is there (write.ts).
        parent_id: -(1_000_000_000 + c.ids.folderParent.length),
        title: r.title,
        comment: r.comment,
        pos: r.pos,
        created_at: r.createdAt,
        updated_at: r.updatedAt,
        deleted_at: r.deletedAt,
      },
      ids: c.ids.folder,
    };
  },
  tag: (r, c) => ({
    table: 'tags',
    row: { tenant_id: c.tenantId, project_id: c.projectId, title: r.title, created_at: r.createdAt },
    ids: c.ids.tag,
  }),
  milestone: (r, c) => ({
    table: 'milestones',
    row: {
      tenant_id: c.tenantId,
      project_id: c.projectId,
      title: r.title,
      created_at: r.createdAt,
      updated_at: r.updatedAt,
      archived_at: r.archivedAt,
    },
    ids: c.ids.milestone,
  }),
  configuration: (r, c) => {
    const id = newOrderedId();
    c.ids.configuration.push(id);
    return {
      table: 'configurations',
      row: {
        id,
        tenant_id: c.tenantId,
        project_id: c.projectId,
        title: r.title,
        created_at: r.createdAt,
        updated_at: r.updatedAt,
      },
    };
  },
  requirement: (r, c) => {
    const id = newId();
    c.ids.requirement.push(id);
    return {
      table: 'requirements',
      row: {
        id,
        tenant_id: c.tenantId,
        project_id: c.projectId,
        text: r.text,
        url: r.url,
        created_at: r.createdAt,
      },
    };
  },
  sharedStep: (r, c) => ({
    table: 'shared_steps',
    row: {
      tenant_id: c.tenantId,
      project_id: c.projectId,
      title: r.title,
      version: r.version,
      created_at: r.createdAt,
      updated_at: r.updatedAt,
      deleted_at: r.deletedAt,
    },
    ids: c.ids.sharedStep,
  }),
  sharedStepVersion: (r, c) => ({
    table: 'shared_step_versions',
    row: {
      tenant_id: c.tenantId,
      shared_step_id: at(c.ids.sharedStep, r.sharedStep, 'shared step'),
      version: r.version,
      title: r.title,
      created_at: r.createdAt,
    },
  }),
  sharedSubStep: (r, c) => ({
    table: 'shared_sub_steps',
    row: {
      tenant_id: c.tenantId,
      shared_step_id: at(c.ids.sharedStep, r.sharedStep, 'shared step'),
      version: r.version,
      pos: r.pos,
      description: c.html(r.description),
      expected: c.html(r.expected),
    },
  }),
  sharedPrecondition: (r, c) => ({
    table: 'shared_preconditions',
    row: {
      tenant_id: c.tenantId,
      project_id: c.projectId,
      title: r.title,
      version: r.version,
      created_at: r.createdAt,
      updated_at: r.updatedAt,
      deleted_at: r.deletedAt,
    },
    ids: c.ids.sharedPrecondition,
  }),
  sharedPreconditionVersion: (r, c) => ({
    table: 'shared_precondition_versions',
    row: {
      tenant_id: c.tenantId,
      shared_precondition_id: at(c.ids.sharedPrecondition, r.sharedPrecondition, 'shared precondition'),
      version: r.version,
      title: r.title,
      text: c.html(r.text),
      created_at: r.createdAt,
    },
  }),
  tcase: (r, c) => {
    const id = newTcaseId();
    c.ids.tcase.set(r.seq as number, id);
    if (r.template !== null) c.ids.templates.push([id, r.template as number]);
    return {
      table: 'tcases',
      row: {
        id,
        tenant_id: c.tenantId,
        project_id: c.projectId,
        seq: r.seq,
        legacy_id: r.legacyId,
        type: r.type,
        folder_id: at(c.ids.folder, r.folder, 'folder'),
        pos: r.pos,
        is_draft: r.isDraft,
        template_id: null,
        version: r.version,
        title: r.title,
        priority: r.priority,
        author_id: c.person(r.author) ?? c.userId,
        created_at: r.createdAt,
        updated_at: r.updatedAt,
        deleted_at: r.deletedAt,
      },
    };
  },
  step: (r, c) => ({
    table: 'steps',
    row: {
      tenant_id: c.tenantId,
      tcase_id: tcaseOf(c, r.tcase),
      description: c.html(r.description),
      expected: c.html(r.expected),
      created_at: r.createdAt,
    },
    ids: c.ids.step,
  }),
  precondition: (r, c) => ({
    table: 'preconditions',
    row: {
      tenant_id: c.tenantId,
      project_id: c.projectId,
      tcase_id: tcaseOf(c, r.tcase),
      text: c.html(r.text),
      created_at: r.createdAt,
    },
    ids: c.ids.precondition,
  }),
  tcaseVersion: (r, c) => ({ table: 'tcase_versions', row: versionRow(r, c) }),
  tcaseTag: (r, c) => ({
    table: 'tcase_tags',
    row: { tenant_id: c.tenantId, tcase_id: tcaseOf(c, r.tcase), tag_id: at(c.ids.tag, r.tag, 'tag') },
  }),
  tcaseCustomValue: (r, c) => {
    const field = c.ids.fields.get(String(r.field));
    if (!field)
      throw new ArchiveError(
        `a custom value names field "${String(r.field)}", which the archive does not define`,
      );
    return {
      table: 'tcase_custom_values',
      row: { tenant_id: c.tenantId, tcase_id: tcaseOf(c, r.tcase), field_id: field, value: r.value },
    };
  },
  tcaseRequirement: (r, c) => ({
    table: 'tcase_requirements',
    row: {
      tenant_id: c.tenantId,
      tcase_id: tcaseOf(c, r.tcase),
      requirement_id: at(c.ids.requirement, r.requirement, 'requirement'),
    },
  }),
  tcaseSharedStep: (r, c) => ({
    table: 'tcase_shared_steps',
    row: {
      tenant_id: c.tenantId,
      tcase_id: tcaseOf(c, r.tcase),
      shared_step_id: at(c.ids.sharedStep, r.sharedStep, 'shared step'),
    },
  }),
  tcaseSharedPrecondition: (r, c) => ({
    table: 'tcase_shared_preconditions',
    row: {
      tenant_id: c.tenantId,
      tcase_id: tcaseOf(c, r.tcase),
      shared_precondition_id: at(c.ids.sharedPrecondition, r.sharedPrecondition, 'shared precondition'),
    },
  }),
  plan: (r, c) => {
    const milestone = opt(c.ids.milestone, r.milestone, 'milestone');
    return {
      table: 'plans',
      row: {
        tenant_id: c.tenantId,
        project_id: c.projectId,
        title: r.title,
        description: c.html(r.description),
        milestone_id: milestone,
        milestone_key: milestone ?? 0,
        created_by: c.person(r.createdBy),
        created_at: r.createdAt,
        updated_at: r.updatedAt,
      },
      ids: c.ids.plan,
    };
  },
  run: (r, c) => ({ table: 'runs', row: runRow(r, c), ids: c.ids.run }),
  result: (r, c) => {
    const run = at(c.ids.run, r.run, 'run');
    c.ids.resultRun.push(run);
    return {
      table: 'results',
      row: {
        tenant_id: c.tenantId,
        run_id: run,
        tcase_id: tcaseOf(c, r.tcase),
        tcase_version: r.tcaseVersion,
        status: r.status,
        comment: c.html(r.comment),
        time_taken: r.timeTaken,
        author_id: c.person(r.author),
        // The key a result came through is a credential's id: never archived.
        api_key_id: null,
        internal: r.internal,
        created_at: r.createdAt,
      },
      ids: c.ids.result,
    };
  },
  resultLink: (r, c) => ({
    table: 'result_links',
    row: {
      tenant_id: c.tenantId,
      result_id: at(c.ids.result, r.result, 'result'),
      run_id: at(c.ids.resultRun, r.result, 'result'),
      // The tracker connection stays behind (its credentials are never archived): a plain link here.
      integration_id: null,
      url: r.url,
      text: r.text,
      meta: JSON.stringify(r.meta),
      comment_status: r.commentStatus,
      comment_id: r.commentId,
      comment_error: r.commentError,
      comment_at: r.commentAt,
    },
  }),
  runTcase: (r, c) => ({
    table: 'run_tcases',
    row: {
      tenant_id: c.tenantId,
      run_id: at(c.ids.run, r.run, 'run'),
      tcase_id: tcaseOf(c, r.tcase),
      status: r.status,
      is_automated: r.isAutomated,
      version: r.version,
      in_run: r.inRun,
      frozen_folder_id: opt(c.ids.folder, r.frozenFolder, 'folder'),
      frozen_pos: r.frozenPos,
      latest_result_id: opt(c.ids.result, r.latestResult, 'result'),
      updated_at: r.updatedAt,
      due_at: r.dueAt ?? null,
    },
  }),
  runLog: (r, c) => ({
    table: 'run_logs',
    row: {
      id: newOrderedId(),
      tenant_id: c.tenantId,
      run_id: at(c.ids.run, r.run, 'run'),
      comment: c.html(r.comment),
      author_id: c.person(r.author),
      created_at: r.createdAt,
    },
  }),
  knownFailure: (r, c) => ({
    table: 'known_failures',
    row: {
      tenant_id: c.tenantId,
      project_id: c.projectId,
      signature: r.signature,
      label: r.label,
      run_id: opt(c.ids.run, r.run, 'run'),
      marked_by: c.person(r.markedBy),
      note: r.note,
      marked_at: r.markedAt,
    },
  }),
};

/** The row of a plain record, or undefined for the kinds write.ts writes itself. */
export function plainRow(record: ArchiveRecord, c: RowContext): PlainRow | undefined {
  const build = BUILDERS[record.t];
  return build ? build(record as R, c) : undefined;
}

function versionRow(r: R, c: RowContext): Row {
  const { ids } = c;
  // Values under this service's field of the same name; a stale one under no field (hidden, as in the source).
  const values: Record<string, Row> = {};
  for (const [name, value] of Object.entries(r.customFields as unknown as Record<string, Row>)) {
    const { stale, ...rest } = value;
    values[name] = stale
      ? { ...rest, fieldId: '' }
      : ids.fields.has(name)
        ? { ...rest, fieldId: ids.fields.get(name) }
        : rest;
  }
  type Ref = { type?: string; id?: number };
  const pre = r.precondition as Ref;
  const precondition =
    pre && typeof pre === 'object' && pre.type
      ? {
          type: pre.type,
          id:
            pre.type === 'shared'
              ? at(ids.sharedPrecondition, pre.id, 'shared precondition')
              : at(ids.precondition, pre.id, 'precondition'),
        }
      : pre;
  const steps = (r.steps as unknown as Ref[]).map((s) => ({
    type: s.type,
    id: s.type === 'shared' ? at(ids.sharedStep, s.id, 'shared step') : at(ids.step, s.id, 'step'),
  }));
  return {
    tenant_id: c.tenantId,
    tcase_id: tcaseOf(c, r.tcase),
    version: r.version,
    title: r.title,
    priority: r.priority,
    comment: c.html(r.comment),
    is_empty: r.isEmpty,
    precondition: JSON.stringify(precondition),
    steps: JSON.stringify(steps),
    tag_ids: JSON.stringify((r.tags as unknown as number[]).map((n) => at(ids.tag, n, 'tag'))),
    requirement_ids: JSON.stringify(
      (r.requirements as unknown as number[]).map((n) => at(ids.requirement, n, 'requirement')),
    ),
    links: JSON.stringify(r.links),
    custom_fields: JSON.stringify(values),
    file_ids: JSON.stringify((r.files as unknown as number[]).map((n) => at(ids.file, n, 'file'))),
    template_data: JSON.stringify(r.templateData),
    author_id: c.person(r.author) ?? c.userId,
    created_at: r.createdAt,
  };
}

function runRow(r: R, c: RowContext): Row {
  const { ids } = c;
  const plan = opt(ids.plan, r.plan, 'plan');
  const counts = r.counts as unknown as Record<string, number>;
  const queryPlans = (r.queryPlans as unknown as Row[]).map((p) => ({
    ...p,
    ...(Array.isArray(p.tcaseIds)
      ? {
          tcaseIds: (p.tcaseIds as string[]).map((id) =>
            /^#\d+$/.test(id) ? tcaseOf(c, Number(id.slice(1))) : id,
          ),
        }
      : {}),
    ...(Array.isArray(p.folderIds)
      ? { folderIds: (p.folderIds as number[]).map((n) => at(ids.folder, n, 'folder')) }
      : {}),
    ...(Array.isArray(p.tagIds) ? { tagIds: (p.tagIds as number[]).map((n) => at(ids.tag, n, 'tag')) } : {}),
  }));
  return {
    tenant_id: c.tenantId,
    project_id: c.projectId,
    type: r.type,
    title: r.title,
    description: c.html(r.description),
    plan_id: plan,
    plan_key: plan ?? 0,
    milestone_id: opt(ids.milestone, r.milestone, 'milestone'),
    assignment_id: c.person(r.assignee),
    configuration_id: opt(ids.configuration, r.configuration, 'configuration'),
    is_automated: r.isAutomated,
    time_spent: r.timeSpent,
    query_plans: JSON.stringify(queryPlans),
    created_by: c.person(r.createdBy),
    created_at: r.createdAt,
    updated_at: r.updatedAt,
    closed_at: r.closedAt,
    closed_by: c.person(r.closedBy),
    membership_version: r.membershipVersion,
    ...Object.fromEntries(RUN_COUNTERS.map((k) => [`cnt_${k}`, Number(counts[k] ?? 0)])),
    due_at: r.dueAt ?? null,
  };
}
