import { diffArrays } from 'diff';

/** A step as the comparison reads it: plain text, its number in its own version. */
export interface StepText {
  number: number;
  /** "Shared step: …" for a shared step, else the description. */
  description: string;
  expected: string;
}

/** One line of the steps' comparison: a step of both versions (kept or changed), or of one only. */
export type AlignedStep =
  | { kind: 'same' | 'changed'; old: StepText; now: StepText }
  | { kind: 'removed'; old: StepText }
  | { kind: 'added'; now: StepText };

const key = (s: StepText) => `${s.description}\u0000${s.expected}`;

const words = (s: StepText) =>
  new Set(`${s.description} ${s.expected}`.toLowerCase().match(/[\p{L}\p{N}]+/gu));

/** Shared words over all words (0–1): how alike two steps read. */
function likeness(a: StepText, b: StepText): number {
  const x = words(a);
  const y = words(b);
  let both = 0;
  for (const w of x) if (y.has(w)) both++;
  const all = x.size + y.size - both;
  return all === 0 ? 1 : both / all;
}

/** Two steps at least this alike are one step that changed, not one removed and another added. */
const SAME_STEP = 0.3;

/**
 * The steps of two versions compared as a list, not as one text: steps that stayed are matched (the longest
 * common run, so a step inserted in the middle does not shift the others into "changed"); within a stretch where
 * steps were removed and others added, a removed step and the added step most like it (in order) are one changed
 * step, whose words are diffed inside; what is left was removed or added whole.
 */
export function alignSteps(old: StepText[], now: StepText[]): AlignedStep[] {
  const parts = diffArrays(old.map(key), now.map(key));
  const out: AlignedStep[] = [];
  let i = 0;
  let j = 0;
  let removed: StepText[] = [];
  let added: StepText[] = [];
  const flush = () => {
    let next = 0;
    for (const r of removed) {
      let best = -1;
      let score = SAME_STEP;
      for (let m = next; m < added.length; m++) {
        const l = likeness(r, added[m]!);
        // The most alike; of equally alike ones, the first.
        if (l > score || (best < 0 && l >= score)) [best, score] = [m, l];
      }
      if (best < 0) {
        out.push({ kind: 'removed', old: r });
        continue;
      }
      for (; next < best; next++) out.push({ kind: 'added', now: added[next]! });
      out.push({ kind: 'changed', old: r, now: added[best]! });
      next = best + 1;
    }
    for (; next < added.length; next++) out.push({ kind: 'added', now: added[next]! });
    removed = [];
    added = [];
  };
  for (const part of parts) {
    const n = part.count ?? part.value.length;
    if (part.removed) removed.push(...old.slice(i, (i += n)));
    else if (part.added) added.push(...now.slice(j, (j += n)));
    else {
      flush();
      for (let k = 0; k < n; k++) out.push({ kind: 'same', old: old[i++]!, now: now[j++]! });
    }
  }
  flush();
  return out;
}
