import { parseArgs } from 'node:util';

/* The command line of `npm run bench` (bench/run.ts lists it) and what follows from it: sizes, durations, scenarios. */

export const { values } = parseArgs({
  options: {
    db: { type: 'string', default: 'both' },
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    duration: { type: 'string' },
    /** Server processes (casebook serve --workers); 1 by default, so figures compare per process. */
    workers: { type: 'string', default: '1' },
    'skip-build': { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
    'keep-db': { type: 'boolean', default: false },
  },
});

export const QUICK = values.quick!;
export const DURATION = Number(values.duration ?? (QUICK ? 2 : 8));
export const WARMUP_SECONDS = 1;
export const SIZES = QUICK
  ? { tcases: 1_000, runs: 50, live: 10, audit: 20_000, growth: [100, 1_000, 2_000], sequential: 15 }
  : {
      tcases: 10_000,
      runs: 1_000,
      live: 50,
      audit: 1_000_000,
      growth: [1_000, 10_000, 50_000],
      sequential: 40,
    };
const only = values.only ? new Set(values.only.split(',')) : undefined;
export const want = (name: string) => !only || only.has(name);
// webhook-batch delivers to a receiver on 127.0.0.1, which the SSRF guard refuses unless told otherwise.
// It signs with a secret, which needs an encryption key.
if (want('webhook-batch')) {
  process.env.CASEBOOK_WEBHOOK_ALLOW_PRIVATE = 'true';
  process.env.CASEBOOK_SECRET_KEY ??= 'bench-secret-key-0123456789';
}
