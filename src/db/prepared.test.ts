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
