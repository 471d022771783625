import sanitizeHtml from 'sanitize-html';

/** Targets that stay in the same browsing context; any other target may open a new window. */
const SAME_WINDOW = new Set(['', '_self', '_parent', '_top']);

/**
 * A link that may open a new window never hands that window a reference back to this page (reverse
 * tabnabbing): whatever `rel` it came with, it leaves with `noopener noreferrer`.
 */
function noOpener(tagName: string, attribs: sanitizeHtml.Attributes): sanitizeHtml.Tag {
  const target = (attribs.target ?? '').trim().toLowerCase();
  if (SAME_WINDOW.has(target)) return { tagName, attribs };
  return { tagName, attribs: { ...attribs, rel: 'noopener noreferrer' } };
}

/**
 * D22: the one allow-list for every `html` field — text formatting, lists, tables, code, links and
 * images with http, https or mailto URLs. Scripts, event handlers, `javascript:` URLs and styles never survive.
 */
const OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [
    'p',
    'br',
    'hr',
    'div',
    'span',
    'b',
    'strong',
    'i',
    'em',
    'u',
    's',
    'strike',
    'del',
    'ins',
    'mark',
    'sub',
    'sup',
    'small',
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'blockquote',
    'ul',
    'ol',
    'li',
    'dl',
    'dt',
    'dd',
    'table',
    'thead',
    'tbody',
    'tfoot',
    'tr',
    'th',
    'td',
    'caption',
    'colgroup',
    'col',
    'code',
    'pre',
    'kbd',
    'samp',
    'a',
    'img',
  ],
  allowedAttributes: {
    a: ['href', 'title', 'target', 'rel'],
    img: ['src', 'alt', 'title', 'width', 'height'],
    th: ['colspan', 'rowspan'],
    td: ['colspan', 'rowspan'],
    ol: ['start'],
    code: ['class'],
    pre: ['class'],
  },
  allowedClasses: { code: [/^language-[\w-]+$/], pre: [/^language-[\w-]+$/] },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: { img: ['http', 'https'] },
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  transformTags: { a: noOpener },
};

/** Markup starts with `<`; entities with `&`; a stray `>` is escaped. Text with none of them is left as it is. */
const MAY_CHANGE = /[<>&]/;
// eslint-disable-next-line no-control-regex -- NUL is exactly what is removed
const NULS = /\u0000/g;

/**
 * Paragraphs of text with bold, italic, underline or code runs and nothing else (no attribute, entity or nesting):
 * what the editor writes for most steps, and what an import's Markdown becomes. The sanitiser gives it back as it
 * is, so it skips the parser, as plain text does: the parser was a fifth of a large import's time.
 */
const SIMPLE_PARAGRAPHS = /^(?:<p>(?:[^<>&]|<(strong|em|b|i|u|s|code)>[^<>&]*<\/\1>)*<\/p>)+$/;
/** Longer markup goes through the parser: the expression's backtracking stack overflows at a few megabytes. */
const SIMPLE_MAX = 100_000;

/**
 * D22: cleans an html field with the allow-list above. Text without `<`, `>` or `&` (most titles, comments
 * and step texts) and simple paragraphs (SIMPLE_PARAGRAPHS) come out of the sanitiser unchanged, so they skip the
 * parser: html.test.ts checks that equivalence character by character and on generated markup.
 */
export function sanitizeHtmlField(html: string): string {
  // docs/api-decisions.md#hostile-input: NUL cannot be stored on PostgreSQL; html fields are free text, so it is dropped, not refused.
  if (html.includes('\u0000')) html = html.replace(NULS, '');
  if (!MAY_CHANGE.test(html) || (html.length <= SIMPLE_MAX && SIMPLE_PARAGRAPHS.test(html))) return html;
  return sanitizeHtml(html, OPTIONS);
}

/** The sanitiser without the shortcut, for the test that proves the shortcut changes nothing. */
export const sanitizeHtmlFieldFully = (html: string): string => sanitizeHtml(html.replace(NULS, ''), OPTIONS);
