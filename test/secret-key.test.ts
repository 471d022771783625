import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../src/config.js';
import type { Db } from '../src/db/create-db.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { verifySecretKey, type SecretKey } from '../src/secret-key.js';
import { databaseTargets } from './helpers/databases.js';

const fromEnv = (key: string): SecretKey => ({ key, source: 'env', created: false });

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
      const rows = await db.selectFrom('instance_settings').selectAll().execute();
      expect(rows.map((r) => r.name)).toEqual(['secret_key_check']);

      // The winner starts again; so does every later process with its key, and no other.
      const winner = outcomes[0].status === 'fulfilled' ? 'first-key-0123456789' : 'second-key-0123456789';
      await expect(verifySecretKey(db, fromEnv(winner))).resolves.toBeUndefined();
      await expect(verifySecretKey(db, fromEnv('third-key-0123456789'))).rejects.toThrow(
        /set CASEBOOK_SECRET_KEY to the key the database was sealed with/,
      );
      expect(await db.selectFrom('instance_settings').selectAll().execute()).toEqual(rows);
    });
  });
}
