import { describe, expect, it } from 'vitest';
import { labelledComments, readCorpus, scoreGrouping } from '../bench/lib/triage-corpus.js';
import { failureSignature } from '../src/lib/failure-signature.js';

/*
 * The labelled corpus of real CI failures (bench/triage-corpus/, sources in its SOURCES.md) grouped by signature:
 * issue 45's bars are precision ≥ 0.95 and recall ≥ 0.90 (B-cubed; docs/api-decisions.md#how-well-it-groups).
 */
describe('failure signatures on the labelled corpus', () => {
  const corpus = readCorpus();
  const items = labelledComments(corpus);
  const signed = items.map((i) => failureSignature(i.html));
  const score = scoreGrouping(
    items,
    signed.map((s) => s.signature),
    signed.map((s) => s.label),
  );

  it('holds at least 300 failures in at least 40 true groups, each real failure with its source', () => {
    expect(score.failures).toBeGreaterThanOrEqual(300);
    expect(score.trueGroups).toBeGreaterThanOrEqual(40);
    expect(corpus.filter((f) => !/^https:\/\/github\.com\/[\w.-]+\/[\w.-]+\//.test(f.source))).toEqual([]);
  });

  it('groups them with precision ≥ 0.95 and recall ≥ 0.90', () => {
    // The split and merged groups are in the message, so a failing run says what went wrong.
    const detail = JSON.stringify({ split: score.split, merged: score.merged });
    expect(score.bcubed.precision, detail).toBeGreaterThanOrEqual(0.95);
    expect(score.bcubed.recall, detail).toBeGreaterThanOrEqual(0.9);
  });

  it('gives a real failure and its generated re-runs one signature', () => {
    const sigOf = new Map(items.map((it, i) => [it.id, signed[i].signature]));
    const differing = items
      .filter((it) => !it.real && sigOf.get(it.id) !== sigOf.get(it.id.replace(/~\d+$/, '')))
      .map((it) => it.id);
    expect(differing).toEqual([]);
  });

  it('scores a grouping as B-cubed and pairwise precision and recall', () => {
    const s = scoreGrouping(
      [{ group: 'a' }, { group: 'a' }, { group: 'a' }, { group: 'b' }],
      ['x', 'x', 'y', 'x'],
    );
    // Per failure: precision 2/3, 2/3, 1, 1/3; recall 2/3, 2/3, 1/3, 1.
    expect(s.bcubed.precision).toBeCloseTo((2 / 3 + 2 / 3 + 1 + 1 / 3) / 4);
    expect(s.bcubed.recall).toBeCloseTo((2 / 3 + 2 / 3 + 1 / 3 + 1) / 4);
    // Pairs with one signature: 3 (one of them one group); pairs with one group: 3 (one of them one signature).
    expect(s.pairwise).toEqual({ precision: 1 / 3, recall: 1 / 3 });
    expect(s.split).toEqual([{ group: 'a', signatures: 2 }]);
    expect(s.merged).toEqual([{ label: 'x', groups: ['a', 'b'] }]);
  });
});
