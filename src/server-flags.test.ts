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
    expect(withServerFlags(['--max-semi-space-size=32'], '')).toEqual(['--max-semi-space-size=32']);
    expect(withServerFlags(['--max_semi_space_size=32'], '')).toEqual(['--max_semi_space_size=32']);
  });

  it('adds nothing that NODE_OPTIONS sets already (a command-line flag would override it)', () => {
    expect(withServerFlags([], '--enable-source-maps --max-semi-space-size=4')).toEqual([]);
  });
});
