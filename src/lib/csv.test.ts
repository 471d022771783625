import { describe, expect, it } from 'vitest';
import { csvCell, toCsv } from './csv.js';

describe('csv', () => {
  it.each(['=1+1', '+1', '-cmd', '@SUM(A1)', '\tx', '\rx'])(
    'prefixes the text cell %j with an apostrophe so a spreadsheet does not run it',
    (text) => {
      expect(csvCell(text).replace(/^"|"$/g, '')).toBe(`'${text}`);
    },
  );

  it('writes numbers unformatted and unprefixed, even negative ones', () => {
    expect(csvCell(-3)).toBe('-3');
    expect(csvCell(0.5)).toBe('0.5');
    expect(csvCell(1234567)).toBe('1234567');
  });

  it('quotes cells with commas, quotes or line breaks and doubles inner quotes', () => {
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell('=a,b')).toBe(`"'=a,b"`);
  });

  it('writes empty cells for null and undefined, and a header row then one CRLF line per row', () => {
    expect(
      toCsv(
        ['a', 'b'],
        [
          [1, null],
          ['x', undefined],
        ],
      ),
    ).toBe('a,b\r\n1,\r\nx,\r\n');
    expect(toCsv(['only'], [])).toBe('only\r\n');
  });
});
