import { expect, it } from 'vitest';
import { describeEachDb } from '../../../test/helpers/test-app.js';

describeEachDb(
  'MCP endpoint: the API’s rate limit',
  (t) => {
    const toolCall = (id: number) =>
      t.post(
        '/api/mcp',
        { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'list_projects', arguments: {} } },
        {
          key: null,
          headers: { authorization: `Bearer ${t.ownerKey}`, accept: 'application/json, text/event-stream' },
        },
      );

    it('counts each MCP request against the key’s budget, as an API request, then answers 429', async () => {
      for (let i = 1; i <= 3; i++) {
        const ok = await toolCall(i);
        expect(ok.status).toBe(200);
        expect(ok.body).toMatchObject({ jsonrpc: '2.0', id: i });
        expect(JSON.parse(ok.body.result.content[0].text).projects).toBeInstanceOf(Array);
      }
      const limited = await toolCall(4);
      expect(limited.status).toBe(429);
      expect(limited.body.code).toBe('RATE_LIMITED');
      expect(limited.headers['retry-after']).toBeDefined();
    });
  },
  { env: { CASEBOOK_RATE_LIMIT: '3' } },
);
