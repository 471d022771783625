import { describe, expect, it } from 'vitest';
import { redactCredentials } from './redact.js';

const SECRET = 'webhook-Shared-Secret-1';
const hex = (v: string) => Buffer.from(v).toString('hex');

describe('redactCredentials', () => {
  it('masks a secret echoed as hex of its UTF-8 bytes, in small or capital letters', () => {
    const token = 'Tök-en/42x';
    const answer = `lower=${hex(SECRET)} upper=${hex(SECRET).toUpperCase()} utf8=${hex(token).toUpperCase()}`;
    expect(redactCredentials(answer, [SECRET, `Bearer ${token}`])).toBe('lower=**** upper=**** utf8=****');
  });

  it('masks a secret echoed in another case', () => {
    expect(redactCredentials(`got ${SECRET.toUpperCase()} and ${SECRET.toLowerCase()}`, [SECRET])).toBe(
      'got **** and ****',
    );
  });

  it('masks base64 only as written, its case being part of the value', () => {
    const b64 = Buffer.from(SECRET).toString('base64');
    const swapped = [...b64].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('');
    expect(redactCredentials(`a=${b64} b=${swapped}`, [SECRET])).toBe(`a=**** b=${swapped}`);
  });

  it('masks the forms it already knew, and the parts of Bearer and Basic values', () => {
    const basic = `Basic ${Buffer.from('casebook:Basic-Pass-987').toString('base64')}`;
    const answer = [
      SECRET,
      Buffer.from(SECRET).toString('base64url'),
      encodeURIComponent('a b/c?secret'),
      JSON.stringify('quote"d\\secret').slice(1, -1),
      'casebook:Basic-Pass-987',
      'Basic-Pass-987',
      'rcv-Token-abc123',
    ].join(' ');
    expect(
      redactCredentials(answer, [
        SECRET,
        'a b/c?secret',
        'quote"d\\secret',
        basic,
        'Bearer rcv-Token-abc123',
      ]),
    ).toBe(Array(7).fill('****').join(' '));
  });

  it('leaves values under 6 characters and text with regular-expression characters alone', () => {
    expect(redactCredentials('short abc and (a+b)*', ['abc', 'short'])).toBe('short abc and (a+b)*');
    expect(redactCredentials('x (a+b)*[1] y', ['(a+b)*[1]'])).toBe('x **** y');
  });
});
