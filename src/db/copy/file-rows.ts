import type { Db } from '../create-db.js';

export interface FileObject {
  id: string;
  storage: string;
  storage_key: string;
  size: number;
  sha256: string;
}

/** Every uploaded file's object (for copying bodies between stores), a page at a time in id order. */
export async function* fileObjects(db: Db, pageSize = 1000): AsyncGenerator<FileObject> {
  let after = '';
  for (;;) {
    const rows = await db
      .selectFrom('files')
      .select(['id', 'storage', 'storage_key', 'size', 'sha256'])
      .where('id', '>', after)
      .orderBy('id')
      .limit(pageSize)
      .execute();
    // size is a bigint column: PostgreSQL answers it as a string.
    const page = rows.map((r) => ({ ...r, size: Number(r.size) }));
    yield* page;
    if (page.length < pageSize) return;
    after = page.at(-1)!.id;
  }
}

export async function countFiles(db: Db): Promise<number> {
  const row = await db
    .selectFrom('files')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
