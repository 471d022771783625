import type { Db } from './connection.js';

/** The service's own settings (table instance_settings): one row per name. */

/** Writes `value` under `name` unless a row is there already: the first writer wins, later ones change nothing. */
export async function insertSettingIfAbsent(db: Db, name: string, value: string, at: string): Promise<void> {
  await db
    .insertInto('instance_settings')
    .values({ name, value, updated_at: at })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
}

export async function readSetting(db: Db, name: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('instance_settings')
    .select('value')
    .where('name', '=', name)
    .executeTakeFirst();
  return row?.value;
}

/** Writes `value` under `name`, replacing what was there. */
export async function writeSetting(db: Db, name: string, value: string, at: string): Promise<void> {
  await db
    .insertInto('instance_settings')
    .values({ name, value, updated_at: at })
    .onConflict((oc) => oc.column('name').doUpdateSet({ value, updated_at: at }))
    .execute();
}
