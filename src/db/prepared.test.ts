import { expect, it } from 'vitest';
import { describeEachDb } from '../../test/helpers/test-app.js';
import type { Db } from './create-db.js';
import { prepareQuery, prepareRowsInsert } from './prepared.js';
import type { InstanceSettingsTable } from './tables/instance.js';

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

describeEachDb('prepareRowsInsert', (t) => {
  const upsert = prepareRowsInsert(['name', 'value', 'updated_at'], (db: Db, rows: InstanceSettingsTable[]) =>
    db
      .insertInto('instance_settings')
      .values(rows)
      .onConflict((oc) => oc.column('name').doUpdateSet((eb) => ({ value: eb.ref('excluded.value') })))
      .returning('name'),
  );
  const settings = (prefix: string) =>
    t.db
      .selectFrom('instance_settings')
      .select(['name', 'value'])
      .where('name', 'like', `${prefix}%`)
      .orderBy('name')
      .execute();
  const rows = (prefix: string, n: number, value: string) =>
    Array.from({ length: n }, (_, i) => ({
      name: `${prefix}${String(i).padStart(3, '0')}`,
      value: `${value} ${i}`,
      updated_at: new Date().toISOString(),
    }));

  it('writes each call its own rows, for any number of rows, more row counts than it keeps compiled included', async () => {
    for (let n = 1; n <= 40; n++) {
      const answered = await upsert.execute(t.db, rows(`n${n}-`, n, 'first'));
      expect(answered.map((r) => r.name).sort()).toEqual(rows(`n${n}-`, n, '').map((r) => r.name));
    }
    expect(await settings('n3-')).toEqual(
      rows('n3-', 3, 'first').map(({ name, value }) => ({ name, value })),
    );
    await t.db.transaction().execute(async (trx) => {
      await upsert.execute(trx, rows('n3-', 3, 'again'));
    });
    expect(await settings('n3-')).toEqual(
      rows('n3-', 3, 'again').map(({ name, value }) => ({ name, value })),
    );
    expect(await settings('n40-')).toHaveLength(40);
    expect(await upsert.execute(t.db, [])).toEqual([]);
  });

  it('refuses a statement that uses a row value other than as a parameter', async () => {
    const wrong = prepareRowsInsert(
      ['name', 'value', 'updated_at'],
      (db: Db, rows: InstanceSettingsTable[]) =>
        db.insertInto('instance_settings').values(rows.map((r) => ({ ...r, value: 'constant' }))),
    );
    await expect(wrong.execute(t.db, rows('w-', 2, 'x'))).rejects.toThrow(/2 values are not parameters/);
  });
});
