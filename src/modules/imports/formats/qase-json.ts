import { JSONParser } from '@streamparser/json';
import { customFieldName, textChunks, type TextInput } from './testrail-common.js';
import type { ImportedCase, ImportedStep, ParsedItem } from './types.js';

/*
 * Qase's JSON export of a project (the shape its import reads too):
 *
 *   {"suites": [{"id": 1, "title": "Auth", "description": …, "preconditions": …,
 *     "suites": [… nested …],
 *     "cases": [{"id": 7, "title": …, "description": …, "preconditions": …, "postconditions": …,
 *       "priority": "high", "severity": "major", "type": "functional", "status": "draft", …,
 *       "steps": [{"position": 1, "action": …, "data": …, "expected_result": …, "steps": [nested]}],
 *       "tags": ["smoke"], "custom_fields": [{"id": 3, "title": "Browser", "value": "Chrome"}]}]}]}
 *
 * Read streaming (@streamparser/json): only the cases and the suites' titles are emitted, each case dropped once
 * read, so memory holds one case at a time whatever the file's size. Texts are Markdown.
 */

export class JsonFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JsonFileError';
  }
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string =>
  typeof v === 'string' ? v.trim() : typeof v === 'number' || typeof v === 'boolean' ? String(v) : '';

/** Nesting of suites beyond which cases are not looked for (and would be held in memory): deeper is refused. */
const MAX_DEPTH = 24;
/** Qase's default priorities; "not set" is none; another one (a workspace's own) is passed on as written. */
const PRIORITIES: Record<string, string> = { high: 'high', medium: 'medium', low: 'low', 'not set': '' };
/** Qase types that say nothing about a case, not kept as tags. */
const NO_TYPE = new Set(['', 'other', 'not set', 'undefined']);
/** Qase's system fields that Casebook's cases have no place for, reported once per file when a case sets them. */
const LEFT_OUT: Record<string, Set<string>> = {
  behavior: new Set(['', 'not set', 'undefined']),
  layer: new Set(['', 'not set', 'unknown']),
  is_flaky: new Set(['', 'no', '0', 'false']),
  automation: new Set(['', 'is-not-automated', 'not set']),
};

function pathsFor(prefix: string): string[] {
  const out: string[] = [];
  let suite = prefix;
  for (let d = 0; d < MAX_DEPTH; d++) {
    suite += '.suites.*';
    out.push(`${suite}.cases.*`, `${suite}.title`);
  }
  out.push(`${suite}.suites.*.id`);
  return out;
}

/** The suites' indices on the way to a value (`0/2`): what names a suite whose title came before. */
function suitePath(stack: { key?: unknown }[]): string {
  const idx: string[] = [];
  for (let i = 1; i < stack.length; i++)
    if (stack[i - 1].key === 'suites' && typeof stack[i].key === 'number') idx.push(String(stack[i].key));
  return idx.join('/');
}

function stepsOf(items: unknown, out: ImportedStep[]): void {
  if (!Array.isArray(items)) return;
  const sorted = items
    .filter(isObject)
    .map((s, i) => ({ s, n: typeof s.position === 'number' ? s.position : i + 1 }))
    .sort((a, b) => a.n - b.n);
  for (const { s } of sorted) {
    const data = str(s.data);
    const description = [str(s.action), data === '' ? '' : `Data: ${data}`]
      .filter((p) => p !== '')
      .join('\n\n');
    const expected = str(s.expected_result);
    if (description !== '' || expected !== '') out.push({ description, expected });
    // Qase's nested steps follow their parent, one step each.
    stepsOf(s.steps, out);
  }
}

function toItem(v: unknown, row: number, folderPath: string[], leftOut: Set<string>): ParsedItem {
  if (!isObject(v)) return { error: { row, message: 'the case is not a JSON object' } };
  const title = str(v.title);
  if (title === '') return { error: { row, field: 'title', message: 'the case has no title' } };
  const c: ImportedCase = { row, folderPath, title, markup: 'markdown' };
  const id = str(v.id);
  if (id !== '') c.legacyId = id;
  const priority = str(v.priority).toLowerCase();
  const mapped = PRIORITIES[priority] ?? str(v.priority);
  if (mapped !== '') c.priority = mapped;
  const tags = (Array.isArray(v.tags) ? v.tags : [])
    .map((t) => (isObject(t) ? str(t.title) : str(t)))
    .filter((t) => t !== '');
  const type = str(v.type);
  if (!NO_TYPE.has(type.toLowerCase())) tags.push(type);
  if (tags.length > 0) c.tags = [...new Set(tags)];
  if (str(v.status).toLowerCase() === 'draft') c.draft = true;
  const post = str(v.postconditions);
  const pre = [str(v.description), str(v.preconditions), post === '' ? '' : `**Postconditions**\n\n${post}`];
  if (pre.some((p) => p !== '')) c.precondition = pre.filter((p) => p !== '').join('\n\n');
  const steps: ImportedStep[] = [];
  stepsOf(v.steps, steps);
  if (steps.length > 0) c.steps = steps;
  const customFields: Record<string, string> = {};
  const severity = str(v.severity);
  if (severity !== '' && severity.toLowerCase() !== 'not set' && severity.toLowerCase() !== 'undefined')
    customFields.severity = severity;
  for (const f of Array.isArray(v.custom_fields) ? v.custom_fields : []) {
    if (!isObject(f)) continue;
    const name = customFieldName(str(f.title) || str(f.name) || (str(f.id) && `field_${str(f.id)}`));
    const value = str(f.value);
    if (name !== '' && value !== '') customFields[name] = value;
  }
  if (Object.keys(customFields).length > 0) c.customFields = customFields;
  for (const [field, none] of Object.entries(LEFT_OUT))
    if (!none.has(str(v[field]).toLowerCase())) leftOut.add(field);
  return { case: c };
}

/**
 * Reads a Qase JSON export, yielding each case (or why it cannot be read) in file order as the file arrives; the
 * folder path is the titles of the enclosing suites. Throws JsonFileError for a file that is not JSON, is cut short,
 * or nests suites deeper than MAX_DEPTH.
 */
export async function* parseQaseJson(input: TextInput): AsyncGenerator<ParsedItem> {
  const ready: ParsedItem[] = [];
  const titles = new Map<string, string>();
  const leftOut = new Set<string>();
  let row = 0;
  let failure: Error | undefined;
  const parser = new JSONParser({
    paths: [...pathsFor('$'), '$.cases.*'],
    keepStack: false,
  });
  parser.onError = (err) => {
    failure ??= err;
  };
  parser.onValue = ({ value, key, stack }) => {
    const path = suitePath(stack);
    if (key === 'title') {
      titles.set(path, str(value));
      return;
    }
    if (key === 'id') {
      failure ??= new JsonFileError(`suites are nested more than ${MAX_DEPTH} deep`);
      return;
    }
    const parts = path === '' ? [] : path.split('/');
    const folderPath = parts
      .map((_, i) => titles.get(parts.slice(0, i + 1).join('/')) ?? '')
      .filter((t) => t !== '');
    ready.push(toItem(value, ++row, folderPath, leftOut));
  };
  const fail = (err: Error): never => {
    if (err instanceof JsonFileError) throw err;
    throw new JsonFileError(`not valid JSON: ${err.message}`);
  };
  for await (const chunk of textChunks(input)) {
    if (parser.isEnded) {
      if (chunk.trim() !== '') fail(new Error('text follows the end of the JSON document'));
      continue;
    }
    parser.write(chunk);
    if (failure) fail(failure);
    yield* ready.splice(0);
  }
  if (!parser.isEnded) parser.end();
  if (failure) fail(failure);
  if (row === 0 && titles.size === 0)
    throw new JsonFileError('not a Qase JSON export: no "suites" with cases (nor "cases") found');
  yield* ready.splice(0);
  if (leftOut.size > 0)
    yield {
      warning: {
        row: 0,
        message: `Qase's ${[...leftOut].join(', ')} ${leftOut.size === 1 ? 'has' : 'have'} no place in Casebook's test cases: left out`,
      },
    };
}
