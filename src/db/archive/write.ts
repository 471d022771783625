import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import type { Db } from '../create-db.js';
import { isUniqueViolation } from '../dialect.js';
import { rewriteSearchDocs } from '../search-docs.js';
import { AppError } from '../../errors.js';
import { chunks, rowsPerStatement } from '../../lib/chunks.js';
import { sanitizeHtmlField } from '../../lib/html.js';
import { newId, newUuid } from '../../lib/ids.js';
import { parseJson } from '../../lib/json.js';
import { nowIso } from '../../lib/time.js';
import { FILE_REF, type ArchiveRecord } from './format.js';
import type { Undo } from './purge.js';
import { ArchiveError, archiveRecords } from './read.js';
import { at, Ids, plainRow, type Row, type RowContext } from './write-rows.js';

/*
 * Writing a checked archive (read.ts) as a new project: records in archive order, rows of one kind inserted a
 * bounded batch at a time (each its own short transaction, so other writers wait little), archive numbers mapped
 * to the new ids as they are handed out (write-rows.ts). What was written is listed in `undo`, so a failure
 * removes it (purge.ts). Ids are new; the project's code (or the one asked for) and every case's seq are the
 * archive's.
 */

type AnyDb = Kysely<Record<string, Row>>;
type R = ArchiveRecord & Record<string, never>;

/** File ids handed out (and noted) at a time. */
const FILE_ID_BLOCK = 64;

/** Where the bodies of the archive's files go (the service's file storage). */
export interface ArchiveFileStore {
  /** Where the body of a new file `id` goes: its backend and key (known before it is stored, so it is noted). */
  place(id: string): { storage: string; key: string };
  /** Stores the body of a new file at its place (all or nothing). */
  put(id: string, body: Readable): Promise<void>;
  delete(storage: string, key: string): Promise<void>;
  /** The address that serves file `id`, as stored HTML links it. */
  url(id: string): string;
}

export interface WriteInput {
  db: Db;
  tenantId: string;
  /** The importer: the author of a case or version the archive names nobody for. */
  userId: number | null;
  /** The code to create; the archive's when undefined. */
  code?: string;
  files: ArchiveFileStore;
  undo: Undo;
  /** Records written so far (called now and then). */
  progress: (done: number) => Promise<void>;
}

/** Batches of rows per table, flushed when the table changes or a batch is full. */
class Batches {
  private table = '';
  private rows: Row[] = [];
  private ids: number[] | undefined;
  constructor(private readonly db: Db) {}

  async add({ table, row, ids }: { table: string; row: Row; ids?: number[] }): Promise<void> {
    if (table !== this.table) await this.flush();
    this.table = table;
    this.ids = ids;
    this.rows.push(row);
    if (this.rows.length >= Math.min(200, rowsPerStatement(Object.keys(row).length))) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.rows.length === 0) return;
    const q = (this.db as unknown as AnyDb).insertInto(this.table).values(this.rows);
    if (this.ids) {
      // One statement hands out its ids in the order of its rows: sorted, they are the rows' ids.
      const got = (await q.returning('id').execute()).map((r) => Number(r.id)).sort((a, b) => a - b);
      this.ids.push(...got);
    } else await q.execute();
    this.rows = [];
  }
}

/** Writes the archive `src` (already checked) as a new project; answers its id and code. */
export async function writeArchive(
  src: Readable,
  input: WriteInput,
): Promise<{ projectId: string; code: string }> {
  const { db, tenantId, files, undo } = input;
  const batches = new Batches(db);
  const now = nowIso();
  const people = new Map<string, number>();
  const person = (email: unknown): number | null =>
    typeof email === 'string' ? (people.get(email.toLowerCase()) ?? null) : null;
  const ids = new Ids();
  const c: RowContext = {
    tenantId,
    projectId: '',
    ids,
    person,
    // D22: archived HTML is cleaned like any HTML written through the API (an archive is a file from outside).
    html: (text) =>
      sanitizeHtmlField(
        String(text).replace(FILE_REF, (_, n: string) => files.url(at(ids.file, Number(n), 'file'))),
      ),
    userId: input.userId,
  };
  let code = '';
  let lastKind = '';
  const fileIds: string[] = [];
  let done = 0;
  let reported = Date.now();

  /** Work due once every record of a kind is written (links that may point forward). */
  async function kindEnded(kind: string): Promise<void> {
    await batches.flush();
    if (kind === 'folder') {
      for (let i = 0; i < ids.folder.length; i++) {
        const p = ids.folderParent[i];
        const parent = p === 0 ? 0 : p < 0 ? -ids.folder[i] : at(ids.folder, p, 'folder');
        await db.updateTable('folders').set({ parent_id: parent }).where('id', '=', ids.folder[i]).execute();
      }
    }
    if (kind === 'tcase') {
      for (const [id, seq] of ids.templates) {
        const template = ids.tcase.get(seq);
        if (!template)
          throw new ArchiveError(`a filled case names template seq ${seq}, which the archive does not hold`);
        await db.updateTable('tcases').set({ template_id: template }).where('id', '=', id).execute();
      }
    }
  }

  const records = archiveRecords(src)[Symbol.asyncIterator]();
  let held: { line: number; record: ArchiveRecord } | undefined;
  const next = async () => {
    if (held) {
      const h = held;
      held = undefined;
      return h;
    }
    const r = await records.next();
    if (!r.done && r.value.record.t !== 'archive' && r.value.record.t !== 'end') done++;
    return r.done ? undefined : r.value;
  };

  /** The bytes of the fileData records that follow, checked against the file record's size and digest. */
  async function* fileBody(n: number, size: number, sha256: string): AsyncGenerator<Buffer> {
    const hash = createHash('sha256');
    let seen = 0;
    for (;;) {
      const item = await next();
      if (!item) break;
      if (item.record.t !== 'fileData' || item.record.file !== n) {
        held = item;
        break;
      }
      const bytes = Buffer.from(item.record.data as string, 'base64');
      seen += bytes.length;
      hash.update(bytes);
      yield bytes;
    }
    if (seen !== size || hash.digest('hex') !== sha256)
      throw new ArchiveError(`file ${n}'s bytes in the archive do not match its size and sha256`);
  }

  for (;;) {
    const item = await next();
    if (!item) break;
    const r = item.record as R;
    if (r.t === 'archive' || r.t === 'end') continue;
    if (r.t !== lastKind) {
      if (lastKind) await kindEnded(lastKind);
      lastKind = r.t;
    }
    const plain = plainRow(r, c);
    if (plain) await batches.add(plain);
    else
      switch (r.t) {
        case 'person': {
          const email = String(r.email);
          const found = await db
            .selectFrom('users')
            .select('id')
            .where('tenant_id', '=', tenantId)
            .where('email_norm', '=', email.toLowerCase())
            .executeTakeFirst();
          if (found) people.set(email.toLowerCase(), found.id);
          else {
            await undo.creatingUser(email);
            // Someone unknown here: a deactivated account keeps their name and e-mail on the records (no password,
            // cannot sign in; an admin may invite them).
            const { id } = await db
              .insertInto('users')
              .values({
                tenant_id: tenantId,
                email,
                email_norm: email.toLowerCase(),
                name: String(r.name).trim() || email,
                role: 'viewer',
                password_hash: null,
                avatar: null,
                deactivated_at: now,
                created_at: now,
                updated_at: now,
              })
              .returning('id')
              .executeTakeFirstOrThrow();
            people.set(email.toLowerCase(), id);
          }
          break;
        }
        case 'project': {
          code = input.code ?? String(r.code);
          const codeNorm = code.toUpperCase();
          const clash = await db
            .selectFrom('projects')
            .select(['code', 'title'])
            .where('tenant_id', '=', tenantId)
            .where((eb) => eb.or([eb('code_norm', '=', codeNorm), eb('title', '=', String(r.title))]))
            .execute();
          if (clash.some((c) => c.code.toUpperCase() === codeNorm))
            throw new AppError('CONFLICT', `a project with the code ${code} exists`);
          // Titles are unique too: a copy imported beside its source takes its code after the title.
          const title = clash.length > 0 ? `${String(r.title)} (${code})` : String(r.title);
          const projectId = newUuid();
          c.projectId = projectId;
          await undo.creatingProject(projectId);
          try {
            await db
              .insertInto('projects')
              .values({
                id: projectId,
                tenant_id: tenantId,
                code,
                code_norm: codeNorm,
                title,
                overview_title: String(r.overviewTitle),
                overview_description: sanitizeHtmlField(String(r.overviewDescription)),
                links: JSON.stringify(r.links),
                created_by: person(r.createdBy),
                next_tcase_seq: r.nextTcaseSeq as number,
                created_at: String(r.createdAt),
                updated_at: String(r.updatedAt),
                archived_at: (r.archivedAt as string | null) ?? null,
              })
              .execute();
          } catch (err) {
            if (isUniqueViolation(err))
              throw new AppError('CONFLICT', `a project with the code ${code} exists`);
            throw err;
          }
          break;
        }
        case 'customField':
          await customField(db, tenantId, c.projectId, r, ids.fields, undo);
          break;
        case 'status':
          await status(db, tenantId, r, undo);
          break;
        case 'file': {
          const n = ids.file.length + 1;
          if (fileIds.length === 0) {
            // Ids handed out a block at a time and noted before any is stored: the journal is written seldom.
            const block = Array.from({ length: FILE_ID_BLOCK }, () => newId());
            await undo.reservingFiles(block.map((id) => ({ id, ...files.place(id) })));
            fileIds.push(...block);
          }
          const id = fileIds.shift()!;
          const stored = files.place(id);
          await files.put(id, Readable.from(fileBody(n, r.size as number, String(r.sha256))));
          await db
            .insertInto('files')
            .values({
              id,
              tenant_id: tenantId,
              storage_key: stored.key,
              storage: stored.storage,
              file_name: String(r.fileName),
              mime_type: String(r.mimeType),
              size: r.size as number,
              sha256: String(r.sha256),
              uploaded_by: person(r.uploadedBy),
              created_at: String(r.createdAt),
            })
            .execute();
          ids.file.push(id);
          break;
        }
        case 'resultFile':
          // Here rather than among write-rows.ts's builders, which fill that file to the house's 500 lines.
          await batches.add({
            table: 'result_files',
            row: {
              tenant_id: tenantId,
              result_id: at(ids.result, r.result, 'result'),
              run_id: at(ids.resultRun, r.result, 'result'),
              position: r.position,
              file_id: at(ids.file, r.file, 'file'),
            },
          });
          break;
        default:
          throw new ArchiveError(`line ${item.line}: a ${r.t} record out of place`);
      }
    if (Date.now() - reported > 500) {
      reported = Date.now();
      await batches.flush();
      await input.progress(done);
    }
  }
  if (lastKind) await kindEnded(lastKind);
  for (const part of chunks([...ids.tcase.values()], 500)) await rewriteSearchDocs(db, tenantId, part);
  await input.progress(done);
  return { projectId: c.projectId, code };
}

/** A custom field of the archive: the tenant's of the same system name (made available here), or a new one. */
async function customField(
  db: Db,
  tenantId: string,
  projectId: string,
  r: R,
  fields: Map<string, string>,
  undo: Undo,
): Promise<void> {
  const systemName = String(r.systemName);
  const existing = await db
    .selectFrom('custom_fields')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('system_name', '=', systemName)
    .executeTakeFirst();
  if (existing) {
    fields.set(systemName, existing.id);
    if (existing.allow_all_projects !== 1) {
      const allowed = parseJson<string[]>(existing.allowed_project_ids, []);
      if (!allowed.includes(projectId)) {
        await undo.openingField(existing.id);
        await db
          .updateTable('custom_fields')
          .set({ allowed_project_ids: JSON.stringify([...allowed, projectId]) })
          .where('id', '=', existing.id)
          .execute();
      }
    }
    return;
  }
  const last = await db
    .selectFrom('custom_fields')
    .select((eb) => eb.fn.max('pos').as('pos'))
    .where('tenant_id', '=', tenantId)
    .executeTakeFirst();
  const id = newId();
  const at = nowIso();
  await undo.creatingField(id);
  await db
    .insertInto('custom_fields')
    .values({
      id,
      tenant_id: tenantId,
      type: String(r.type),
      system_name: systemName,
      name: String(r.name),
      required: r.required as number,
      enabled: r.enabled as number,
      options: r.options === null ? null : JSON.stringify(r.options),
      default_value: (r.defaultValue as string | null) ?? null,
      pos: Number(last?.pos ?? 0) + 1,
      allow_all_projects: r.allowAllProjects as number,
      allowed_project_ids: r.allowAllProjects === 1 ? null : JSON.stringify([projectId]),
      created_at: at,
      updated_at: at,
    })
    .execute();
  fields.set(systemName, id);
}

/**
 * A status of the archive: one this service never changed is taken as the archive has it; a custom status that
 * is off here and on in the archive is turned on with the archive's name and colour; others stay as they are.
 */
async function status(db: Db, tenantId: string, r: R, undo: Undo): Promise<void> {
  const id = String(r.id);
  const row = await db
    .selectFrom('statuses')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
  const values = {
    name: String(r.name),
    color: String(r.color),
    is_active: r.isActive as number,
    updated_at: nowIso(),
  };
  if (!row) {
    await undo.writingStatus(id, undefined);
    await db
      .insertInto('statuses')
      .values({ tenant_id: tenantId, id, ...values })
      .execute();
  } else if (row.is_active === 0 && r.isActive === 1) {
    await undo.writingStatus(id, row);
    await db
      .updateTable('statuses')
      .set(values)
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .execute();
  }
}
