import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createParsers } from '../../lib/isolated/run.js';
import { parseIsolated } from './imports.parsing.js';

/* Reading an import file in the worker (no database: the parse alone). */

const MIB = 1024 * 1024;

describe('import files read in a worker thread', () => {
  const parsers = createParsers({ parsers: 2, parsersPerTenant: 1, parserMemoryMb: 96, parserSeconds: 600 });

  it("reads a 100 MiB CSV whole through the worker, the service's heap flat", async () => {
    const rows = 210_000;
    const row = (i: number) =>
      `"Suite ${i % 50}/Area ${i % 7}","Case ${i}: ${'lorem ipsum '.repeat(38)}",L-${i},low\r\n`;
    let bytes = 0;
    async function* file() {
      yield Buffer.from('Folder,Name,Legacy ID,Priority\r\n');
      for (let i = 0; i < rows; i += 1000) {
        let chunk = '';
        for (let j = i; j < i + 1000; j++) chunk += row(j);
        bytes += chunk.length;
        yield Buffer.from(chunk);
      }
    }
    global.gc?.();
    const before = process.memoryUsage().heapUsed;
    let peak = 0;
    let cases = 0;
    let last = '';
    for await (const item of parseIsolated(
      parsers,
      'alpha',
      async () => Readable.from(file()),
      { format: 'qasphere-csv', separator: ',' },
      { check: true, alive: async () => {} },
    )) {
      if ('case' in item) {
        cases++;
        last = item.case.legacyId ?? '';
      }
      if (cases % 10_000 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed - before);
    }
    expect(bytes).toBeGreaterThan(100 * MIB);
    expect(cases).toBe(rows);
    expect(last).toBe(`L-${rows - 1}`);
    expect(peak).toBeLessThan(64 * MIB);
  }, 180_000);
});
