import { fc } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { sanitizeHtmlField } from '../../../lib/html.js';
import { htmlToMarkdown, marked, markdownToHtml, turndown } from './markdown.js';

// What the converters answer without the shortcut for plain lines.
const slowToHtml = (md: string) =>
  sanitizeHtmlField((marked.parse(md) as string).trim().replace(/>\n+</g, '><'));

describe('Markdown ↔ HTML', () => {
  it('answers for plain lines exactly what marked, the sanitiser and turndown would', () => {
    const chars = fc.constantFrom(...'aZéß9 ,.;\'"?()%$€£/-Ω'.split(''));
    fc.assert(
      fc.property(fc.array(chars, { minLength: 1, maxLength: 40 }), (parts) => {
        const text = parts.join('');
        const html = markdownToHtml(text);
        expect(html).toBe(slowToHtml(text));
        expect(htmlToMarkdown(html)).toBe(html === '' ? '' : turndown.turndown(html));
      }),
      { numRuns: 2000 },
    );
  });

  it('answers for lines with bold and italic words exactly what marked, the sanitiser and turndown would', () => {
    // Words, spaces, the markers and near misses (markers inside words, unclosed, doubled, next to spaces).
    const token = fc.constantFrom(
      ...['a', 'Zé', '9', ' ', '  ', ',', '.', '"', "'", '(', ')', '-', '/', '%', '€'],
      ...['**', '_', '*', '__', '***', ' **', '** ', ' _', '_ ', '[', '#', '<b>', '&', 'www.', 'WWW.a.de'],
    );
    fc.assert(
      fc.property(fc.array(token, { minLength: 1, maxLength: 24 }), (tokens) => {
        const md = tokens.join('');
        const html = markdownToHtml(md);
        expect(html).toBe(md.trim() === '' ? '' : slowToHtml(md));
        expect(htmlToMarkdown(html)).toBe(html === '' ? '' : turndown.turndown(html));
      }),
      { numRuns: 2000 },
    );
    // Well-formed lines, which a random mix of tokens rarely makes.
    const word = fc.constantFrom(
      'step',
      'Öffnen',
      '2',
      'a/b',
      '(x)',
      '"q"',
      "it's",
      '50%',
      'end.',
      '-',
      'www.a.de',
    );
    const words = fc.array(word, { minLength: 1, maxLength: 3 }).map((w) => w.join(' '));
    const part = fc.oneof(
      words,
      words.map((w) => `**${w}**`),
      words.map((w) => `_${w}_`),
    );
    fc.assert(
      fc.property(fc.array(part, { minLength: 1, maxLength: 5 }), (parts) => {
        const md = parts.join(' ');
        const html = markdownToHtml(md);
        expect(html).toBe(slowToHtml(md));
        expect(htmlToMarkdown(html)).toBe(turndown.turndown(html));
      }),
      { numRuns: 2000 },
    );
    expect(markdownToHtml('A user with **role 1** and _care_')).toBe(
      '<p>A user with <strong>role 1</strong> and <em>care</em></p>',
    );
  });

  it('converts Markdown to sanitised HTML and back to the same Markdown', () => {
    const md = 'A **bold** and _emphasised_ [link](https://example.com/a?b=1)\n\n1. one\n2. two';
    const html = markdownToHtml(md);
    expect(html).toBe(
      '<p>A <strong>bold</strong> and <em>emphasised</em> <a href="https://example.com/a?b=1">link</a></p><ol><li>one</li><li>two</li></ol>',
    );
    expect(markdownToHtml(htmlToMarkdown(html))).toBe(html);
  });

  it('drops what the sanitiser refuses, raw HTML in Markdown included', () => {
    expect(markdownToHtml('Hi <script>alert(1)</script><img src=x onerror=alert(1)>')).not.toMatch(
      /script|onerror/,
    );
  });
});

describe('text that looks like markup', () => {
  it.each([
    '<p>&lt;img src="x" onerror="alert(1)"&gt;</p>',
    '<p>Type &lt;b&gt;bold&lt;/b&gt; into the field</p>',
    '<p>&amp;copy; stays five characters</p>',
    '<ul><li>&lt;script&gt; in a list</li></ul>',
  ])('leaves the export as escaped Markdown and comes back as the same text: %s', (html) => {
    const md = htmlToMarkdown(html);
    expect(md).not.toMatch(/(?<!\\)</);
    expect(markdownToHtml(md)).toBe(html);
  });
});
