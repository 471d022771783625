import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    pool: 'forks',
    // Vitest's default is one worker per core but one, which is a single worker on the 2-core CI machines: the
    // suites spend most of their time waiting on PostgreSQL, Chromium and child processes, so two files at a time
    // keep both cores busy. CASEBOOK_TEST_WORKERS overrides it (1 to run files one after another).
    maxWorkers: Number(process.env.CASEBOOK_TEST_WORKERS) || 2,
    projects: [
      {
        // The service and the browser tests: real databases and a served build, so generous time limits.
        extends: true,
        test: {
          name: 'server',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          globalSetup: ['test/helpers/global-setup.ts'],
          // Servers the tests start close at once on SIGTERM (a test that checks the drain sets its own).
          env: { CASEBOOK_DRAIN_SECONDS: '0' },
          testTimeout: 60_000,
          hookTimeout: 60_000,
          // expect.poll waits up to 10 s (Vitest's 1 s is less than a sign-up's password hashing on a busy CI
          // machine): a browser test waits for what a person would wait for.
          expect: { poll: { timeout: 10_000 } },
        },
      },
      {
        // The web application's plain functions and hooks, without a browser: happy-dom stands in for the page.
        extends: true,
        test: {
          name: 'web',
          include: ['web/src/**/*.test.{ts,tsx}'],
          environment: 'happy-dom',
        },
      },
    ],
  },
});
