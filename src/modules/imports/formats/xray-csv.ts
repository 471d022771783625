import type { Readable } from 'node:stream';
import { readCsv, type CsvRecord } from './csv-read.js';
import type { ImportedCase, ImportedStep, ParsedItem } from './types.js';

/*
 * The CSV of Xray's Test Case Importer (Jira): one row per step, the rows of one issue sharing its Issue ID
 * (consecutive). Columns, by the names Xray's documentation and examples use: Issue ID, Issue Key, Issue Type (Test,
 * or a precondition / test set issue), Test Type (Manual, Cucumber, Generic), Test Summary, Test Priority, Action,
 * Data, Result, Precondition (ids of precondition issues of the file), Description, Gherkin Definition,
 * Unstructured Definition, Test Repo (the folder, `/`-separated), Test Set, Labels. Texts are Markdown (Xray Cloud).
 * A precondition issue's text becomes the precondition of the tests naming it; a test set's summary their tag.
 */

type Role =
  | 'id'
  | 'key'
  | 'issueType'
  | 'testType'
  | 'summary'
  | 'priority'
  | 'action'
  | 'data'
  | 'result'
  | 'precondition'
  | 'description'
  | 'gherkin'
  | 'generic'
  | 'folder'
  | 'testSet'
  | 'labels'
  | 'preconditionType';

const HEADERS: Record<string, Role> = {
  'issue id': 'id',
  'test id': 'id',
  tcid: 'id',
  'issue key': 'key',
  'issue type': 'issueType',
  'test type': 'testType',
  'test summary': 'summary',
  summary: 'summary',
  'test priority': 'priority',
  priority: 'priority',
  action: 'action',
  step: 'action',
  data: 'data',
  result: 'result',
  'expected result': 'result',
  precondition: 'precondition',
  preconditions: 'precondition',
  description: 'description',
  'gherkin definition': 'gherkin',
  'unstructured definition': 'generic',
  'generic definition': 'generic',
  'test repo': 'folder',
  'test repository path': 'folder',
  'test set': 'testSet',
  labels: 'labels',
  'precondition type': 'preconditionType',
};

/** Jira's default priorities, by name or by id (1 Highest … 5 Lowest). */
const PRIORITIES: Record<string, string> = {
  highest: 'high',
  high: 'high',
  medium: 'medium',
  low: 'low',
  lowest: 'low',
  '1': 'high',
  '2': 'high',
  '3': 'medium',
  '4': 'low',
  '5': 'low',
};

export const ROOT_FOLDER = 'Test Repository';

/** Issues of the file that other rows name (preconditions, test sets) beyond which the rest are not kept. */
const MAX_NAMED = 10_000;

/**
 * A cell written as one JSON string literal (` "Click \"Login\""`, as some converters to this layout write every
 * step cell) is read as the string it encodes; any other cell as it is.
 */
function cellText(raw: string | undefined): string {
  const t = (raw ?? '').trim();
  if (t.length >= 2 && t.startsWith('"') && t.endsWith('"')) {
    try {
      const v: unknown = JSON.parse(t);
      if (typeof v === 'string') return v.trim();
    } catch {
      // not JSON: the cell as written
    }
  }
  return t;
}

function fenced(value: string, lang: string): string {
  let fence = '```';
  while (value.includes(fence)) fence += '`';
  return `${fence}${lang}\n${value}\n${fence}`;
}

/** Test Repo's path; a test in no folder is at the repository's root, which Xray calls the Test Repository. */
function folderOf(path: string | undefined): string[] {
  const parts = (path ?? '')
    .split('/')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  return parts.length > 0 ? parts : [ROOT_FOLDER];
}

interface Issue {
  line: number;
  cells: Partial<Record<Role, string>>;
  steps: ImportedStep[];
}

/** Reads an Xray Test Case Importer CSV, one item per test issue (or warning), in file order as it arrives. */
export async function* parseXrayCsv(stream: Readable, separator: string): AsyncGenerator<ParsedItem> {
  let columns: { role: Role; index: number }[] | undefined;
  const preconditions = new Map<string, string>();
  const testSets = new Map<string, string>();
  let current: Issue | undefined;
  let currentId = '';

  const finish = (issue: Issue): ParsedItem | undefined => {
    const c = issue.cells;
    const type = (c.issueType ?? '').toLowerCase().replace(/[\s_-]/g, '');
    const summary = c.summary ?? '';
    const id = currentId;
    if (type === 'precondition' || type === 'testset') {
      const named = type === 'precondition' ? preconditions : testSets;
      const text = type === 'precondition' ? c.description || summary : summary;
      if (id !== '' && named.size < MAX_NAMED) named.set(id, text);
      return undefined;
    }
    if (type !== '' && type !== 'test')
      return {
        warning: {
          row: issue.line,
          field: 'Issue Type',
          message: `a ${c.issueType} issue is not a test case: left out`,
        },
      };
    if (summary === '')
      return { error: { row: issue.line, field: 'Test Summary', message: 'the test has no summary' } };
    const out: ImportedCase = {
      row: issue.line,
      folderPath: folderOf(c.folder),
      title: summary,
      markup: 'markdown',
    };
    if (c.key) out.legacyId = c.key;
    const priority = c.priority ?? '';
    if (priority !== '') out.priority = PRIORITIES[priority.toLowerCase()] ?? priority;
    const tags = (c.labels ?? '').split(/[\s,]+/).filter((t) => t !== '');
    for (const set of (c.testSet ?? '').split(/[,;]/).map((s) => s.trim())) {
      const name = testSets.get(set);
      if (name) tags.push(name);
    }
    if (tags.length > 0) out.tags = [...new Set(tags)];
    const pre: string[] = [];
    if (c.description) pre.push(c.description);
    for (const ref of (c.precondition ?? '')
      .split(/[,;]/)
      .map((s) => s.trim())
      .filter((s) => s !== '')) {
      const text = preconditions.get(ref);
      if (text !== undefined) pre.push(text);
      else if (/^[A-Z][A-Z0-9]*-\d+$/.test(ref)) pre.push(`Precondition ${ref}`);
    }
    if (pre.length > 0) out.precondition = pre.join('\n\n');
    const testType = (c.testType ?? '').toLowerCase();
    if (testType === 'cucumber' && c.gherkin)
      out.steps = [{ description: fenced(c.gherkin, 'gherkin'), expected: '' }];
    else if (testType === 'generic' && c.generic) out.steps = [{ description: c.generic, expected: '' }];
    else if (issue.steps.length > 0) out.steps = issue.steps;
    return { case: out };
  };

  for await (const rec of readCsv(stream, separator) as AsyncIterable<CsvRecord>) {
    if (!columns) {
      columns = [];
      const unknown: string[] = [];
      rec.cells.forEach((h, index) => {
        const role = HEADERS[h.trim().toLowerCase()];
        if (role) columns?.push({ role, index });
        else if (h.trim() !== '') unknown.push(h.trim());
      });
      if (!columns.some((c) => c.role === 'summary'))
        yield {
          error: {
            row: rec.line,
            message: 'not an Xray test case CSV: no "Test Summary" (or "Summary") column',
          },
        };
      if (unknown.length > 0)
        yield {
          warning: {
            row: 0,
            message: `columns not read (Xray's importer maps them to Jira fields): ${unknown.join(', ')}`,
          },
        };
      continue;
    }
    const cells: Partial<Record<Role, string>> = {};
    for (const { role, index } of columns) {
      const v = cellText(rec.cells[index]);
      if (v !== '') cells[role] = v;
    }
    const id = cells.id ?? '';
    // A row continues the issue above when it carries the same Issue ID, or (no Issue ID) no summary.
    const continues = current !== undefined && (id !== '' ? id === currentId : cells.summary === undefined);
    if (!continues) {
      if (current) {
        const item = finish(current);
        if (item) yield item;
      }
      current = { line: rec.line, cells, steps: [] };
      currentId = id;
    } else if (current) {
      for (const [role, v] of Object.entries(cells) as [Role, string][])
        if (role !== 'action' && role !== 'data' && role !== 'result') current.cells[role] ??= v;
    }
    if (current && (cells.action || cells.data || cells.result)) {
      const description = [cells.action ?? '', cells.data ? `Data: ${cells.data}` : ''].filter(
        (p) => p !== '',
      );
      current.steps.push({ description: description.join('\n\n'), expected: cells.result ?? '' });
    }
  }
  if (current) {
    const item = finish(current);
    if (item) yield item;
  }
}
