import { describe, expect, it } from 'vitest';
import { copyOrder, type TableInfo } from './catalog.js';
import { rowDigest, TableChecksum, toTarget } from './values.js';

const table = (name: string, references: string[] = []): TableInfo => ({
  name,
  columns: [],
  key: ['id'],
  references,
  selfReferences: [],
});

describe('casebook copy: table order and values', () => {
  it('puts every table after the tables it references, ties alphabetical', () => {
    const order = copyOrder([
      table('results', ['runs', 'tcases']),
      table('runs', ['projects']),
      table('projects', ['tenants']),
      table('tcases', ['projects']),
      table('tenants'),
      table('audit_events', ['tenants']),
    ]).map((t) => t.name);
    expect(order).toEqual(['tenants', 'audit_events', 'projects', 'runs', 'tcases', 'results']);
  });

  it('refuses foreign keys that form a cycle, naming the tables', () => {
    expect(() => copyOrder([table('a', ['b']), table('b', ['a']), table('c')])).toThrow(
      'foreign keys form a cycle between a, b',
    );
  });

  it('converts booleans, dates and JSON to what the target column takes', () => {
    expect(toTarget(1, { name: 'x', type: 'boolean', nullable: false })).toBe(true);
    expect(toTarget(true, { name: 'x', type: 'integer', nullable: false })).toBe(1);
    expect(toTarget(new Date('2026-11-22T10:00:00Z'), { name: 'x', type: 'text', nullable: false })).toBe(
      '2026-11-22T10:00:00.000Z',
    );
    expect(toTarget({ a: 1 }, { name: 'x', type: 'text', nullable: true })).toBe('{"a":1}');
    expect(toTarget(null, { name: 'x', type: 'boolean', nullable: true })).toBeNull();
  });

  it('checksums rows the same whichever order they are read in and whichever dialect wrote them', () => {
    const columns = ['flag', 'id', 'title'];
    const a = new TableChecksum();
    const b = new TableChecksum();
    a.add(rowDigest({ id: 1, flag: 1, title: 'x' }, columns));
    a.add(rowDigest({ id: 2, flag: 0, title: 'y' }, columns));
    b.add(rowDigest({ id: 2, flag: false, title: 'y' }, columns));
    b.add(rowDigest({ id: 1, flag: true, title: 'x' }, columns));
    expect(b.hex()).toBe(a.hex());
    const c = new TableChecksum();
    c.add(rowDigest({ id: 1, flag: 1, title: 'x' }, columns));
    c.add(rowDigest({ id: 2, flag: 0, title: 'z' }, columns));
    expect(c.hex()).not.toBe(a.hex());
  });
});
