/**
 * The browser's own pass over stored HTML before it is shown: the service sanitises every html field
 * on write (D22), and this keeps the page safe even from HTML that reached the database another way (an older
 * version, a restored backup, a direct write). The same allow-list as src/lib/html.ts: text formatting, lists,
 * tables, code, links (http, https, mailto) and images (http, https). Everything is parsed in an inert document
 * (nothing runs, nothing loads) and copied element by element into new nodes: never parsed again, so no markup
 * can change meaning between the check and the page.
 */

const ALLOWED: Record<string, readonly string[]> = {
  p: [],
  br: [],
  hr: [],
  div: [],
  span: [],
  b: [],
  strong: [],
  i: [],
  em: [],
  u: [],
  s: [],
  strike: [],
  del: [],
  ins: [],
  mark: [],
  sub: [],
  sup: [],
  small: [],
  h1: [],
  h2: [],
  h3: [],
  h4: [],
  h5: [],
  h6: [],
  blockquote: [],
  ul: [],
  ol: ['start'],
  li: [],
  dl: [],
  dt: [],
  dd: [],
  table: [],
  thead: [],
  tbody: [],
  tfoot: [],
  tr: [],
  th: ['colspan', 'rowspan'],
  td: ['colspan', 'rowspan'],
  caption: [],
  colgroup: [],
  col: [],
  code: ['class'],
  pre: ['class'],
  kbd: [],
  samp: [],
  a: ['href', 'title', 'target', 'rel'],
  img: ['src', 'alt', 'title', 'width', 'height'],
};

/** Dropped with everything inside them (the rest of the unknown elements are dropped, their text kept). */
const DROPPED_WITH_CONTENT = new Set([
  'script',
  'style',
  'template',
  'noscript',
  'textarea',
  'option',
  'select',
  'title',
  'iframe',
  'frame',
  'frameset',
  'object',
  'embed',
  'applet',
  'svg',
  'math',
  'xmp',
  'noembed',
  'noframes',
  'plaintext',
  'head',
]);

const SCHEMES: Record<string, readonly string[]> = {
  href: ['http', 'https', 'mailto'],
  src: ['http', 'https'],
};

const LANGUAGE_CLASS = /^language-[\w-]+$/;
const SAME_WINDOW = new Set(['', '_self', '_parent', '_top']);

/** An http(s)/mailto URL, or a relative one (not protocol-relative); anything else (javascript:, data:) is not. */
function urlAllowed(attribute: 'href' | 'src', value: string): boolean {
  // Browsers ignore control characters and spaces in a scheme: "java\tscript:" is javascript:.
  // eslint-disable-next-line no-control-regex
  const compact = value.replace(/[\u0000-\u0020\u007f]/g, '');
  if (compact.startsWith('//') || compact.startsWith('\\')) return false;
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(compact);
  if (!scheme) return !/^[^/?#]*:/.test(compact);
  return SCHEMES[attribute].includes(scheme[1].toLowerCase());
}

/** A link the page keeps: the editor offers only these, so what is typed is what is shown after saving. */
export const hrefAllowed = (value: string): boolean => urlAllowed('href', value);

function copyElement(source: Element, doc: Document): Element {
  const tag = source.localName;
  const out = doc.createElement(tag);
  for (const name of ALLOWED[tag]) {
    const value = source.getAttribute(name);
    if (value === null) continue;
    if ((name === 'href' || name === 'src') && !urlAllowed(name, value)) continue;
    if (name === 'class') {
      const kept = value.split(/\s+/).filter((c) => LANGUAGE_CLASS.test(c));
      if (kept.length > 0) out.setAttribute('class', kept.join(' '));
      continue;
    }
    out.setAttribute(name, value);
  }
  // A link that may open a new window never gets a reference back to this page.
  if (tag === 'a' && !SAME_WINDOW.has((out.getAttribute('target') ?? '').trim().toLowerCase())) {
    out.setAttribute('rel', 'noopener noreferrer');
  }
  return out;
}

function copyChildren(from: Node, to: Node, doc: Document): void {
  for (const child of Array.from(from.childNodes)) {
    if (child.nodeType === Node.TEXT_NODE) {
      to.appendChild(doc.createTextNode(child.textContent ?? ''));
    } else if (child.nodeType === Node.ELEMENT_NODE) {
      const el = child as Element;
      // Only HTML elements: an element of SVG or MathML is never copied, whatever its name.
      const html = el.namespaceURI === 'http://www.w3.org/1999/xhtml';
      if (!html || DROPPED_WITH_CONTENT.has(el.localName)) continue;
      if (Object.hasOwn(ALLOWED, el.localName)) {
        const copy = copyElement(el, doc);
        copyChildren(el, copy, doc);
        to.appendChild(copy);
      } else {
        copyChildren(el, to, doc);
      }
    }
    // Comments, processing instructions and the rest are dropped.
  }
}

/** The allowed part of `html` as new nodes of `doc`, ready to be put in the page. */
export function sanitizedFragment(html: string, doc: Document = document): DocumentFragment {
  const fragment = doc.createDocumentFragment();
  if (!html) return fragment;
  const parsed = new DOMParser().parseFromString(html, 'text/html');
  copyChildren(parsed.body, fragment, doc);
  return fragment;
}
