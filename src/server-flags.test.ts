import { describe, expect, it } from 'vitest';
import { SERVER_NODE_FLAGS, withServerFlags } from './cluster.js';

describe('server node flags for workers', () => {
  it('adds the server flags to the primary’s own flags', () => {
    expect(withServerFlags(['--enable-source-maps'])).toEqual(['--enable-source-maps', ...SERVER_NODE_FLAGS]);
  });

  it('keeps a value the operator chose instead of adding ours', () => {
    expect(withServerFlags(['--max-semi-space-size=32'])).toEqual(['--max-semi-space-size=32']);
  });
});
