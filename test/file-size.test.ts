import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const script = path.resolve('scripts/file-size.mjs');

describe('npm run check:size (scripts/file-size.mjs)', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A tree with `files` (path → number of lines, with or without a final newline), checked from its root. */
  const check = (files: Record<string, number | { lines: number; finalNewline: false }>) => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'casebook-file-size-'));
    dirs.push(root);
    for (const [file, spec] of Object.entries(files)) {
      const lines = typeof spec === 'number' ? spec : spec.lines;
      const body = Array.from({ length: lines }, (_, i) => `// line ${i + 1}`).join('\n');
      fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      fs.writeFileSync(path.join(root, file), typeof spec === 'number' ? `${body}\n` : body);
    }
    const run = spawnSync(process.execPath, [script], { cwd: root, encoding: 'utf8' });
    return { status: run.status, out: run.stdout + run.stderr };
  };

  it('exits 1 naming every hand-written source file over 500 lines with its line count, longest first', () => {
    const { status, out } = check({
      'src/modules/big.service.ts': 501,
      'web/src/features/Page.tsx': 640,
      'bench/run.ts': 722,
      'scripts/tool.mjs': { lines: 502, finalNewline: false },
      'scripts/old.js': 510,
      'web/src/app/styles.css': 1196,
      'src/small.ts': 20,
    });
    expect(status).toBe(1);
    const named = out.split('\n').filter((l) => l.startsWith('  '));
    expect(named).toEqual([
      '  web/src/app/styles.css: 1196 lines',
      '  bench/run.ts: 722 lines',
      '  web/src/features/Page.tsx: 640 lines',
      '  scripts/old.js: 510 lines',
      '  scripts/tool.mjs: 502 lines',
      '  src/modules/big.service.ts: 501 lines',
    ]);
  });

  it('exits 0 past tests, the generated API types, node_modules, other folders and types, and files of 500 lines', () => {
    const { status, out } = check({
      'src/modules/runs/runs.test.ts': 900,
      'web/src/features/Page.test.tsx': 900,
      'web/src/api/schema.d.ts': 30_000,
      'web/node_modules/pkg/index.js': 900,
      'src/node_modules/pkg/index.js': 900,
      'test/helpers/factories.ts': 900,
      'docs/notes.ts': 900,
      'src/data.json': 900,
      'src/exactly.ts': 500,
      'src/exactly-no-final-newline.ts': { lines: 500, finalNewline: false },
    });
    expect(out).toContain('No hand-written source file is over 500 lines.');
    expect(status).toBe(0);
  });
});
