import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SERVER_NODE_FLAGS, withServerFlags } from './server-flags.js';

describe('server node flags', () => {
  it('adds the server flags to the primary’s own flags', () => {
    expect(withServerFlags(['--enable-source-maps'], '')).toEqual([
      '--enable-source-maps',
      ...SERVER_NODE_FLAGS,
    ]);
  });

  it('keeps a value the operator chose on the command line, in either spelling', () => {
    expect(withServerFlags(['--max-semi-space-size=32'], '')).toEqual([
      '--max-semi-space-size=32',
      '--heap-growing-percent=50',
    ]);
    expect(withServerFlags(['--max_semi_space_size=32', '--heap_growing_percent=100'], '')).toEqual([
      '--max_semi_space_size=32',
      '--heap_growing_percent=100',
    ]);
  });

  it('adds nothing that NODE_OPTIONS sets already (a command-line flag would override it)', () => {
    // --heap-growing-percent cannot be in NODE_OPTIONS (Node allows only some V8 flags there): it is always added.
    expect(withServerFlags([], '--enable-source-maps --max-semi-space-size=4')).toEqual([
      '--heap-growing-percent=50',
    ]);
  });

  it('are the flags npm start runs the server with', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '..', 'package.json'), 'utf8')) as {
      scripts: { start: string };
    };
    expect(pkg.scripts.start).toBe(`exec node ${SERVER_NODE_FLAGS.join(' ')} scripts/start.mjs`);
  });
});
