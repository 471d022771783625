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
 * TestRail's default priorities (Critical, High, Medium, Low; also `1 - Critical` as some instances label them) as
 * Casebook's; a priority a TestRail admin added is passed on as written, for the pipeline to report.
 */
export function mapPriority(text: string): string | undefined {
  const t = text.trim();
  if (t === '') return undefined;
  const word = t.replace(/^\d+\s*-\s*/, '').toLowerCase();
  return PRIORITIES[word] ?? t;
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
