import type { ImportedCase } from './types.js';

/*
 * What TestRail's XML and CSV exports share: priorities, references, case ids, the names of custom fields, and the
 * way an input (a whole text, or a stream of chunks) is read as text.
 */

/** A parser's input: a text, or chunks as they arrive (a file stream, a multipart part). */
export type TextInput = string | AsyncIterable<string | Uint8Array>;

/** The input as text chunks; bytes are UTF-8 (a character cut between chunks is joined), a leading BOM dropped. */
export async function* textChunks(input: TextInput): AsyncGenerator<string> {
  if (typeof input === 'string') {
    yield input.replace(/^\uFEFF/, '');
    return;
  }
  const decoder = new TextDecoder('utf-8');
  let first = true;
  for await (const chunk of input) {
    let text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    if (first && text !== '') {
      text = text.replace(/^\uFEFF/, '');
      first = false;
    }
    if (text !== '') yield text;
  }
  const rest = decoder.decode();
  if (rest !== '') yield rest;
}

const PRIORITIES: Record<string, string> = { critical: 'high', high: 'high', medium: 'medium', low: 'low' };

/**
 * A priority word as Casebook's, by `words` (default TestRail's: Critical, High, Medium, Low; also `1 - Critical` as
 * some instances label them); one the table lacks (a priority a TestRail admin added) is passed on as written, for
 * the pipeline to report.
 */
export function mapPriority(text: string, words: Record<string, string> = PRIORITIES): string | undefined {
  const t = text.trim();
  if (t === '') return undefined;
  const word = t.replace(/^\d+\s*-\s*/, '').toLowerCase();
  return words[word] ?? t;
}

/** `References`: comma-separated keys (`RF-1, RF-2`) or URLs, each one requirement. */
export function mapReferences(text: string): ImportedCase['requirements'] {
  const refs = text
    .split(/[,\n]/)
    .map((r) => r.trim())
    .filter((r) => r !== '');
  if (refs.length === 0) return undefined;
  return refs.map((r) => (/^https?:\/\//i.test(r) ? { text: '', url: r } : { text: r, url: '' }));
}

/** TestRail's case id as the legacy id: `C123` (the export writes it so; a bare `123` gets its `C`). */
export function legacyIdOf(id: string): string | undefined {
  const t = id.trim();
  if (t === '') return undefined;
  return /^\d+$/.test(t) ? `C${t}` : t;
}

/** A custom field's name as its system name: `custom_automation_type` and `Automation Type` → `automation_type`. */
export function customFieldName(name: string): string {
  return name
    .trim()
    .replace(/^custom_/i, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

/** Whether a piece of text is empty once trimmed. */
export const blank = (s: string | undefined): boolean => s === undefined || s.trim() === '';

/**
 * A text as its author wrote it: TestRail's XML export indents every line after the first to the depth of its
 * element, which Markdown would read as a code block. The whitespace all non-blank lines after the first share is
 * removed (the first starts right after the tag, so it has none of it), then blank lines at either end and the
 * first line's leading spaces. Indentation within the text (a nested list, a code block) stays.
 */
export function dedent(text: string): string {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  let common: string | undefined;
  for (const line of lines.slice(1)) {
    if (line.trim() === '') continue;
    const lead = /^[ \t]*/.exec(line)?.[0] ?? '';
    if (common === undefined) common = lead;
    else {
      let n = 0;
      while (n < common.length && n < lead.length && common[n] === lead[n]) n++;
      common = common.slice(0, n);
    }
    if (common === '') break;
  }
  const cut = common ?? '';
  const out = lines.map((line, i) => {
    if (i === 0) return line.trimStart();
    if (line.trim() === '') return '';
    return line.slice(cut.length);
  });
  return out.join('\n').replace(/^\n+/, '').trimEnd();
}
