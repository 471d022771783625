import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../db/create-db.js';
import { sha256 } from '../../lib/crypto.js';
import { createPostgresDatabase, POSTGRES_URL } from '../../../test/helpers/databases.js';
import { cliArgs } from '../../../test/helpers/cli-command.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

function cli(databaseUrl: string, ...args: string[]) {
  return run([], { CASEBOOK_DATABASE_URL: databaseUrl, CASEBOOK_PUBLIC_URL: 'https://cb.example' }, args);
}

/** The command line with Node's own flags (`--env-file`) and these settings alone (no CASEBOOK_PUBLIC_URL unless given). */
function run(
  nodeArgs: string[],
  settings: Record<string, string>,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, CASEBOOK_LOG_LEVEL: 'silent', ...settings };
  if (!('CASEBOOK_PUBLIC_URL' in settings)) delete env.CASEBOOK_PUBLIC_URL;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...nodeArgs, ...cliArgs(), ...args],
      {
        cwd: ROOT,
        env,
        timeout: 60_000,
      },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

const targets: { name: string; open: () => Promise<{ url: string; drop: () => Promise<void> }> }[] = [
  {
    name: 'sqlite',
    open: async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'casebook-reset-'));
      return {
        url: `sqlite:${path.join(dir, 'cb.db')}`,
        drop: async () => fs.rmSync(dir, { recursive: true, force: true }),
      };
    },
  },
];
const postgresUrl = POSTGRES_URL;
if (postgresUrl) {
  targets.push({
    name: 'postgres',
    // The helper's own connection pool stays unused (the CLI and the test open their own); `drop` closes it.
    open: async () => {
      const created = await createPostgresDatabase(postgresUrl);
      return { url: created.url, drop: created.drop };
    },
  });
}

for (const target of targets) {
  describe(`casebook user reset-link [${target.name}]`, () => {
    let url: string;
    let drop: () => Promise<void>;
    let db: Db;

    beforeAll(async () => {
      ({ url, drop } = await target.open());
      const made = await cli(
        url,
        'user',
        'create',
        '--email',
        'Forgetful@example.com',
        '--name',
        'F',
        '--role',
        'user',
      );
      expect(made.code, made.stderr).toBe(0);
      db = createDb(url);
    });
    afterAll(async () => {
      await db?.destroy();
      await drop?.();
    });

    it('prints a one-hour reset link, stores only its hash and records request_password_reset', async () => {
      const res = await cli(url, 'user', 'reset-link', '--email', 'forgetful@example.com');
      expect(res.code, res.stderr).toBe(0);
      const { link } = JSON.parse(res.stdout);
      expect(link).toMatch(/^https:\/\/cb\.example\/reset-password\/[\w-]{40,}$/);
      const token = link.split('/').pop();
      const rows = await db.selectFrom('password_resets').selectAll().execute();
      expect(rows).toHaveLength(1);
      expect(rows[0].token_hash).toBe(sha256(token));
      const events = await db
        .selectFrom('audit_events')
        .selectAll()
        .where('action', '=', 'request_password_reset')
        .execute();
      expect(events).toEqual([
        expect.objectContaining({ user_id: rows[0].user_id, user_agent: 'casebook-cli', meta: null }),
      ]);
    });

    it.skipIf(target.name !== 'sqlite')(
      "refuses to print a localhost link without CASEBOOK_PUBLIC_URL, and prints the server's address read from --env-file",
      async () => {
        const without = await run([], { CASEBOOK_DATABASE_URL: url }, [
          'user',
          'reset-link',
          '--email',
          'forgetful@example.com',
        ]);
        expect(without.code).toBe(1);
        expect(without.stdout).toBe('');
        expect(JSON.parse(without.stderr.split('\n')[0]).error).toMatch(
          /^CASEBOOK_PUBLIC_URL is not set, so the link would point at nothing reachable/,
        );
        const envFile = path.join(os.tmpdir(), `casebook-env-${process.pid}`);
        fs.writeFileSync(
          envFile,
          `CASEBOOK_DATABASE_URL=${url}\nCASEBOOK_PUBLIC_URL=https://tests.example/\n`,
        );
        try {
          const withFile = await run([`--env-file=${envFile}`], {}, [
            'user',
            'reset-link',
            '--email',
            'forgetful@example.com',
          ]);
          expect(withFile.code, withFile.stderr).toBe(0);
          expect(JSON.parse(withFile.stdout).link).toMatch(/^https:\/\/tests\.example\/reset-password\//);
        } finally {
          fs.rmSync(envFile, { force: true });
        }
      },
    );

    it('fails with a JSON error for an unknown e-mail and without --email', async () => {
      const unknown = await cli(url, 'user', 'reset-link', '--email', 'nobody@example.com');
      expect(unknown.code).toBe(1);
      expect(unknown.stdout).toBe('');
      expect(JSON.parse(unknown.stderr.split('\n')[0])).toEqual({
        error: 'user nobody@example.com not found',
      });
      const missing = await cli(url, 'user', 'reset-link');
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain('--email is required');
    });
  });
}
