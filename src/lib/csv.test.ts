import { fc } from '@fast-check/vitest';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { csvCell, guardFormulas, toCsv, unguardFormulas } from './csv.js';

/** Text made of what the guard reacts to: formula characters, quotes, separators, tabs, line breaks. */
const hostileText = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        '=',
        '+',
        '-',
        '@',
        '\t',
        '\r',
        '\n',
        '\r\n',
        "'",
        "''",
        '"',
        ';',
        ',',
        ' ',
        'a',
        '1',
        'é',
      ),
      fc.string({ maxLength: 4 }),
    ),
    { maxLength: 12 },
  )
  .map((parts) => parts.join(''));

/** A part a spreadsheet would start a cell with: at the start or after `;`, `,` or tab, then a formula character. */
const RUNNABLE = /(?:^|[;,\t])[=+\-@\t\r]/;

describe('csv', () => {
  it.each(['=1+1', '+1', '-cmd', '@SUM(A1)', '\tx', '\rx'])(
    'prefixes the text cell %j with an apostrophe so a spreadsheet does not run it',
    (text) => {
      expect(csvCell(text).replace(/^"|"$/g, '')).toBe(`'${text}`);
    },
  );

  it('guards every part after ; , or tab, where spreadsheets of other locales start a new cell', () => {
    expect(csvCell('Plain;=2+3;@SUM(1;1)')).toBe("Plain;'=2+3;'@SUM(1;1)");
    expect(csvCell('a,=1+1')).toBe(`"a,'=1+1"`);
    expect(csvCell('x\t-2+3')).toBe("x\t'-2+3");
    expect(csvCell('\t=1')).toBe("'\t'=1");
    expect(csvCell('a; b,c')).toBe('"a; b,c"');
  });

  it('guards text that is already apostrophes before a formula character, and leaves other apostrophes alone', () => {
    expect(guardFormulas("'=x")).toBe("''=x");
    expect(guardFormulas("a;''@x")).toBe("a;'''@x");
    expect(guardFormulas("don't")).toBe("don't");
    expect(guardFormulas("'quoted', 'words'")).toBe("'quoted', 'words'");
    expect(guardFormulas("x,'")).toBe("x,'");
  });

  it('takes off exactly the apostrophe it added, so guarded text comes back as it was', () => {
    fc.assert(
      fc.property(hostileText, (text) => {
        const guarded = guardFormulas(text);
        expect(RUNNABLE.test(guarded)).toBe(false);
        expect(unguardFormulas(guarded)).toBe(text);
      }),
      { numRuns: 2000 },
    );
  });

  it('gives back every cell of a written document when it is read and unguarded', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(hostileText, { minLength: 2, maxLength: 2 }), { maxLength: 5 }),
        (rows) => {
          const read: string[][] = parse(toCsv(['a', 'b'], rows), { relax_quotes: false });
          expect(read.slice(1).map((row) => row.map(unguardFormulas))).toEqual(rows);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('leaves text with nothing to guard as it is', () => {
    expect(unguardFormulas("it's 'fine'; really")).toBe("it's 'fine'; really");
    expect(guardFormulas('1 + 1 = 2')).toBe('1 + 1 = 2');
  });

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
