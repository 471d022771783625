import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../src/config.js';
import type { Db } from '../src/db/create-db.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { seal } from '../src/lib/secret-box.js';
import { verifySecretKey, type SecretKey } from '../src/secret-key.js';
import { databaseTargets } from './helpers/databases.js';

const fromEnv = (key: string): SecretKey => ({ key, source: 'env', created: false });
/** The key's check value, the one row of instance_settings these tests are about (migrating writes another). */
const keyRows = (db: Db) =>
  db.selectFrom('instance_settings').selectAll().where('name', '=', 'secret_key_check').execute();

for (const target of databaseTargets()) {
  describe(`the secret key's check value in the database [${target.name}]`, () => {
    let db: Db;
    let drop: () => Promise<void>;

    beforeAll(async () => {
      ({ db, drop } = await target.create());
      await migrateToLatest(db);
    });
    afterAll(async () => {
      await drop?.();
    });

    it('keeps the first writer’s check value when two processes with different keys start together: the other refuses', async () => {
      const outcomes = await Promise.allSettled([
        verifySecretKey(db, fromEnv('first-key-0123456789')),
        verifySecretKey(db, fromEnv('second-key-0123456789')),
      ]);
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      const refused = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
      expect(refused.reason).toBeInstanceOf(ConfigError);
      expect(refused.reason.message).toMatch(
        /^The secret key from CASEBOOK_SECRET_KEY does not open this database's secrets/,
      );
      const rows = await keyRows(db);
      expect(rows.map((r) => r.name)).toEqual(['secret_key_check']);

      // The winner starts again; so does every later process with its key, and no other.
      const winner = outcomes[0].status === 'fulfilled' ? 'first-key-0123456789' : 'second-key-0123456789';
      await expect(verifySecretKey(db, fromEnv(winner))).resolves.toBeUndefined();
      await expect(verifySecretKey(db, fromEnv('third-key-0123456789'))).rejects.toThrow(
        /set CASEBOOK_SECRET_KEY to the key the database was sealed with/,
      );
      expect(await keyRows(db)).toEqual(rows);
    });
  });

  describe(`a database whose secrets were sealed before it had a check value [${target.name}]`, () => {
    const KEY_A = 'old-key-a-0123456789';
    const KEY_B = 'new-key-b-0123456789';
    const now = new Date().toISOString();
    let db: Db;
    let drop: () => Promise<void>;
    let dir: string;

    const checkRows = () => keyRows(db);
    const refusal = (what: string) =>
      new RegExp(
        `^The secret key from CASEBOOK_SECRET_KEY does not open this database's secrets: ${what} stored there ` +
          'was sealed with another key\\. .*set CASEBOOK_SECRET_KEY to the key the existing secrets were sealed with',
      );

    beforeAll(async () => {
      ({ db, drop } = await target.create());
      await migrateToLatest(db);
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'casebook-upgrade-key-'));
      await db
        .insertInto('tenants')
        .values({ id: 'default', name: 'Default', features: '[]', created_at: now, updated_at: now })
        .execute();
      // What an earlier version left: a webhook secret sealed under key A, and no check value.
      await db
        .insertInto('webhooks')
        .values({
          id: 'wh1',
          tenant_id: 'default',
          name: 'CI',
          endpoint: 'https://hooks.example.com/ci',
          secret_enc: seal('webhook-signing-secret', KEY_A, 'casebook:webhook-secrets:v1'),
          headers_enc: null,
          event_types: '["run_created"]',
          all_projects: 1,
          project_ids: '[]',
          payload_template: null,
          enabled: 1,
          disabled_reason: null,
          failing_since: null,
          created_by: null,
          created_at: now,
          updated_at: now,
        })
        .execute();
    });
    afterAll(async () => {
      await drop?.();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('refuses another key, writing no check value, and removes a key file generated just now', async () => {
      const refused = verifySecretKey(db, fromEnv(KEY_B));
      await expect(refused).rejects.toBeInstanceOf(ConfigError);
      await expect(refused).rejects.toThrow(refusal('a webhook secret'));
      expect(await checkRows()).toEqual([]);

      const file = path.join(dir, 'secret.key');
      fs.writeFileSync(file, `${KEY_B}\n`, { mode: 0o600 });
      await expect(verifySecretKey(db, { key: KEY_B, source: 'file', file, created: true })).rejects.toThrow(
        `The secret key from the key file ${file} (used because CASEBOOK_SECRET_KEY is not set) does not open ` +
          "this database's secrets: a webhook secret stored there was sealed with another key. Restore " +
          `${file} from your backup of it, or set CASEBOOK_SECRET_KEY to the key the existing secrets were sealed with`,
      );
      expect(fs.existsSync(file)).toBe(false);
      expect(await checkRows()).toEqual([]);
    });

    it('tries one stored value of every kind: tracker credentials, webhook headers and TOTP secrets too', async () => {
      // Each kind alone sealed under key B (the webhook secret under A stays): key A now fails on that kind.
      await db
        .insertInto('integrations')
        .values({
          id: 'int1',
          tenant_id: 'default',
          name: 'Tracker',
          type: 'tracker_a',
          config: '{}',
          token_enc: seal('tracker-token', KEY_B, 'casebook:integration-credentials:v1'),
          created_by: null,
          created_at: now,
          updated_at: now,
        })
        .execute();
      await expect(verifySecretKey(db, fromEnv(KEY_A))).rejects.toThrow(refusal('a tracker credential'));
      await db
        .updateTable('integrations')
        .set({ token_enc: seal('tracker-token', KEY_A, 'casebook:integration-credentials:v1') })
        .execute();

      await db
        .updateTable('webhooks')
        .set({ headers_enc: seal('{"X-Token":"t"}', KEY_B, 'casebook:webhook-secrets:v1') })
        .execute();
      await expect(verifySecretKey(db, fromEnv(KEY_A))).rejects.toThrow(
        refusal("a webhook's custom headers"),
      );
      await db
        .updateTable('webhooks')
        .set({ headers_enc: seal('{"X-Token":"t"}', KEY_A, 'casebook:webhook-secrets:v1') })
        .execute();

      const user = await db
        .insertInto('users')
        .values({
          tenant_id: 'default',
          email: 'a@example.com',
          email_norm: 'a@example.com',
          name: 'A',
          role: 'owner',
          password_hash: null,
          avatar: null,
          deactivated_at: null,
          created_at: now,
          updated_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await db
        .insertInto('two_factor')
        .values({
          user_id: user.id,
          tenant_id: 'default',
          secret_enc: seal('JBSWY3DPEHPK3PXP', KEY_B),
          enabled_at: now,
          last_step: 0,
          created_at: now,
          updated_at: now,
        })
        .execute();
      await expect(verifySecretKey(db, fromEnv(KEY_A))).rejects.toThrow(
        refusal('a two-factor \\(TOTP\\) secret'),
      );
      await db
        .updateTable('two_factor')
        .set({ secret_enc: seal('JBSWY3DPEHPK3PXP', KEY_A) })
        .execute();
      expect(await checkRows()).toEqual([]);
    });

    it('starts with the key the secrets were sealed with and writes the check value; then other keys fail on it', async () => {
      await expect(verifySecretKey(db, fromEnv(KEY_A))).resolves.toBeUndefined();
      expect((await checkRows()).map((r) => r.name)).toEqual(['secret_key_check']);
      await expect(verifySecretKey(db, fromEnv(KEY_A))).resolves.toBeUndefined();
      await expect(verifySecretKey(db, fromEnv(KEY_B))).rejects.toThrow(
        /does not open this database's secrets: they were sealed with another key\. .*set CASEBOOK_SECRET_KEY to the key the database was sealed with/,
      );
    });
  });
}
