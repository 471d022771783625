import { Marked } from 'marked';
import TurndownService from 'turndown';
import { sanitizeHtmlField } from '../../../lib/html.js';

/*
 * QA Sphere writes preconditions, steps and expected results in Markdown; Casebook stores sanitised HTML (D22).
 * marked turns Markdown into HTML (then the house sanitiser cleans it like any other write), turndown turns the
 * stored HTML back into Markdown for exports. HTML → Markdown → HTML gives back the same HTML after the first
 * pass (export then import of a case changes nothing the second time).
 */

/** Exported for the test that proves the shortcut (PLAIN) changes nothing. */
export const marked = new Marked({ gfm: true, breaks: false, async: false });

export const turndown = new TurndownService({
  headingStyle: 'atx',
  codeBlockStyle: 'fenced',
  bulletListMarker: '-',
  emDelimiter: '_',
  strongDelimiter: '**',
});

/**
 * Text that looks like markup (`<img …>`, `&copy;`) is text in the stored HTML (`&lt;img …&gt;`): its Markdown
 * escapes the `<` and the `&` of an entity, so importing the export again gives the same text back, never elements.
 */
const escapeText = turndown.escape.bind(turndown);
turndown.escape = (text: string) =>
  escapeText(text)
    .replace(/</g, '\\<')
    .replace(/&(?=#?[a-z0-9]+;)/gi, '\\&');

/**
 * A line both converters leave as it is: letters, digits, spaces and punctuation that is never Markdown syntax
 * (no `*`, `_`, `[`, `<`, `&`, `:`, `@`…), no `www.` (GFM links it), not starting like a list, heading or code block. Most step texts are
 * such lines; they skip marked, the sanitiser and turndown, which cost far more than the rest of an import or an
 * export. markdown.test.ts checks that the shortcut answers what the converters would.
 */
const PLAIN = /^(?![\s\d+=-])(?!.*\s\s)(?!.*[Ww]{3}\.)[\p{L}\p{N} ,.;'"?()%$€£/-]+(?<!\s)$/u;

/** A line of PLAIN's characters with `**` and `_` too (EMPHASIS decides what they are). */
const PLAIN_MARKED = /^(?![\s\d+=-])(?!.*\s\s)(?!.*[Ww]{3}\.)[\p{L}\p{N} ,.;'"?()%$€£/*_-]+(?<!\s)$/u;
/** Whole words in bold or italic: `**…**` or `_…_` after the start or a space, closed before the end or a space. */
const EMPHASIS = /(?<=^|\s)(\*\*|_)(?!\s)([\p{L}\p{N} ,.;'"?()%$€£/-]+?)(?<!\s)\1(?=$|\s)/gu;

/**
 * A PLAIN line with whole words in bold or italic, as the converters would write it; undefined for anything else
 * (a `*` or `_` left over means other syntax: marked decides). Most QA Sphere steps that are not plain are these.
 */
function emphasisedLine(md: string): string | undefined {
  if (!PLAIN_MARKED.test(md)) return undefined;
  const html = md.replace(EMPHASIS, (_, mark: string, words: string) =>
    mark === '**' ? `<strong>${words}</strong>` : `<em>${words}</em>`,
  );
  return /[*_]/.test(html) ? undefined : `<p>${html}</p>`;
}

/** One paragraph of text and bold or italic runs (what emphasisedLine writes). */
const EMPHASISED_PARAGRAPH = /^<p>(?:[^<>&*_]|<(strong|em)>[^<>&*_]*<\/\1>)*<\/p>$/;

/** Markdown (QA Sphere) → the stored, sanitised HTML; blank text stays "". */
export function markdownToHtml(md: string): string {
  if (md.trim() === '') return '';
  if (PLAIN.test(md)) return `<p>${md}</p>`;
  const emphasised = md.length <= 10_000 ? emphasisedLine(md) : undefined;
  if (emphasised !== undefined) return emphasised;
  // marked puts a new line after every block; the editor's HTML has none between tags.
  const html = (marked.parse(md) as string).trim().replace(/>\n+</g, '><');
  return sanitizeHtmlField(html);
}

/** Stored HTML → Markdown for an export; "" stays "". */
export function htmlToMarkdown(html: string): string {
  if (html.trim() === '') return '';
  const plain = /^<p>([^<>&]*)<\/p>$/.exec(html);
  if (plain && PLAIN.test(plain[1])) return plain[1];
  // Bold and italic words: the Markdown whose conversion gives this HTML back is what turndown writes, unless a
  // text node starts as a list item would (turndown escapes that per node).
  if (html.length <= 10_000 && EMPHASISED_PARAGRAPH.test(html) && !/>(?:-|\d+\. )/.test(html)) {
    const md = html
      .slice(3, -4)
      .replace(/<strong>([^<]*)<\/strong>/g, '**$1**')
      .replace(/<em>([^<]*)<\/em>/g, '_$1_');
    if (emphasisedLine(md) === html) return md;
  }
  return turndown.turndown(html);
}

/** Plain text (a mapped CSV's cells) → stored HTML: one paragraph per line, characters escaped. */
export function textToHtml(text: string): string {
  if (text.trim() === '') return '';
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return text
    .split(/\r?\n/)
    .map((line) => `<p>${esc(line)}</p>`)
    .join('');
}
