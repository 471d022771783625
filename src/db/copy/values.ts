import { createHash } from 'node:crypto';
import type { ColumnInfo } from './catalog.js';

/**
 * Values between the dialects. Casebook's own schema stores booleans as 0/1, timestamps as ISO text and JSON as
 * text on both databases (src/db/schema.ts), so today most values pass as they are; the conversions below keep a
 * column declared with a native type on one side (boolean, json/jsonb, bytea/blob, timestamp) copying right.
 */

const BOOLEAN = /^bool/;
const JSON_TYPE = /^json/;
const INTEGER = /int/;
const TEXT = /text|char|clob/;
const TIMESTAMP = /^(timestamp|date)/;

/** A value read from the source, as the target's column of `type` takes it. */
export function toTarget(value: unknown, column: ColumnInfo): unknown {
  if (value === null || value === undefined) return null;
  const { type } = column;
  if (BOOLEAN.test(type)) return value === true || value === 1 || value === '1' || value === 't';
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof Date) return value.toISOString();
  if (JSON_TYPE.test(type)) return typeof value === 'string' ? value : JSON.stringify(value);
  if (typeof value === 'object' && !(value instanceof Uint8Array)) return JSON.stringify(value);
  if (TEXT.test(type) && (typeof value === 'number' || typeof value === 'bigint')) return String(value);
  if (INTEGER.test(type) && typeof value === 'string' && /^-?\d+$/.test(value)) return Number(value);
  if (TIMESTAMP.test(type) && typeof value === 'number') return new Date(value).toISOString();
  return value;
}

/** One value written the same whichever database it was read from. */
function neutral(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Uint8Array) return { bytes: Buffer.from(value).toString('base64') };
  if (typeof value === 'object') return JSON.stringify(value);
  return value;
}

/** sha256 of a row, its columns in name order, in a form that does not depend on the dialect. */
export function rowDigest(row: Record<string, unknown>, columns: string[]): Buffer {
  return createHash('sha256')
    .update(JSON.stringify(columns.map((c) => neutral(row[c]))))
    .digest();
}

const LANES = 4;
const MASK = (1n << 64n) - 1n;

/**
 * A table's checksum: the sum of its rows' sha256 digests (modulo 2^256). A sum does not depend on the order the
 * rows are read in, and PostgreSQL sorts text keys by its collation where SQLite sorts them by bytes; each row is
 * there once (its primary key), so a row changed, missing or added changes the sum.
 */
export class TableChecksum {
  private readonly lanes = new Array<bigint>(LANES).fill(0n);
  rows = 0;

  add(digest: Buffer): void {
    for (let i = 0; i < LANES; i++) this.lanes[i] = (this.lanes[i] + digest.readBigUInt64BE(i * 8)) & MASK;
    this.rows++;
  }

  hex(): string {
    return this.lanes.map((l) => l.toString(16).padStart(16, '0')).join('');
  }
}
