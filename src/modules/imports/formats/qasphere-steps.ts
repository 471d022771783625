import type { ImportedStep, RowError } from './types.js';

/*
 * The `Steps` cell QA Sphere's CSV library writes: a JSON array whose items are a step (`description`, `expected`,
 * and `data`: text, link and file items attached to the step), `{"sharedStepId": n}` (one of the project's shared
 * steps) or a shared block (`title` and `subSteps`, each a step with its own `data`). Casebook's steps have no
 * data items, so each is written into the step's description as Markdown: a text as itself (a code block when it
 * has a format), a link as a link, a file as a link to its URL (a warning says so: the file is not copied).
 */

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown) => (typeof v === 'string' ? v : '');

/** A fenced code block that no line of `value` can close early. */
function fenced(value: string, format: string): string {
  let fence = '```';
  while (value.includes(fence)) fence += '`';
  return `${fence}${format.replace(/[`\s]/g, '')}\n${value}\n${fence}`;
}

/** One data item as Markdown, with the warning it needs; undefined for an item without a value. */
function dataOf(item: unknown, where: string): { markdown: string; warning?: string } | undefined {
  if (!isObject(item)) return undefined;
  const label = text(item.label).trim();
  const data = isObject(item.data) ? item.data : {};
  if (item.type === 'link') {
    const url = text(data.value).trim();
    return url === '' ? undefined : { markdown: `[${label || url}](${url})` };
  }
  if (item.type === 'file') {
    const file = isObject(data.value) ? data.value : {};
    const name = text(file.fileName) || text(file.file_name) || text(file.id) || 'a file';
    const url = text(file.url).trim();
    const shown = label ? `${label}: ${name}` : name;
    if (/^https?:\/\//i.test(url))
      return {
        markdown: `[${shown}](${url})`,
        warning: `${where}: file "${name}" is not in this service: kept as a link to its URL in the step`,
      };
    return {
      markdown: shown,
      warning: `${where}: file "${name}" is not in this service and has no http(s) URL: only its name is kept`,
    };
  }
  const value = text(data.value);
  if (value === '') return undefined;
  const format = text(data.format).trim();
  if (format !== '') return { markdown: `${label ? `${label}:\n\n` : ''}${fenced(value, format)}` };
  return { markdown: label ? `${label}: ${value}` : value };
}

/** A step item with its data written into the description. */
function plainStep(item: Json, where: string, warnings: string[]): ImportedStep {
  const parts = [text(item.description)];
  for (const d of Array.isArray(item.data) ? item.data : []) {
    const out = dataOf(d, where);
    if (!out) continue;
    parts.push(out.markdown);
    if (out.warning) warnings.push(out.warning);
  }
  return {
    description: parts.filter((p) => p.trim() !== '').join('\n\n'),
    expected: text(item.expected),
  };
}

const isEmpty = (s: ImportedStep) => !s.shared && s.description.trim() === '' && s.expected.trim() === '';

/** The cell's steps, with warnings; or the error that makes the row unreadable. */
export function stepsOf(
  row: number,
  raw: string,
): { steps: ImportedStep[]; warnings: RowError[] } | { error: RowError } {
  let list: unknown;
  try {
    list = JSON.parse(raw);
  } catch {
    list = undefined;
  }
  if (!Array.isArray(list) || !list.every(isObject))
    return {
      error: {
        row,
        field: 'Steps',
        message:
          'Steps must be a JSON array of steps ({"description", "expected", "data"}), {"sharedStepId"} ' +
          'or shared blocks ({"title", "subSteps"})',
      },
    };
  const warnings: string[] = [];
  const steps: ImportedStep[] = [];
  list.forEach((item, i) => {
    const where = `step ${i + 1}`;
    if (item.sharedStepId !== undefined) {
      const id = item.sharedStepId;
      if (typeof id === 'number' && Number.isInteger(id) && id > 0)
        steps.push({ description: '', expected: '', shared: { id } });
      else warnings.push(`${where}: sharedStepId ${JSON.stringify(id)} is not a shared step's id: left out`);
    } else if (item.title !== undefined || item.subSteps !== undefined) {
      const subSteps = (Array.isArray(item.subSteps) ? item.subSteps : [])
        .filter(isObject)
        .map((s, j) => plainStep(s, `${where}, sub-step ${j + 1}`, warnings))
        .filter((s) => !isEmpty(s));
      steps.push({ description: '', expected: '', shared: { title: text(item.title), subSteps } });
    } else {
      const step = plainStep(item, where, warnings);
      if (!isEmpty(step)) steps.push(step);
    }
  });
  return { steps, warnings: warnings.map((message) => ({ row, field: 'Steps', message })) };
}
