import { recordAudit } from '../audit/audit.service.js';
import type { Actor } from '../../auth/actor.js';
import type { Db } from '../../db/create-db.js';
import { guardFormulas } from '../../lib/csv.js';
import { listProjectCustomFields } from '../custom-fields/custom-fields.service.js';
import type { FilesContext } from '../files/files.service.js';
import type { Folder } from '../folders/folders.schemas.js';
import { listFolders } from '../folders/folders.service.js';
import { resolveProject } from '../projects/projects.service.js';
import type { TCase } from '../test-cases/test-cases.schemas.js';
import { exportFolderPage, maxImportStepCount } from '../test-cases/test-cases.service.js';
import { htmlToMarkdown } from './formats/markdown.js';

/*
 * GET /project/{p}/export?format=qasphere-csv (extensions.md §7): QA Sphere's documented export layout, streamed
 * a folder page at a time (folders depth-first by position, cases by position), so memory stays flat. Any project
 * reader may download it, so text goes through the formula guard of every CSV (src/lib/csv.ts), which the QA Sphere
 * CSV import takes off again; `raw` leaves text exact. Filled cases are not rows: their template's Parameter Values
 * make them.
 */

const PAGE = 500;
const FIXED = [
  'Folder',
  'Type',
  'Name',
  'Legacy ID',
  'Draft',
  'Priority',
  'Tags',
  'Requirements',
  'Links',
  'Files',
  'Preconditions',
  'Parameter Values',
  'Template Suffix Params',
];

const NEEDS_QUOTES = /[",\r\n]|^\s|\s$/;
const quoted = (v: string) => (NEEDS_QUOTES.test(v) ? `"${v.replaceAll('"', '""')}"` : v);

/** One CSV line of the export: every cell guarded against formulas unless `raw`, then quoted where it must be. */
export const exportLine = (cells: string[], raw: boolean) =>
  `${cells.map((v) => quoted(raw ? v : guardFormulas(v))).join(',')}\r\n`;
const linkList = (items: { text: string; url: string }[]) =>
  items.map((l) => `[${l.text}](${l.url})`).join(',');

/** Every folder of the project depth-first (parents before children, siblings by position) with its path. */
async function foldersInOrder(
  db: Db,
  actor: Actor,
  projectId: string,
): Promise<{ id: number; path: string }[]> {
  const all: Folder[] = [];
  for (let offset = 0; ; offset += 5000) {
    const page = await listFolders(db, actor, projectId, { offset, limit: 5000 });
    all.push(...page.data);
    if (offset + 5000 >= page.total) break;
  }
  const byId = new Map(all.map((f) => [f.id, f]));
  // A `/` inside a name is written `\/`, as QA Sphere's CSV library writes it (the import reads it so).
  const pathOf = (f: Folder): string => {
    const parent = byId.get(f.parentId);
    const title = f.title.replaceAll('/', '\\/');
    return parent ? `${pathOf(parent)}/${title}` : title;
  };
  return all.map((f) => ({ id: f.id, path: pathOf(f) }));
}

function rowOf(t: TCase, folder: string, steps: number, fields: { systemName: string }[]): string[] {
  const pairs: string[] = [];
  for (const s of t.steps ?? []) {
    if (s.type === 'standalone')
      pairs.push(htmlToMarkdown(s.description ?? ''), htmlToMarkdown(s.expected ?? ''));
    else pairs.push(s.title ?? '', '');
  }
  while (pairs.length < steps * 2) pairs.push('');
  return [
    folder,
    t.type,
    t.title,
    t.legacyId,
    t.isDraft ? 'true' : 'false',
    t.priority,
    (t.tags ?? []).map((g) => g.title).join(','),
    linkList(t.requirements ?? []),
    linkList(t.links),
    t.files.length === 0
      ? ''
      : JSON.stringify(
          t.files.map((f) => ({
            fileName: f.fileName,
            id: f.id,
            url: f.url,
            mimeType: f.mimeType,
            size: f.size,
          })),
        ),
    htmlToMarkdown(t.precondition?.text ?? t.comment),
    // A template always writes its value sets, `[]` too: an empty cell keeps an existing template's filled cases.
    t.type === 'template' ? JSON.stringify((t.parameterValues ?? []).map((p) => ({ values: p.values }))) : '',
    (t.filledTCaseTitleSuffixParams ?? []).join(','),
    ...pairs,
    ...fields.map(({ systemName }) => {
      const v = t.customFields?.[systemName];
      return v === undefined ? '' : JSON.stringify({ value: v.value, isDefault: v.isDefault });
    }),
  ];
}

/** The CSV text, a few rows at a time. The project is resolved (and access checked) before the first chunk. */
export async function exportQasphereCsv(
  db: Db,
  actor: Actor,
  projectRef: string,
  files: FilesContext,
  { raw = false }: { raw?: boolean } = {},
): Promise<{ code: string; chunks: AsyncGenerator<string> }> {
  const project = await resolveProject(db, actor, projectRef);
  await auditExport(db, actor, project, 'qasphere-csv');
  async function* chunks(): AsyncGenerator<string> {
    const fields = (await listProjectCustomFields(db, actor, project.id)).filter((f) => f.enabled);
    const steps = await maxImportStepCount(db, actor.tenantId, project.id);
    const stepColumns = Array.from({ length: steps }, (_, i) => [
      `Step ${i + 1}`,
      `Expected ${i + 1}`,
    ]).flat();
    yield exportLine(
      [...FIXED, ...stepColumns, ...fields.map((f) => `custom_field_${f.type}_${f.systemName}`)],
      raw,
    );
    for (const folder of await foldersInOrder(db, actor, project.id)) {
      let after: { pos: number; seq: number } | undefined;
      for (;;) {
        const page = await exportFolderPage(db, actor.tenantId, project.id, folder.id, after, PAGE, files);
        if (page.length === 0) break;
        yield page.map((t) => exportLine(rowOf(t, folder.path, steps, fields), raw)).join('');
        const last = page[page.length - 1];
        after = { pos: last.pos, seq: last.seq };
        if (page.length < PAGE) break;
      }
    }
  }
  return { code: project.code, chunks: chunks() };
}

/**
 * `project.exported`, when the download starts (docs/api-decisions.md#audit-events): who took the project's cases
 * (CSV) or the whole project (`casebook`, an archive) out of the service, and when.
 */
export async function auditExport(
  db: Db,
  actor: Actor,
  project: { id: string; code: string },
  format: 'qasphere-csv' | 'casebook',
): Promise<void> {
  await recordAudit(db, actor, 'project.exported', {
    project_id: project.id,
    project_code: project.code,
    format,
  });
}
