import { describe, expect, it } from 'vitest';
import { describeEachDb } from '../../test/helpers/test-app.js';
import { userWithKey } from '../../test/helpers/factories.js';

describeEachDb(
  'rate limiting when on (D14)',
  (t) => {
    it('answers 429 with Retry-After and the D7 body once a key passes its limit per minute', async () => {
      const { key } = await userWithKey(t, 'viewer');
      for (let i = 0; i < 3; i++) {
        const ok = await t.get('/project', { key });
        expect(ok.status).toBe(200);
        expect(ok.headers['x-ratelimit-limit']).toBe('3');
      }
      const res = await t.get('/project', { key });
      expect(res.status).toBe(429);
      expect(res.body).toEqual({
        code: 'RATE_LIMITED',
        message: expect.stringMatching(/^rate limit of 3 requests per minute exceeded; retry in /),
      });
      const retryAfter = Number(res.headers['retry-after']);
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(60);
    });

    it('counts per key: another key of the same user and address still gets through', async () => {
      const first = await userWithKey(t, 'viewer');
      for (let i = 0; i < 4; i++) await t.get('/project', { key: first.key });
      expect((await t.get('/project', { key: first.key })).status).toBe(429);
      const second = await userWithKey(t, 'viewer');
      expect((await t.get('/project', { key: second.key })).status).toBe(200);
    });

    it('counts unauthenticated sign-in attempts per address, and leaves health checks alone', async () => {
      const from = (ip: string) => ({ key: null, headers: { 'x-forwarded-for': ip } });
      for (let i = 0; i < 3; i++) {
        expect(
          (await t.post('/api/auth/login', { email: 'x@example.com', password: 'y' }, from('10.50.0.1')))
            .status,
        ).toBe(401);
      }
      const limited = await t.post(
        '/api/auth/login',
        { email: 'x@example.com', password: 'y' },
        from('10.50.0.1'),
      );
      expect(limited.status).toBe(429);
      expect(limited.headers['retry-after']).toMatch(/^\d+$/);
      expect(
        (await t.post('/api/auth/login', { email: 'x@example.com', password: 'y' }, from('10.50.0.2')))
          .status,
      ).toBe(401);
      for (let i = 0; i < 5; i++) expect((await t.get('/healthz', from('10.50.0.1'))).status).toBe(200);
    });
  },
  { env: { CASEBOOK_RATE_LIMIT: '3' } },
);

describeEachDb('rate limiting by default', (t) => {
  describe('off', () => {
    it('never answers 429 and sends no rate-limit headers', async () => {
      expect(t.config.rateLimitPerMinute).toBe(0);
      for (let i = 0; i < 25; i++) {
        const res = await t.get('/project');
        expect(res.status).toBe(200);
        expect(res.headers['x-ratelimit-limit']).toBeUndefined();
      }
    });
  });
});
