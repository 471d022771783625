/*
 * The flaky score (docs/api-decisions.md#flaky-score): how often a case's status flips between passed and failing
 * (failed or blocked) from one run to the next of one configuration, recent flips weighing more than old ones.
 */

/** What counts as a failure in every report (docs/api-decisions.md#reports). */
export const FAILING: readonly string[] = ['failed', 'blocked'];

/**
 * Each step further back in a case's results weighs this much less: the newest change weighs 1, the one before
 * 0.8, ten changes back 0.11 — a case that flips now outranks one that flipped long ago and has been steady since.
 */
export const FLAKY_DECAY = 0.8;

/** passed → true, failed or blocked → false; any other status neither flips nor breaks a sequence. */
const outcome = (status: string) =>
  status === 'passed' ? true : FAILING.includes(status) ? false : undefined;

/**
 * The flips of `statuses` (oldest first) and their score: of the changes between consecutive passed/failing
 * results, the share that flipped, each weighted by FLAKY_DECAY to the power of its age (0 for the newest change):
 *
 *   score = Σ flipped(i) · d^(n−1−i)  /  Σ d^(n−1−i),   i = 1 … n−1 over the n passed/failing results, d = 0.8
 *
 * 0 for a case that never flips (or has fewer than two such results), 1 for one that flips at every run; rounded
 * to three decimals.
 */
export function flakyScore(statuses: readonly string[]): { flips: number; score: number } {
  const seq = statuses.map(outcome).filter((o): o is boolean => o !== undefined);
  let flips = 0;
  let flipped = 0;
  let total = 0;
  for (let i = 1; i < seq.length; i++) {
    const weight = FLAKY_DECAY ** (seq.length - 1 - i);
    total += weight;
    if (seq[i] !== seq[i - 1]) {
      flips++;
      flipped += weight;
    }
  }
  return { flips, score: total === 0 ? 0 : Math.round((flipped / total) * 1000) / 1000 };
}
