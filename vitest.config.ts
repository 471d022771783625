import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    pool: 'forks',
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
