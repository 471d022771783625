/**
 * The content of one test-case version (D15) as stored in `tcase_versions`, and the pure rules on it:
 * template placeholders, the filled-case title suffix, emptiness and "did anything versioned change".
 */
import type { Priority, VersionField } from '../test-cases.schemas.js';

export type StepRef = { type: 'standalone'; id: number } | { type: 'shared'; id: number; version: number };
export type PreconditionRef =
  { type: 'standalone'; id: number } | { type: 'shared'; id: number; version: number };
export interface Link {
  text: string;
  url: string;
}
/** A stored custom-field value (custom-fields.schemas.ts StoredCustomFieldValue). */
export interface CustomFieldValue {
  value: string;
  isDefault: boolean;
  fieldId?: string;
}
/** Templates keep their title-suffix parameters; filled cases keep the values they were filled with. */
export interface TemplateData {
  suffixParams?: string[];
  values?: Record<string, string>;
}

/** Everything versioned about a test case, with standalone steps and preconditions referenced by id. */
export interface Stored {
  title: string;
  priority: Priority;
  /** The precondition text at this version (mirrored to the deprecated `comment`). */
  comment: string;
  isEmpty: boolean;
  precondition: PreconditionRef;
  steps: StepRef[];
  tagIds: number[];
  requirementIds: string[];
  links: Link[];
  customFields: Record<string, CustomFieldValue>;
  fileIds: string[];
  templateData: TemplateData;
}

/** What a write asks for, before standalone steps and preconditions have ids. */
export type StepSpec =
  | { type: 'standalone'; description: string; expected: string }
  | { type: 'shared'; id: number; version: number };
export type PreconditionSpec =
  { type: 'standalone'; text: string } | { type: 'shared'; id: number; version: number; text: string };
export interface Spec {
  title: string;
  priority: Priority;
  precondition: PreconditionSpec;
  steps: StepSpec[];
  tagIds: number[];
  requirementIds: string[];
  links: Link[];
  customFields: Record<string, CustomFieldValue>;
  fileIds: string[];
  templateData: TemplateData;
}

const sortKeys = <T>(record: Record<string, T>): Record<string, T> =>
  Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/** D15: two contents are the same version when every versioned property is equal. */
export function sameContent(a: Stored, b: Stored): boolean {
  const key = (s: Stored) =>
    JSON.stringify([
      s.title,
      s.priority,
      s.comment,
      s.precondition,
      s.steps,
      s.tagIds,
      s.requirementIds,
      s.links,
      // The field id a value remembers is not content: the same value of the same field either way.
      Object.entries(sortKeys(s.customFields)).map(([k, v]) => [k, v.value, v.isDefault]),
      s.fileIds,
      {
        suffixParams: s.templateData.suffixParams,
        values: s.templateData.values && sortKeys(s.templateData.values),
      },
    ]);
  return key(a) === key(b);
}

/** The parts of a stored content that `changedFields` compares, one comparable key each, in the API's order. */
const FIELD_KEYS: [VersionField, (s: Stored) => unknown][] = [
  ['title', (s) => s.title],
  ['priority', (s) => s.priority],
  // A shared precondition's text at its version is kept in `comment`: a new version of it is a change.
  ['precondition', (s) => [s.precondition, s.comment]],
  // Standalone steps keep their ids while their text stays (D15): the references tell a changed step.
  ['steps', (s) => s.steps],
  ['tags', (s) => [...s.tagIds].sort((a, b) => a - b)],
  ['requirements', (s) => [...s.requirementIds].sort()],
  ['links', (s) => s.links],
  [
    'customFields',
    (s) => Object.entries(sortKeys(s.customFields)).map(([k, v]) => [k, v.value, v.isDefault]),
  ],
  ['files', (s) => s.fileIds],
  [
    'parameterValues',
    (s) => ({
      suffixParams: s.templateData.suffixParams,
      values: s.templateData.values && sortKeys(s.templateData.values),
    }),
  ],
];

/** The versioned fields whose content differs between two versions (docs/api-decisions.md#test-case-version-history). */
export const changedFields = (before: Stored, after: Stored): VersionField[] =>
  FIELD_KEYS.filter(([, key]) => JSON.stringify(key(before)) !== JSON.stringify(key(after))).map(
    ([name]) => name,
  );

/** True when HTML shows nothing: no text once tags and non-breaking spaces are gone, and no image. */
export function isBlankHtml(html: string): boolean {
  if (/<img\b/i.test(html)) return false;
  return (
    html
      .replace(/<[^>]*>/g, '')
      .replace(/&nbsp;|&#160;/gi, ' ')
      .trim() === ''
  );
}

const PLACEHOLDER = /\$\{([^{}]+)\}/g;

/** The `${name}` placeholders of the given texts, each once, in order of appearance. */
export function placeholdersOf(texts: string[]): string[] {
  const names = new Set<string>();
  for (const text of texts) for (const m of text.matchAll(PLACEHOLDER)) names.add(m[1]);
  return [...names];
}

/** Replaces every `${name}` that has a value; others stay as written. */
export function fillPlaceholders(text: string, values: Record<string, string>): string {
  return text.replace(PLACEHOLDER, (whole, name: string) =>
    Object.prototype.hasOwnProperty.call(values, name) ? values[name] : whole,
  );
}

/** The texts of a template spec that may hold placeholders: title, standalone precondition and steps. */
export function templateTexts(spec: Spec): string[] {
  const texts = [spec.title];
  if (spec.precondition.type === 'standalone') texts.push(spec.precondition.text);
  for (const s of spec.steps) if (s.type === 'standalone') texts.push(s.description, s.expected);
  return texts;
}

/** ` [v1, v2]`: the values of the template's suffix parameters appended to a filled title. */
export function titleSuffix(suffixParams: string[], values: Record<string, string>): string {
  if (suffixParams.length === 0) return '';
  return ` [${suffixParams.map((p) => values[p] ?? '').join(', ')}]`;
}
