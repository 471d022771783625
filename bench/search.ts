import { Client, mapLimit } from './lib/client.js';
import type { Measured, SequentialRequest } from './lib/measure.js';
import { QUICK, want } from './lib/options.js';
import { analyzePostgres } from './lib/postgres.js';
import { fmt, log, ms, type Row } from './lib/report.js';

/*
 * Full-text search of test cases (issue 28, "Find anything"): `q` on the test-case list of a 50,000-case project of
 * its own, one client, one request at a time, a page of 50 as the repository page asks. `--only search`.
 */

const CASES = QUICK ? 2_000 : 50_000;
/** One case in this many is made one by one with a precondition and steps (bulk creation takes titles only). */
const WITH_STEPS_EVERY = 25;
const P50_MS = 100;

/** A vocabulary whose words occur with Zipf-like frequencies, so queries hit common and rare words. */
const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'to', 'vi', 'ze', 'po', 'da', 'fe'];
const VOCABULARY = Array.from({ length: 1_500 }, (_, i) => {
  let w = '';
  for (let n = i + 7; n > 0; n = Math.floor(n / SYLLABLES.length)) w += SYLLABLES[n % SYLLABLES.length];
  return w;
});
/** The k-th word of case i: low ranks (common words) far more often than high ones. */
const word = (i: number, k: number) => {
  const h = ((i + 1) * 2_654_435_761 + k * 40_503) % 1_000_003;
  return VOCABULARY[Math.floor(VOCABULARY.length * Math.pow(h / 1_000_003, 3))];
};
const sentence = (i: number, from: number, n: number) =>
  Array.from({ length: n }, (_, k) => word(i, from + k)).join(' ');

export const wantSearch = () => want('search');

export interface SearchContext {
  dbName: 'sqlite' | 'postgres';
  databaseUrl: string;
  client: Client;
  api: string;
  auth: Record<string, string>;
  baselineP50: number;
  sequential: (req: SequentialRequest) => Promise<Measured>;
  add: (scenario: string, r: Omit<Partial<Row>, 'met' | 'cpu'> & { met: boolean | undefined }) => void;
}

async function generate(client: Client, code: string): Promise<void> {
  await client.post('/project', { code, title: `Search ${code}` });
  const { ids } = await client.post<{ ids: number[][] }>(`/project/${code}/tcase/folder/bulk`, {
    folders: Array.from({ length: 50 }, (_, i) => ({ path: ['Search', `Suite ${i}`] })),
  });
  const folderIds = ids.map((p) => p[1]);
  const stepped = Array.from(
    { length: Math.floor(CASES / WITH_STEPS_EVERY) },
    (_, i) => i * WITH_STEPS_EVERY,
  );
  await mapLimit(stepped, 4, async (i) => {
    await client.post(`/project/${code}/tcase`, {
      title: `Verify ${sentence(i, 0, 5)}`,
      type: 'standalone',
      priority: 'medium',
      folderId: folderIds[i % folderIds.length],
      precondition: { text: `<p>${sentence(i, 10, 12)}</p>` },
      steps: [0, 1, 2].map((s) => ({
        description: `<p>${sentence(i, 20 + s * 30, 15)}</p>`,
        expected: `<p>${sentence(i, 35 + s * 30, 10)}</p>`,
      })),
    });
  });
  log(`  search: ${fmt(stepped.length)} cases with precondition and steps`);
  const batch = 500;
  const rest = CASES - stepped.length;
  await mapLimit(
    Array.from({ length: Math.ceil(rest / batch) }, (_, b) => b),
    2,
    async (b) => {
      const n = Math.min(batch, rest - b * batch);
      await client.post(`/project/${code}/tcase/bulk`, {
        folderPath: ['Search', `Bulk ${b % 50}`],
        tcases: Array.from({ length: n }, (_, j) => ({
          title: `Check ${sentence(b * batch + j + CASES, 0, 6)}`,
        })),
      });
      if (b % 20 === 0) log(`  search: ${fmt(stepped.length + b * batch + n)}/${fmt(CASES)} cases`);
    },
  );
}

export async function runSearchScenarios(ctx: SearchContext): Promise<void> {
  const { dbName, api, auth } = ctx;
  const code = 'SRC';
  log(`== ${dbName}: search data set: ${fmt(CASES)} test cases`);
  const t0 = Date.now();
  await generate(ctx.client, code);
  log(`  generated in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  if (dbName === 'postgres') await analyzePostgres(ctx.databaseUrl);
  const queries: [string, string][] = [
    ['a common word', word(3, 0)],
    ['a rare word', VOCABULARY[1_400]],
    ['two words', `${word(5, 0)} ${word(9, 1)}`],
    ['a word being typed (prefix)', word(11, 2).slice(0, 3)],
    ['a word of the steps', word(WITH_STEPS_EVERY * 3, 40)],
    ['an identifier', `${code}-${Math.floor(CASES / 2)}`],
  ];
  const list = `${api}/project/${code}/tcase?limit=50&q=`;
  const times: number[] = [];
  for (const [title, q] of queries) {
    const url = list + encodeURIComponent(q);
    // One look first: a search that found nothing (or failed) would measure nothing.
    const first = await fetch(url, { headers: auth });
    const body = (await first.json()) as { total?: number };
    log(`== ${dbName}: search ${title} "${q}": ${first.status}, ${fmt(body.total ?? 0)} found`);
    const m = await ctx.sequential({ url, headers: auth });
    times.push(m.p50);
    ctx.add(`search: ${title} (${fmt(body.total ?? 0)} of ${fmt(CASES)} cases)`, {
      throughput: `${fmt(m.rps, 1)} req/s`,
      p50: ms(m.p50),
      p99: ms(m.p99),
      target: `p50 ≤ ${P50_MS} ms`,
      ratio: `${fmt(m.p50 / ctx.baselineP50, 1)}× baseline p50`,
      met: m.p50 <= P50_MS,
    });
  }
  const median = [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)];
  ctx.add(`search: median of the ${times.length} searches`, {
    p50: ms(median),
    target: `≤ ${P50_MS} ms`,
    met: median <= P50_MS,
  });
  // The repository's folder tree with its case counts, over the same cases (tcases_live_folder_idx, 0033).
  const tree = await ctx.sequential({
    url: `${api}/project/${code}/tcase/folders?withCounts=true`,
    headers: auth,
  });
  ctx.add(`folder tree with case counts (${fmt(CASES)} cases)`, {
    throughput: `${fmt(tree.rps, 1)} req/s`,
    p50: ms(tree.p50),
    p99: ms(tree.p99),
    target: `p50 ≤ ${P50_MS} ms`,
    ratio: `${fmt(tree.p50 / ctx.baselineP50, 1)}× baseline p50`,
    met: tree.p50 <= P50_MS,
  });
}
