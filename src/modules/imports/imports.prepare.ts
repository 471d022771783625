import { sanitizeHtmlField } from '../../lib/html.js';
import { FOLDER_NAME_MAX } from '../folders/folders.service.js';
import { PRIORITIES, type Priority } from '../test-cases/test-cases.schemas.js';
import type { ImportedContent } from '../test-cases/test-cases.service.js';
import { markdownToHtml, textToHtml } from './formats/markdown.js';
import type { ImportedCase, RowError } from './formats/types.js';

/*
 * A parsed case (formats/types.ts) as what the test cases take: text converted to the stored HTML, the priority
 * read, the folder path and the source's id checked. Rules that need the database are the pipeline's.
 */

export const LEGACY_ID_MAX = 255;

/** A step as the file gives it: a shared block still to find or create by title (imports.shared-steps.ts). */
export type PreparedStep =
  | ImportedContent['steps'][number]
  | { block: { title: string; subSteps: { description: string; expected: string }[] } };

export interface PreparedCase {
  row: number;
  folderPath: string[];
  legacyId?: string;
  isDraft: boolean;
  content: ImportedContent;
  /** The Files column as read; imports.files.ts decides what becomes of each (content.files, a link, a warning). */
  files?: ImportedCase['files'];
  /** Present when the file names shared steps: imports.shared-steps.ts makes content.steps of it. */
  steps?: PreparedStep[];
}

const toHtml = (markup: ImportedCase['markup'], text: string) =>
  markup === 'markdown'
    ? markdownToHtml(text)
    : markup === 'text'
      ? textToHtml(text)
      : sanitizeHtmlField(text);

/** The case ready to check and write, or why it cannot be imported. `underFolder`: a folder is given to import under. */
export function prepareCase(c: ImportedCase, underFolder: boolean): PreparedCase | RowError[] {
  const errors: RowError[] = [];
  const row = c.row;
  const isTemplate = c.type === 'template';
  if (c.type !== undefined && c.type !== 'standalone' && !isTemplate) {
    errors.push({
      row,
      field: 'type',
      message:
        c.type === 'filled'
          ? "filled test cases are not rows: their template's Parameter Values make them"
          : `type must be standalone or template, not "${c.type}"`,
    });
  }
  // Filled cases are not rows: a template's Parameter Values make them (the export writes them so).
  if (!isTemplate && c.parameterValues !== undefined && c.parameterValues.length > 0) {
    errors.push({
      row,
      field: 'Parameter Values',
      message: "Parameter Values are for templates only: the row's Type must be template",
    });
  }
  if (!isTemplate && c.templateSuffixParams !== undefined && c.templateSuffixParams.length > 0) {
    errors.push({
      row,
      field: 'Template Suffix Params',
      message: "Template Suffix Params are for templates only: the row's Type must be template",
    });
  }
  const priority = (c.priority ?? 'medium').trim().toLowerCase();
  if (!(PRIORITIES as readonly string[]).includes(priority)) {
    errors.push({
      row,
      field: 'priority',
      message: `priority must be one of ${PRIORITIES.join(', ')}, not "${c.priority}"`,
    });
  }
  if (c.folderPath.length === 0 && !underFolder) {
    errors.push({ row, field: 'folder', message: 'the folder is missing: every case needs a folder path' });
  }
  c.folderPath.forEach((name, i) => {
    if (name === '' || name.length > FOLDER_NAME_MAX) {
      errors.push({
        row,
        field: 'folder',
        message: `folder name ${i + 1} of the path must be 1-${FOLDER_NAME_MAX} characters and not blank`,
      });
    }
  });
  if (c.legacyId !== undefined && c.legacyId.length > LEGACY_ID_MAX) {
    errors.push({
      row,
      field: 'legacyId',
      message: `the legacy id must be at most ${LEGACY_ID_MAX} characters`,
    });
  }
  if (errors.length > 0) return errors;
  // QA Sphere writes `[](url)` for a requirement without a title: the URL names it.
  const html = (s: { description: string; expected: string }) => ({
    description: toHtml(c.markup, s.description),
    expected: toHtml(c.markup, s.expected),
  });
  const steps: PreparedStep[] = (c.steps ?? []).map((s) =>
    !s.shared
      ? html(s)
      : 'id' in s.shared
        ? { sharedStepId: s.shared.id }
        : { block: { title: s.shared.title, subSteps: s.shared.subSteps.map(html) } },
  );
  const hasShared = (c.steps ?? []).some((s) => s.shared);
  const requirements = (c.requirements ?? []).map((r) => ({
    text: r.text === '' ? r.url : r.text,
    url: r.url,
  }));
  return {
    row,
    folderPath: c.folderPath,
    legacyId: c.legacyId,
    isDraft: c.draft ?? false,
    ...(c.files ? { files: c.files } : {}),
    ...(hasShared ? { steps } : {}),
    content: {
      title: c.title,
      priority: priority as Priority,
      precondition: toHtml(c.markup, c.precondition ?? ''),
      steps: hasShared ? [] : (steps as ImportedContent['steps']),
      tags: c.tags ?? [],
      requirements,
      links: c.links ?? [],
      customFields: c.customFields ?? {},
      ...(isTemplate
        ? {
            template: {
              // No cell (or an empty one) keeps a changed template's filled cases, as PATCH without the field does.
              ...(c.parameterValues === undefined ? {} : { parameterValues: c.parameterValues }),
              suffixParams: c.templateSuffixParams ?? [],
            },
          }
        : {}),
    },
  };
}

/** A JSON pointer of the test-case API (`/tags/0`, `/customFields/x`) as the import's field name. */
export function fieldOf(path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  const parts = path.split('/').filter((p) => p !== '');
  if (parts[0] === 'customFields' && parts[1] !== undefined) return `customField:${parts[1]}`;
  // A template's fields by the columns that hold them (the file has no other name for them).
  if (parts[0] === 'parameterValues') return 'Parameter Values';
  if (parts[0] === 'filledTCaseTitleSuffixParams') return 'Template Suffix Params';
  return parts[0];
}
