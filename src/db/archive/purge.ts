import type { Selectable } from 'kysely';
import type { Db } from '../create-db.js';
import type { StatusesTable } from '../schema.js';
import { chunks } from '../../lib/chunks.js';

/*
 * Taking back what a failed project import wrote: the project with every row under it, and what it wrote outside
 * the project: the accounts it made for people unknown here, the files it stored (rows and bodies), the custom
 * fields it made or opened to the project, the statuses it wrote. Each is noted before it is written (write-ahead),
 * and the notes are saved to a journal when the import has one (the job keeps it beside the upload), so an attempt
 * that died part-way is taken back whole by the next one.
 */

/** A failed import whose taking back failed too: what it wrote stays noted in its journal for another try. */
export class TakeBackFailed extends Error {
  constructor(
    readonly failure: unknown,
    readonly undoFailure: unknown,
  ) {
    super(
      `the import failed (${(failure as Error).message}) and taking back what it wrote failed too (${(undoFailure as Error).message})`,
    );
  }
}

/** Where an import's notes are kept while it runs: `save` replaces them (JSON). */
export interface UndoJournal {
  save(text: string): Promise<void>;
}

/** A file body's place in file storage. */
export interface StoredAt {
  id: string;
  storage: string;
  key: string;
}

interface UndoNotes {
  projectId?: string;
  /** E-mails of the deactivated accounts made for people unknown here. */
  users: string[];
  /** Files whose ids were handed out, stored or not yet. */
  files: StoredAt[];
  fieldsCreated: string[];
  fieldsOpened: string[];
  /** Statuses written, with the row before (null: there was none). */
  statuses: { id: string; before: Selectable<StatusesTable> | null }[];
}

export class Undo {
  private notes: UndoNotes = {
    users: [],
    files: [],
    fieldsCreated: [],
    fieldsOpened: [],
    statuses: [],
  };

  /**
   * `onProject` records the new project's id where a later attempt finds it (project_imports.project_id);
   * `journal` keeps every note before what it notes is written.
   */
  constructor(
    private readonly onProject: (id: string) => Promise<void> = async () => {},
    private readonly journal?: UndoJournal,
  ) {}

  /** The notes of an earlier attempt, read from its journal. */
  static fromJournal(text: string): Undo {
    const undo = new Undo();
    undo.notes = { ...undo.notes, ...(JSON.parse(text) as Partial<UndoNotes>) };
    return undo;
  }

  get projectId(): string | undefined {
    return this.notes.projectId;
  }

  private async note(change: (notes: UndoNotes) => void): Promise<void> {
    change(this.notes);
    await this.journal?.save(JSON.stringify(this.notes));
  }

  /** Before the project `id` is written. */
  async creatingProject(id: string): Promise<void> {
    await this.note((n) => (n.projectId = id));
    await this.onProject(id);
  }
  /** Before an account is made for `email`. */
  creatingUser = (email: string) => this.note((n) => n.users.push(email.toLowerCase()));
  /** Before files with these ids are stored (handed out a block at a time, so the journal is written seldom). */
  reservingFiles = (files: StoredAt[]) => this.note((n) => n.files.push(...files));
  creatingField = (id: string) => this.note((n) => n.fieldsCreated.push(id));
  openingField = (id: string) => this.note((n) => n.fieldsOpened.push(id));
  writingStatus = (id: string, before: Selectable<StatusesTable> | undefined) =>
    this.note((n) => n.statuses.push({ id, before: before ?? null }));

  /** Takes back everything noted (what was noted but never written is a no-op); may be run again. */
  async rollback(
    db: Db,
    tenantId: string,
    deleteFile: (storage: string, key: string) => Promise<void>,
  ): Promise<void> {
    const { projectId } = this.notes;
    if (projectId) await purgeProject(db, tenantId, projectId);
    for (const part of chunks(this.notes.files, 500)) {
      await db
        .deleteFrom('files')
        .where('tenant_id', '=', tenantId)
        .where(
          'id',
          'in',
          part.map((f) => f.id),
        )
        .execute();
      for (const f of part) await deleteFile(f.storage, f.key);
    }
    for (const id of this.notes.fieldsCreated) {
      await db.deleteFrom('tcase_custom_values').where('field_id', '=', id).execute();
      await db.deleteFrom('custom_fields').where('tenant_id', '=', tenantId).where('id', '=', id).execute();
    }
    for (const id of this.notes.fieldsOpened) {
      const row = await db
        .selectFrom('custom_fields')
        .select('allowed_project_ids')
        .where('id', '=', id)
        .executeTakeFirst();
      if (!row?.allowed_project_ids) continue;
      const allowed = (JSON.parse(row.allowed_project_ids) as string[]).filter((p) => p !== projectId);
      await db
        .updateTable('custom_fields')
        .set({ allowed_project_ids: JSON.stringify(allowed) })
        .where('id', '=', id)
        .execute();
    }
    // Latest first: a status written twice goes back to the row before the first write.
    for (const { id, before } of [...this.notes.statuses].reverse()) {
      if (!before)
        await db.deleteFrom('statuses').where('tenant_id', '=', tenantId).where('id', '=', id).execute();
      else
        await db
          .updateTable('statuses')
          .set({
            name: before.name,
            color: before.color,
            is_active: before.is_active,
            updated_at: before.updated_at,
          })
          .where('tenant_id', '=', tenantId)
          .where('id', '=', id)
          .execute();
    }
    // Only accounts still as the import made them: one an admin has since invited or turned on is kept.
    for (const part of chunks(this.notes.users, 500))
      await db
        .deleteFrom('users')
        .where('tenant_id', '=', tenantId)
        .where('email_norm', 'in', part)
        .where('password_hash', 'is', null)
        .where('deactivated_at', 'is not', null)
        .execute();
  }
}

/** Deletes a project and every row under it, children before parents. */
export async function purgeProject(db: Db, tenantId: string, projectId: string): Promise<void> {
  const runs = db.selectFrom('runs').select('id').where('project_id', '=', projectId);
  const tcases = db.selectFrom('tcases').select('id').where('project_id', '=', projectId);
  const sharedSteps = db.selectFrom('shared_steps').select('id').where('project_id', '=', projectId);
  const sharedPres = db.selectFrom('shared_preconditions').select('id').where('project_id', '=', projectId);
  await db.deleteFrom('run_tcases').where('run_id', 'in', runs).execute();
  await db.deleteFrom('result_links').where('run_id', 'in', runs).execute();
  await db.deleteFrom('result_steps').where('run_id', 'in', runs).execute();
  await db.deleteFrom('result_files').where('run_id', 'in', runs).execute();
  await db.deleteFrom('failure_signatures').where('project_id', '=', projectId).execute();
  await db.deleteFrom('known_failures').where('project_id', '=', projectId).execute();
  await db.deleteFrom('results').where('run_id', 'in', runs).execute();
  await db.deleteFrom('run_logs').where('run_id', 'in', runs).execute();
  await db.deleteFrom('runs').where('project_id', '=', projectId).execute();
  await db.deleteFrom('plans').where('project_id', '=', projectId).execute();
  await db
    .deleteFrom('tcase_search_docs')
    .where('tenant_id', '=', tenantId)
    .where('tcase_id', 'in', tcases)
    .execute();
  await db.deleteFrom('tcase_tags').where('tcase_id', 'in', tcases).execute();
  await db.deleteFrom('tcase_custom_values').where('tcase_id', 'in', tcases).execute();
  await db.deleteFrom('tcase_requirements').where('tcase_id', 'in', tcases).execute();
  await db.deleteFrom('tcase_shared_steps').where('tcase_id', 'in', tcases).execute();
  await db.deleteFrom('tcase_shared_preconditions').where('tcase_id', 'in', tcases).execute();
  await db.deleteFrom('tcase_versions').where('tcase_id', 'in', tcases).execute();
  await db.deleteFrom('steps').where('tcase_id', 'in', tcases).execute();
  await db.deleteFrom('preconditions').where('project_id', '=', projectId).execute();
  await db.updateTable('tcases').set({ template_id: null }).where('project_id', '=', projectId).execute();
  await db.deleteFrom('tcases').where('project_id', '=', projectId).execute();
  await db.deleteFrom('shared_sub_steps').where('shared_step_id', 'in', sharedSteps).execute();
  await db.deleteFrom('shared_step_versions').where('shared_step_id', 'in', sharedSteps).execute();
  await db.deleteFrom('shared_steps').where('project_id', '=', projectId).execute();
  await db
    .deleteFrom('shared_precondition_versions')
    .where('shared_precondition_id', 'in', sharedPres)
    .execute();
  await db.deleteFrom('shared_preconditions').where('project_id', '=', projectId).execute();
  await db.deleteFrom('requirements').where('project_id', '=', projectId).execute();
  await db.deleteFrom('configurations').where('project_id', '=', projectId).execute();
  await db.deleteFrom('milestones').where('project_id', '=', projectId).execute();
  await db.deleteFrom('tags').where('project_id', '=', projectId).execute();
  await db.deleteFrom('folders').where('project_id', '=', projectId).execute();
  await db.deleteFrom('project_members').where('project_id', '=', projectId).execute();
  await db.deleteFrom('projects').where('tenant_id', '=', tenantId).where('id', '=', projectId).execute();
}
