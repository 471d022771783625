import { describe, expect, it } from 'vitest';
import { alignSteps, type StepText } from './step-diff';

const steps = (...texts: string[]): StepText[] =>
  texts.map((t, i) => {
    const [description, expected = ''] = t.split('|');
    return { number: i + 1, description: description!, expected };
  });
const kinds = (a: StepText[], b: StepText[]) =>
  alignSteps(a, b).map((s) =>
    s.kind === 'removed'
      ? `- ${s.old.number}`
      : s.kind === 'added'
        ? `+ ${s.now.number}`
        : `${s.kind === 'same' ? '=' : '~'} ${s.old.number}→${s.now.number}`,
  );

describe('the steps of two versions compared as a list', () => {
  it('keeps the steps around an inserted one as they were, with their new numbers', () => {
    expect(kinds(steps('Open', 'Pay'), steps('Open', 'Add a book', 'Pay'))).toEqual([
      '= 1→1',
      '+ 2',
      '= 2→3',
    ]);
  });

  it('pairs a step whose words changed with the step it replaced', () => {
    expect(kinds(steps('Open', 'Pay|Paid', 'Log out'), steps('Open', 'Pay|Paid by card', 'Log out'))).toEqual(
      ['= 1→1', '~ 2→2', '= 3→3'],
    );
  });

  it('pairs a changed step with the added step most like it, not the first one added', () => {
    expect(
      kinds(
        steps('Open the cart', 'Pay the order|Paid'),
        steps('Open the cart', 'Add a coupon', 'Pay the order|Paid by card'),
      ),
    ).toEqual(['= 1→1', '+ 2', '~ 2→3']);
  });

  it('tells removed steps, and a rewritten step with nothing in common as removed and added', () => {
    expect(
      kinds(
        steps('Open the cart', 'Pay by card', 'Print the receipt', 'Log out'),
        steps('Open the cart', 'Pay by voucher', 'Log out'),
      ),
    ).toEqual(['= 1→1', '~ 2→2', '- 3', '= 4→3']);
    expect(kinds(steps('Open'), steps('Close'))).toEqual(['- 1', '+ 1']);
    expect(kinds(steps('A'), steps())).toEqual(['- 1']);
    expect(kinds(steps(), steps('A', 'B'))).toEqual(['+ 1', '+ 2']);
  });
});
