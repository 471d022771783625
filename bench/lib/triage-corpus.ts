/**
 * The labelled triage corpus (bench/triage-corpus/, sources in its SOURCES.md) and how well signatures group it
 * (docs/api-decisions.md#how-well-it-groups). Read by `npm run bench -- --only triage` and by
 * test/triage-corpus.test.ts, which fails when the figures fall under the issue's bars.
 *
 * Each real failure is one case's comment as the JUnit endpoint writes it; each is joined by generated re-runs of
 * itself: what changes when the same problem fails again on another machine, another day (ids, hex addresses,
 * UUIDs, ports, durations, timestamps, temp paths, checkout folders, line numbers after an edit, captured output),
 * never its words. The order of the whole corpus is shuffled: grouping must not depend on it.
 */
import fs from 'node:fs';
import path from 'node:path';

/** One real failure, as recorded in failures.json. */
export interface CorpusFailure {
  id: string;
  /** The true group: failures labelled with one group are the same underlying problem. */
  group: string;
  lang: string;
  source: string;
  /** The JUnit `message` attribute, when the report had one. */
  message: string;
  /** The failure text (the JUnit element's body, or what the CI log printed). */
  text: string;
}

/** A failure of the corpus as signed: its comment HTML and its true group. */
export interface LabelledComment {
  id: string;
  group: string;
  html: string;
  /** `true` for a real failure, `false` for a generated re-run. */
  real: boolean;
}

export const CORPUS_DIR = path.resolve(import.meta.dirname, '..', 'triage-corpus');
/** Generated re-runs per real failure. */
export const VARIANTS = 4;

export function readCorpus(): CorpusFailure[] {
  return JSON.parse(fs.readFileSync(path.join(CORPUS_DIR, 'failures.json'), 'utf8')) as CorpusFailure[];
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The comment the JUnit endpoint writes: the message in a paragraph when the text lacks it, the text in a block. */
export function junitComment(message: string, text: string, stdout = ''): string {
  return (
    (message && !text.includes(message) ? `<p>${esc(message)}</p>` : '') +
    `<pre><code>${esc(text)}</code></pre>` +
    (stdout ? `<h4>Output (stdout):</h4><pre><code>${esc(stdout)}</code></pre>` : '')
  );
}

/** A small seeded generator (the corpus is the same on every run, so the figures are too). */
function random(seed: number) {
  let s = seed >>> 0 || 1;
  const next = () => {
    // xorshift32
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s;
  };
  const int = (n: number) => next() % n;
  const hex = (n: number) => {
    let out = '';
    while (out.length < n) out += '0123456789abcdef'[int(16)];
    // A run the masks see as hex holds a digit and a letter; keep the shape of what it replaces.
    return /\d/.test(out) && /[a-f]/.test(out) ? out : `${int(10)}a${out.slice(2)}`;
  };
  const pick = <T>(xs: readonly T[]) => xs[int(xs.length)];
  return { int, hex, pick };
}

type Rnd = ReturnType<typeof random>;

const CHECKOUTS = [
  (p: string) => `/home/runner/work/${p}/${p}`,
  (p: string) => `/__w/${p}/${p}`,
  (p: string, r: Rnd) => `/builds/ci-${r.int(90000) + 1000}/${p}`,
  (p: string, r: Rnd) => `/var/lib/jenkins/workspace/${p}_PR-${r.int(9000) + 100}`,
];

/**
 * One re-run of `text`: the same words, with what a machine, a clock or an edit changes made new. The same
 * generator is used for the message and the text of a failure, so they stay consistent.
 */
function rerun(text: string, r: Rnd, shift: number, checkout: number): string {
  return (
    text
      // UUIDs, then hex addresses and long hex runs (object ids, hashes).
      .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, () =>
        [8, 4, 4, 4, 12].map((n) => r.hex(n)).join('-'),
      )
      .replace(/\b0x[0-9a-f]+\b/gi, (m) => `0x${r.hex(Math.max(2, m.length - 2 + r.int(3) - 1))}`)
      .replace(/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b/gi, (m) => r.hex(m.length))
      // Timestamps and dates (screenshot names, log stamps).
      .replace(
        /\b20\d\d-\d\d-\d\d([T -])\d\d[:-]\d\d[:-]\d\d(?:\.\d+)?Z?/g,
        (m, sep: string) =>
          `20${20 + r.int(6)}-0${1 + r.int(9)}-${10 + r.int(18)}${sep}${10 + r.int(13)}${sep === '-' ? '-' : ':'}${10 + r.int(49)}${sep === '-' ? '-' : ':'}${10 + r.int(49)}${m.includes('.') ? `.${r.int(999)}` : ''}`,
      )
      // Ports on local addresses.
      .replace(
        /\b(127\.0\.0\.1|0\.0\.0\.0|localhost):(\d{2,5})\b/g,
        (_m, host: string) => `${host}:${1024 + r.int(64000)}`,
      )
      // Durations: test times, elapsed times.
      .replace(/\((\d+(?:\.\d+)?)(s| ms)\)/g, (_m, _n, unit: string) =>
        unit === 's' ? `(${(r.int(30000) / 1000).toFixed(2)}s)` : `(${r.int(90000)} ms)`,
      )
      .replace(/\[(\d+) ms\]/g, () => `[${r.int(5000) + 1} ms]`)
      .replace(/(\d+\.\d+)s\b/g, () => `${(r.int(30000) / 1000).toFixed(3)}s`)
      // Temporary files and folders, on Linux or macOS runners.
      .replace(/\/tmp\/[\w.-]+/g, (m) => {
        const base = r.int(2) === 0 ? '/tmp/' : `/var/folders/${r.hex(2)}/${r.hex(28)}/T/`;
        return base + m.slice(5).replace(/\d{3,}/g, () => String(r.int(1e9)));
      })
      // Goroutine numbers, pull request numbers, numeric ids quoted as values.
      .replace(/\bgoroutine \d+/g, () => `goroutine ${r.int(90000) + 1}`)
      .replace(/\bPR-\d+/g, () => `PR-${r.int(9000) + 100}`)
      .replace(
        /"(\d{3,})"/g,
        (m, n: string) => `"${String(10 ** (n.length - 1) + r.int(9 * 10 ** (n.length - 1)))}"`,
      )
      // Checkout folders: another runner, another CI.
      .replace(/\/home\/runner\/work\/([\w.-]+)\/\1/g, (_m, p: string) => CHECKOUTS[checkout](p, r))
      .replace(/\/home\/travis\/(?:build|gopath\/src\/github\.com)\/[\w.-]+\/([\w.-]+)/g, (_m, p: string) =>
        CHECKOUTS[checkout](p, r),
      )
      // Line numbers of frames after an edit above them (one edit moves every line of a file alike).
      .replace(
        /(\.(?:ts|tsx|js|mjs|py|java|go|rb|cs|scala|kt)):(\d+)(?=[:)\s]|$)/gm,
        (_m, ext: string, n: string) => `${ext}:${Math.max(1, Number(n) + shift)}`,
      )
      .replace(/:line (\d+)/g, (_m, n: string) => `:line ${Math.max(1, Number(n) + shift)}`)
      .replace(
        /^(\s*>?\s*)(\d+)( ?\|)/gm,
        (_m, a: string, n: string, b: string) => `${a}${Math.max(1, Number(n) + shift)}${b}`,
      )
  );
}

/** Output a re-run printed around the failure: other pids, ports, times, ids every time. */
function capturedOutput(r: Rnd): string {
  const lines: string[] = [];
  for (let i = 0, n = 1 + r.int(4); i < n; i++) {
    lines.push(
      r.pick([
        () =>
          `2026-0${1 + r.int(9)}-1${r.int(9)}T1${r.int(9)}:${10 + r.int(49)}:${10 + r.int(49)}.${r.int(999)}Z INFO worker ${r.int(64)} started (pid ${1000 + r.int(60000)})`,
        () => `listening on http://127.0.0.1:${1024 + r.int(64000)}`,
        () => `request ${r.hex(8)}-${r.hex(4)} took ${r.int(900)}ms`,
        () => `Error: warm-up attempt ${r.int(5)} failed, retrying`,
      ])(),
    );
  }
  return lines.join('\n');
}

/** The corpus as signed: every real failure and its generated re-runs, in a shuffled order. */
export function labelledComments(corpus = readCorpus(), variants = VARIANTS, seed = 45): LabelledComment[] {
  const r = random(seed);
  const out: LabelledComment[] = [];
  for (const f of corpus) {
    out.push({ id: f.id, group: f.group, html: junitComment(f.message, f.text), real: true });
    for (let v = 1; v <= variants; v++) {
      const shift = r.int(16) - 3;
      const checkout = r.int(CHECKOUTS.length);
      // Message and text start from one state: an id they share (a JUnit message repeats the text's first line) is
      // replaced alike in both.
      const state = r.int(2 ** 31) + 1;
      const message = f.message ? rerun(f.message, random(state), shift, checkout) : '';
      const text = rerun(f.text, random(state), shift, checkout);
      const stdout = r.int(2) === 0 ? capturedOutput(r) : '';
      out.push({
        id: `${f.id}~${v}`,
        group: f.group,
        html: junitComment(message, text, stdout),
        real: false,
      });
    }
  }
  // Fisher–Yates with the seeded generator: the order of runs must not matter.
  for (let i = out.length - 1; i > 0; i--) {
    const j = r.int(i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

export interface GroupingScore {
  failures: number;
  realFailures: number;
  trueGroups: number;
  signatures: number;
  /** B-cubed: per failure, the share of its signature group that is its true group (precision) and the share of its true group in its signature group (recall), averaged over failures. */
  bcubed: { precision: number; recall: number };
  /** Over pairs of failures: of the pairs with one signature, the share with one true group (precision); of the pairs with one true group, the share with one signature (recall). */
  pairwise: { precision: number; recall: number };
  /** The true groups split over several signatures, and the signatures that join several true groups. */
  split: { group: string; signatures: number }[];
  merged: { label: string; groups: string[] }[];
}

/** How the signatures of `items` group them against their labels. */
export function scoreGrouping(
  items: readonly { group: string; real?: boolean }[],
  signatures: readonly string[],
  labels: readonly string[] = signatures,
): GroupingScore {
  const bySig = new Map<string, number[]>();
  const byGroup = new Map<string, number[]>();
  items.forEach((it, i) => {
    bySig.set(signatures[i], [...(bySig.get(signatures[i]) ?? []), i]);
    byGroup.set(it.group, [...(byGroup.get(it.group) ?? []), i]);
  });
  // The size of every (signature, group) cell.
  const cell = new Map<string, number>();
  items.forEach((it, i) => {
    const k = `${signatures[i]}\u0000${it.group}`;
    cell.set(k, (cell.get(k) ?? 0) + 1);
  });
  let bp = 0;
  let br = 0;
  items.forEach((it, i) => {
    const both = cell.get(`${signatures[i]}\u0000${it.group}`)!;
    bp += both / bySig.get(signatures[i])!.length;
    br += both / byGroup.get(it.group)!.length;
  });
  const pairs = (n: number) => (n * (n - 1)) / 2;
  let tp = 0;
  for (const n of cell.values()) tp += pairs(n);
  let sigPairs = 0;
  for (const xs of bySig.values()) sigPairs += pairs(xs.length);
  let groupPairs = 0;
  for (const xs of byGroup.values()) groupPairs += pairs(xs.length);
  const split = [...byGroup]
    .map(([group, xs]) => ({ group, signatures: new Set(xs.map((i) => signatures[i])).size }))
    .filter((g) => g.signatures > 1);
  const merged = [...bySig]
    .map(([, xs]) => ({ label: labels[xs[0]], groups: [...new Set(xs.map((i) => items[i].group))] }))
    .filter((s) => s.groups.length > 1);
  return {
    failures: items.length,
    realFailures: items.filter((it) => it.real !== false).length,
    trueGroups: byGroup.size,
    signatures: bySig.size,
    bcubed: { precision: bp / items.length, recall: br / items.length },
    pairwise: { precision: sigPairs ? tp / sigPairs : 1, recall: groupPairs ? tp / groupPairs : 1 },
    split,
    merged,
  };
}
