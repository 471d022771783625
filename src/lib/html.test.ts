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
