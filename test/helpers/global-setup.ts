import { requireSupportedNode } from '../../scripts/node-version.mjs';

/** Stops a run on a Node.js Casebook does not support, and says once per run whether the PostgreSQL half runs. */
export default function setup(): void {
  requireSupportedNode();
  if (process.env.CASEBOOK_TEST_POSTGRES_URL) {
    console.log(
      '[casebook] storage tests run on SQLite and on PostgreSQL (CASEBOOK_TEST_POSTGRES_URL is set)',
    );
  } else {
    console.log(
      '[casebook] PostgreSQL half SKIPPED: storage tests run on SQLite only. To run them on PostgreSQL too, set\n' +
        '           CASEBOOK_TEST_POSTGRES_URL=postgres://USER@HOST:5432/DB (a server where USER may create databases),\n' +
        '           or run `bash .ci/run`, which starts PostgreSQL and sets it.',
    );
  }
}
