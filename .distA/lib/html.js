import sanitizeHtml from 'sanitize-html';
/**
 * D22: the one allow-list for every `html` field — text formatting, lists, tables, code, links and
 * images with http, https or mailto URLs. Scripts, event handlers, `javascript:` URLs and styles never survive.
 */
const OPTIONS = {
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
};
/** Markup starts with `<`; entities with `&`; a stray `>` is escaped. Text with none of them is left as it is. */
const MAY_CHANGE = /[<>&]/;
/**
 * D22: cleans an html field with the allow-list above. Text without `<`, `>` or `&` (most titles, comments
 * and step texts) comes out of the sanitiser unchanged, so it skips the parser: html.test.ts checks that
 * equivalence character by character.
 */
export function sanitizeHtmlField(html) {
    if (!MAY_CHANGE.test(html))
        return html;
    return sanitizeHtml(html, OPTIONS);
}
/** The sanitiser without the shortcut, for the test that proves the shortcut changes nothing. */
export const sanitizeHtmlFieldFully = (html) => sanitizeHtml(html, OPTIONS);
//# sourceMappingURL=html.js.map