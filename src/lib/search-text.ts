/*
 * The words of full-text search: what text a stored HTML field contributes, how a typed query becomes
 * words, and the highlighted snippets. Both databases are handed the same words, so SQLite (FTS5, unicode61) and
 * PostgreSQL (tsvector, 'simple') find the same cases.
 */

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function decodeEntity(whole: string, name: string): string {
  if (name[0] === '#') {
    const code =
      name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : ' ';
  }
  return ENTITIES[name.toLowerCase()] ?? whole;
}

/** The text a reader sees in stored (sanitised, D22) HTML: tags become spaces, entities their characters. */
export function htmlToText(html: string): string {
  return html
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(#[0-9]+|#[xX][0-9a-fA-F]+|[a-zA-Z]+);/g, decodeEntity)
    .replace(/\s+/g, ' ')
    .trim();
}

/** Lower case without diacritics (é → e, ü → u), as FTS5's `remove_diacritics 2` compares. */
export const fold = (text: string): string =>
  text
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .normalize('NFC')
    .toLowerCase();

/** Letters and digits in a row: one word. Everything else (`"`, `*`, `-`, `OR`'s spaces) only separates words. */
const WORD = /[\p{L}\p{N}]+/gu;

/** The folded words of a text, in order. */
export const wordsOf = (text: string): string[] => fold(text).match(WORD) ?? [];

/** At most this many words of a query count: a pasted page is not a search. */
export const QUERY_WORDS_MAX = 16;

export interface TextQuery {
  /** Folded words, all required; the last one also matches as a prefix (typing). */
  words: string[];
  /** A case number the query names (`SHOP-5`, `shop-005`, `5`). */
  seq?: number;
}

/** Reads a `q`: the identifier forms of this project's code, and the words. */
export function parseTextQuery(q: string, projectCode: string): TextQuery {
  const words = wordsOf(q).slice(0, QUERY_WORDS_MAX);
  const m = /^\s*#?(?:([\p{L}\p{N}]+)-)?0*(\d{1,9})\s*$/u.exec(q);
  const seq =
    m && (m[1] === undefined || m[1].toUpperCase() === projectCode.toUpperCase()) ? Number(m[2]) : 0;
  return seq > 0 ? { words, seq } : { words };
}

const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot', "'": '#39' }[c]};`);

/** Where the query's words occur in a text: [start, end) of each matching word. */
function matchRanges(text: string, words: string[]): [number, number][] {
  if (words.length === 0) return [];
  const exact = new Set(words);
  const prefix = words[words.length - 1];
  const out: [number, number][] = [];
  for (const m of text.matchAll(/[\p{L}\p{N}\p{M}]+/gu)) {
    const w = fold(m[0]);
    if (exact.has(w) || w.startsWith(prefix)) out.push([m.index, m.index + m[0].length]);
  }
  return out;
}

/** Escaped HTML of text[from, to) with the matching words in <mark>: nothing else of the text is markup. */
function marked(text: string, ranges: [number, number][], from: number, to: number): string {
  let out = '';
  let at = from;
  for (const [s, e] of ranges) {
    if (s < from || e > to) continue;
    out += escapeHtml(text.slice(at, s)) + '<mark>' + escapeHtml(text.slice(s, e)) + '</mark>';
    at = e;
  }
  return out + escapeHtml(text.slice(at, to));
}

/** Characters of context around the first match in a snippet of the body. */
const SNIPPET_BEFORE = 40;
const SNIPPET_LENGTH = 160;

/**
 * The highlighted title (whole) and a snippet of the body around its first match, each only when it matches.
 * Escaped HTML whose only tags are <mark> and </mark>.
 */
export function highlight(
  title: string,
  body: string,
  words: string[],
): { title?: string; text?: string } | undefined {
  const out: { title?: string; text?: string } = {};
  const inTitle = matchRanges(title, words);
  if (inTitle.length > 0) out.title = marked(title, inTitle, 0, title.length);
  const inBody = matchRanges(body, words);
  if (inBody.length > 0) {
    let from = Math.max(0, inBody[0][0] - SNIPPET_BEFORE);
    // Start at a word boundary, not mid-word.
    if (from > 0) from = body.indexOf(' ', from) + 1 || from;
    let to = Math.min(body.length, from + SNIPPET_LENGTH);
    if (to < body.length) to = body.lastIndexOf(' ', to) > from ? body.lastIndexOf(' ', to) : to;
    out.text = (from > 0 ? '… ' : '') + marked(body, inBody, from, to) + (to < body.length ? ' …' : '');
  }
  return out.title === undefined && out.text === undefined ? undefined : out;
}
