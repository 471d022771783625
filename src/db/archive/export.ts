import type { Readable } from 'node:stream';
import type { Db } from '../create-db.js';
import { chunks as inChunks } from '../../lib/chunks.js';
import { parseJson } from '../../lib/json.js';
import { nowIso } from '../../lib/time.js';
import {
  ARCHIVE_FORMAT,
  ARCHIVE_VERSION,
  FILE_CHUNK_BYTES,
  FILE_REF_SCHEME,
  FILE_URL,
  type ArchiveRecord,
} from './format.js';
import { caseRecords } from './export-cases.js';
import { fileIdsOfProject, sharedItems } from './export-parts.js';
import { runRecords } from './export-runs.js';
import { Numbering, type ExportContext } from './numbering.js';

/*
 * Writing a project as a Casebook archive (archive.format.ts): records a page at a time in a fixed order, so
 * memory holds only the maps from stored ids to archive numbers (a few numbers per row) and one page. Ids of rows
 * with random ids (configurations, requirements, files) are numbered in an order of their content, so that an
 * archive imported and exported again numbers them the same. Never written: credentials, key hashes, sessions,
 * tokens, integrations and webhooks (sealed secrets), the API key a result came through, report share links.
 */

export interface ExportInput {
  db: Db;
  tenantId: string;
  projectId: string;
  /** The body of a stored file (files.storage, files.storage_key), undefined when it is missing. */
  readFile: (storage: string, key: string) => Promise<Readable | undefined>;
}

/** The archive's lines (NDJSON, each ending in a new line), the project's data read as they are asked for. */
export async function* archiveLines({
  db,
  tenantId,
  projectId,
  readFile,
}: ExportInput): AsyncGenerator<string> {
  const counts: Record<string, number> = {};
  const line = (record: ArchiveRecord) => {
    counts[record.t] = (counts[record.t] ?? 0) + 1;
    return `${JSON.stringify(record)}\n`;
  };
  const project = await db
    .selectFrom('projects')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', projectId)
    .executeTakeFirstOrThrow();
  yield `${JSON.stringify({ t: 'archive', format: ARCHIVE_FORMAT, formatVersion: ARCHIVE_VERSION, exportedAt: nowIso(), project: project.code })}\n`;

  // People: written the first time a record names them, before it.
  const users = new Map(
    (
      await db.selectFrom('users').select(['id', 'email', 'name']).where('tenant_id', '=', tenantId).execute()
    ).map((u) => [u.id, u]),
  );
  const written = new Set<number>();
  let pending: string[] = [];
  const person = (id: unknown): string | null => {
    const user = id === null || id === undefined ? undefined : users.get(Number(id));
    if (!user) return null;
    if (!written.has(user.id)) {
      written.add(user.id);
      pending.push(line({ t: 'person', email: user.email, name: user.name }));
    }
    return user.email;
  };
  /** The people a record names, then the record. */
  const out = (record: ArchiveRecord): string => {
    const text = line(record);
    const before = pending.join('');
    pending = [];
    return before + text;
  };

  yield out({
    t: 'project',
    code: project.code,
    title: project.title,
    overviewTitle: project.overview_title,
    overviewDescription: project.overview_description,
    links: parseJson(project.links, []),
    nextTcaseSeq: Number(project.next_tcase_seq),
    createdBy: person(project.created_by),
    createdAt: project.created_at,
    updatedAt: project.updated_at,
    archivedAt: project.archived_at,
  });
  const members = await db
    .selectFrom('project_members')
    .select(['user_id', 'created_at'])
    .where('project_id', '=', projectId)
    .orderBy('user_id')
    .execute();
  const memberLines = members
    .map((m) => ({ email: person(m.user_id), createdAt: m.created_at }))
    .filter((m) => m.email !== null)
    .sort((a, b) => (a.email! < b.email! ? -1 : 1));
  for (const m of memberLines) yield out({ t: 'member', user: m.email, createdAt: m.createdAt });

  // Custom fields the project may use or its cases hold values of; the tenant's statuses.
  const fields = await db
    .selectFrom('custom_fields')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .orderBy('pos')
    .execute();
  const used = new Set(
    (
      await db
        .selectFrom('tcase_custom_values as v')
        .innerJoin('tcases as c', 'c.id', 'v.tcase_id')
        .select('v.field_id')
        .distinct()
        .where('c.project_id', '=', projectId)
        .execute()
    ).map((r) => r.field_id),
  );
  const fieldNames = new Map<string, string>();
  for (const f of fields) {
    const allowed =
      f.allow_all_projects === 1 || parseJson<string[]>(f.allowed_project_ids, []).includes(projectId);
    if (!allowed && !used.has(f.id)) continue;
    fieldNames.set(f.id, f.system_name);
    yield out({
      t: 'customField',
      systemName: f.system_name,
      type: f.type,
      name: f.name,
      required: f.required,
      enabled: f.enabled,
      options: f.options === null ? null : parseJson(f.options, []),
      defaultValue: f.default_value,
      allowAllProjects: f.allow_all_projects,
    });
  }
  const statuses = await db
    .selectFrom('statuses')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .orderBy('id')
    .execute();
  for (const s of statuses)
    yield out({ t: 'status', id: s.id, name: s.name, color: s.color, isActive: s.is_active });

  // Folders: numbered first (a parent may have a later id than its child), then written in id order.
  const folderRows = await db
    .selectFrom('folders')
    .selectAll()
    .where('project_id', '=', projectId)
    .orderBy('id')
    .execute();
  const folders = new Numbering<number>();
  for (const f of folderRows) folders.add(f.id);
  for (const f of folderRows) {
    const parent = Number(f.parent_id);
    yield out({
      t: 'folder',
      // 0: a root; a deleted folder's parent is minus its own id (a tombstone), written as minus its number.
      parent: parent === 0 ? 0 : parent < 0 ? -folders.of(-parent)! : (folders.of(parent) ?? 0),
      title: f.title,
      comment: f.comment,
      pos: f.pos,
      createdAt: f.created_at,
      updatedAt: f.updated_at,
      deletedAt: f.deleted_at ?? null,
    });
  }

  const tags = new Numbering<number>();
  for (const g of await db
    .selectFrom('tags')
    .selectAll()
    .where('project_id', '=', projectId)
    .orderBy('id')
    .execute()) {
    tags.add(g.id);
    yield out({ t: 'tag', title: g.title, createdAt: g.created_at });
  }
  const milestones = new Numbering<number>();
  for (const m of await db
    .selectFrom('milestones')
    .selectAll()
    .where('project_id', '=', projectId)
    .orderBy('id')
    .execute()) {
    milestones.add(m.id);
    yield out({
      t: 'milestone',
      title: m.title,
      createdAt: m.created_at,
      updatedAt: m.updated_at,
      archivedAt: m.archived_at,
    });
  }
  const configurations = new Numbering<string>();
  const configurationRows = await db
    .selectFrom('configurations')
    .selectAll()
    .where('project_id', '=', projectId)
    .orderBy('created_at')
    .orderBy('title')
    .orderBy('id')
    .execute();
  for (const c of configurationRows) {
    configurations.add(c.id);
    yield out({ t: 'configuration', title: c.title, createdAt: c.created_at, updatedAt: c.updated_at });
  }
  const requirements = new Numbering<string>();
  const requirementRows = await db
    .selectFrom('requirements')
    .selectAll()
    .where('project_id', '=', projectId)
    .execute();
  requirementRows.sort((a, b) => (a.text + '\u0000' + a.url < b.text + '\u0000' + b.url ? -1 : 1));
  for (const r of requirementRows) {
    requirements.add(r.id);
    yield out({ t: 'requirement', text: r.text, url: r.url, createdAt: r.created_at });
  }

  // Files: every file a case version lists or some archived HTML links to, with its bytes.
  const files = new Numbering<string>();
  const fileIds = await fileIdsOfProject(db, projectId);
  const fileRows = [];
  for (const part of inChunks([...fileIds], 500))
    fileRows.push(
      ...(await db
        .selectFrom('files')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('id', 'in', part)
        .execute()),
    );
  fileRows.sort((a, b) => {
    const ka = `${a.created_at}\u0000${a.sha256}\u0000${a.file_name}`;
    const kb = `${b.created_at}\u0000${b.sha256}\u0000${b.file_name}`;
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  });
  for (const f of fileRows) {
    const n = files.add(f.id);
    yield out({
      t: 'file',
      fileName: f.file_name,
      mimeType: f.mime_type,
      size: Number(f.size),
      sha256: f.sha256,
      uploadedBy: person(f.uploaded_by),
      createdAt: f.created_at,
    });
    const body = await readFile(f.storage, f.storage_key);
    if (!body) throw new Error(`the body of file ${f.id} (${f.file_name}) is missing from file storage`);
    let held: Buffer[] = [];
    let heldBytes = 0;
    for await (const chunk of body as AsyncIterable<Buffer>) {
      held.push(chunk);
      heldBytes += chunk.length;
      while (heldBytes >= FILE_CHUNK_BYTES) {
        const all = Buffer.concat(held);
        yield line({ t: 'fileData', file: n, data: all.subarray(0, FILE_CHUNK_BYTES).toString('base64') });
        held = [all.subarray(FILE_CHUNK_BYTES)];
        heldBytes = held[0].length;
      }
    }
    if (heldBytes > 0) yield line({ t: 'fileData', file: n, data: Buffer.concat(held).toString('base64') });
  }
  /** Stored HTML with its file addresses as archive references. */
  const html = (text: string): string =>
    text.includes('/file/')
      ? text.replace(FILE_URL, (whole, id: string) => {
          const n = files.of(id);
          return n === null ? whole : `${FILE_REF_SCHEME}${n}`;
        })
      : text;

  // Shared steps and preconditions, each with every version.
  const sharedSteps = new Numbering<number>();
  const sharedPreconditions = new Numbering<number>();
  yield* sharedItems(
    db,
    projectId,
    [
      {
        table: 'shared_steps',
        t: 'sharedStep',
        numbering: sharedSteps,
        parts: [
          {
            table: 'shared_step_versions',
            item: 'shared_step_id',
            order: ['version'],
            record: (v, n) => ({
              t: 'sharedStepVersion',
              sharedStep: n,
              version: v.version,
              title: v.title,
              createdAt: v.created_at,
            }),
          },
          {
            table: 'shared_sub_steps',
            item: 'shared_step_id',
            order: ['version', 'pos'],
            record: (u, n) => ({
              t: 'sharedSubStep',
              sharedStep: n,
              version: u.version,
              pos: u.pos,
              description: html(String(u.description)),
              expected: html(String(u.expected)),
            }),
          },
        ],
      },
      {
        table: 'shared_preconditions',
        t: 'sharedPrecondition',
        numbering: sharedPreconditions,
        parts: [
          {
            table: 'shared_precondition_versions',
            item: 'shared_precondition_id',
            order: ['version'],
            record: (v, n) => ({
              t: 'sharedPreconditionVersion',
              sharedPrecondition: n,
              version: v.version,
              title: v.title,
              text: html(String(v.text)),
              createdAt: v.created_at,
            }),
          },
        ],
      },
    ],
    out,
  );

  const ctx: ExportContext = {
    db,
    projectId,
    out,
    line,
    person,
    html,
    folders,
    tags,
    milestones,
    configurations,
    requirements,
    sharedSteps,
    sharedPreconditions,
    fieldNames,
    files,
  };
  const seqOf = new Map<string, number>();
  yield* caseRecords(ctx, seqOf);
  yield* runRecords(ctx, seqOf);
  yield `${JSON.stringify({ t: 'end', counts })}\n`;
}

/** The id of the tenant's project with this code (any case), or undefined. */
export async function projectIdByCode(db: Db, tenantId: string, code: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('projects')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('code_norm', '=', code.toUpperCase())
    .executeTakeFirst();
  return row?.id;
}
