import { fc } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { sanitizeHtmlField, sanitizeHtmlFieldFully } from './html.js';

// D22: sanitizeHtmlField skips the parser for text without `<`, `>` or `&`; these tests prove that shortcut
// returns exactly what the full sanitiser would.
describe('sanitizeHtmlField', () => {
  it('returns text without <, > or & exactly as the full sanitiser does, for every character of the BMP', () => {
    const differing: string[] = [];
    for (let code = 0; code <= 0xffff; code++) {
      const ch = String.fromCharCode(code);
      // NUL is dropped by both (docs/api-decisions.md#hostile-input): PostgreSQL cannot store it; tested below.
      if ('<>&\u0000'.includes(ch)) continue;
      const text = `a${ch}b ${ch}`;
      if (sanitizeHtmlFieldFully(text) !== text) differing.push(code.toString(16));
    }
    expect(differing).toEqual([]);
  });

  it('returns simple paragraphs (text with bold, italic, underline or code runs) exactly as the full sanitiser does', () => {
    // Tokens that make simple paragraphs and near misses: unclosed, nested, stray and attributed tags.
    const token = fc.constantFrom(
      ...['<p>', '</p>', '<strong>', '</strong>', '<em>', '</em>', '<b>', '</b>', '<code>', '</code>'],
      ...['<u>', '</u>', '<s>', '</s>', '<i>', '</i>', '<p class="x">', '<br>', '<span>', '</span>'],
      ...['a', 'Z', ' ', '  ', '"', "'", '\n', '\t', 'é', '😀', '=', '/', '\u00a0', '*', '_'],
    );
    fc.assert(
      fc.property(fc.array(token, { maxLength: 30 }), (tokens) => {
        const html = tokens.join('');
        expect(sanitizeHtmlField(html)).toBe(sanitizeHtmlFieldFully(html));
      }),
      { numRuns: 5000 },
    );
    // Whole paragraphs, which a random mix of tokens rarely makes.
    const inline = fc
      .tuple(fc.constantFrom('strong', 'em', 'b', 'i', 'u', 's', 'code'), fc.string({ maxLength: 8 }))
      .map(([tag, text]) => `<${tag}>${text}</${tag}>`);
    const paragraph = fc
      .array(fc.oneof(fc.string({ maxLength: 10 }), inline), { maxLength: 6 })
      .map((parts) => `<p>${parts.join('')}</p>`);
    fc.assert(
      fc.property(fc.array(paragraph, { minLength: 1, maxLength: 4 }), (paragraphs) => {
        const html = paragraphs.join('');
        expect(sanitizeHtmlField(html)).toBe(sanitizeHtmlFieldFully(html));
      }),
      { numRuns: 5000 },
    );
  });

  it('cleans long markup in full, short or simple', () => {
    const long = `<p>${'x<b>y</b>'.repeat(20_000)}</p>`;
    expect(sanitizeHtmlField(long)).toBe(long);
    expect(sanitizeHtmlField(`<p>${'x'.repeat(200_000)}<b onclick="x()">y</b></p>`)).toBe(
      `<p>${'x'.repeat(200_000)}<b>y</b></p>`,
    );
  });

  it('drops NUL, with or without markup', () => {
    expect(sanitizeHtmlField('at x()\u0000 line')).toBe('at x() line');
    expect(sanitizeHtmlField('<b>a\u0000</b>')).toBe('<b>a</b>');
    expect(sanitizeHtmlFieldFully('a\u0000b')).toBe('ab');
  });

  it('keeps quotes, whitespace, emoji and long plain text unchanged', () => {
    for (const text of [
      '',
      'say "hi", it\'s fine',
      '  two  spaces\tand\r\nlines ',
      '😀 ünïcödé',
      'x'.repeat(100_000),
    ]) {
      expect(sanitizeHtmlField(text)).toBe(text);
      expect(sanitizeHtmlFieldFully(text)).toBe(text);
    }
  });

  it('still cleans text with markup, entities or a stray >', () => {
    expect(sanitizeHtmlField('<p onclick="x()">hi<script>alert(1)</script></p>')).toBe('<p>hi</p>');
    expect(sanitizeHtmlField('a > b')).toBe('a &gt; b');
    expect(sanitizeHtmlField('fish &amp; chips')).toBe('fish &amp; chips');
    expect(sanitizeHtmlField('<a href="javascript:alert(1)">x</a>')).toBe('<a>x</a>');
  });
});
