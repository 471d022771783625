import { expect, it } from 'vitest';
import { describeEachDb } from '../../test/helpers/test-app.js';
import type { Db } from './create-db.js';
import { prepareQuery } from './prepared.js';

describeEachDb('prepareQuery', (t) => {
  const userByEmail = prepareQuery((db: Db, tenantId: string, email: string) =>
    db
      .selectFrom('users')
      .select(['id', 'email'])
      .where('tenant_id', '=', tenantId)
      .where('email', '=', email),
  );

  it('answers each call with its own arguments, outside and inside a transaction', async () => {
    const owner = await t.db.selectFrom('users').select(['id', 'email']).executeTakeFirstOrThrow();
    expect(await userByEmail.executeTakeFirst(t.db, t.tenantId, owner.email)).toEqual(owner);
    expect(await userByEmail.executeTakeFirst(t.db, t.tenantId, 'nobody@example.com')).toBeUndefined();
    expect(await userByEmail.execute(t.db, 'no-such-tenant', owner.email)).toEqual([]);
    await t.db.transaction().execute(async (trx) => {
      expect(await userByEmail.executeTakeFirst(trx, t.tenantId, owner.email)).toEqual(owner);
    });
  });

  it('never runs inside another flow’s open transaction: it waits, and sees nothing that was rolled back', async () => {
    const email = `ghost-${Date.now().toString(36)}@example.com`;
    let seenInside: unknown = 'not run';
    let outside: Promise<unknown> | undefined;
    await expect(
      t.db.transaction().execute(async (trx) => {
        await trx
          .insertInto('users')
          .values({
            tenant_id: t.tenantId,
            email,
            email_norm: email,
            name: 'Ghost',
            role: 'viewer',
            password_hash: null,
            avatar: null,
            deactivated_at: null,
            created_at: new Date().toISOString(),
            updated_at: new Date().toISOString(),
          })
          .execute();
        // Started while the transaction is open, on the database handle (as another request would).
        outside = userByEmail.executeTakeFirst(t.db, t.tenantId, email).then((row) => (seenInside = row));
        await new Promise((r) => setTimeout(r, 20));
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    await outside;
    expect(seenInside).toBeUndefined();
  });

  it('counts the rows a prepared write changed', async () => {
    const touch = prepareQuery((db: Db, tenantId: string, name: string) =>
      db.updateTable('tenants').set({ name }).where('id', '=', tenantId),
    );
    const before = await t.db
      .selectFrom('tenants')
      .select('name')
      .where('id', '=', t.tenantId)
      .executeTakeFirstOrThrow();
    expect(await touch.executeCount(t.db, t.tenantId, before.name)).toBe(1);
    expect(await touch.executeCount(t.db, 'no-such-tenant', before.name)).toBe(0);
  });

  it('refuses a query that computes with an argument instead of using it as a value', async () => {
    const wrong = prepareQuery((db: Db, email: string) =>
      db.selectFrom('users').select('id').where('email', '=', `${email}`.toLowerCase()),
    );
    await expect(wrong.execute(t.db, 'a@example.com')).rejects.toThrow(/argument 1 is not used as a value/);
  });
});
