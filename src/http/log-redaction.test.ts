import { PassThrough } from 'node:stream';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { redactUrl, serializeRequest } from './log-redaction.js';
import { RequestLog } from './request-log.js';

describe('request URLs in the log', () => {
  it('replaces the path parameters a route declares secret, and only those', async () => {
    const stream = new PassThrough();
    let log = '';
    stream.on('data', (chunk: Buffer) => (log += chunk.toString()));
    const app = Fastify({
      logger: { level: 'info', stream, serializers: { req: serializeRequest } },
      logController: new RequestLog(),
    });
    app.get('/api/reports/:project/shared/:token', { config: { secretParams: ['token'] } }, async () => ({}));
    await app.ready();
    await app.inject({ method: 'GET', url: '/api/reports/ABC/shared/s3cr3t-share-token?page=2' });
    await app.close();
    const urls = log
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .filter((l) => l.msg === 'request completed')
      .map((l) => l.req.url);
    expect(urls).toEqual(['/api/reports/ABC/shared/****?page=2']);
    expect(log).not.toContain('s3cr3t-share-token');
  });

  it('replaces token pages and secret query values on any address, routed or not', () => {
    expect(redactUrl('/invite/abc')).toBe('/invite/****');
    expect(redactUrl('/reset-password/abc/extra?x=1')).toBe('/reset-password/****?x=1');
    expect(redactUrl('/device?USER_CODE=ABCD-EFGH&x=1&token')).toBe('/device?USER_CODE=****&x=1&token');
    expect(redactUrl('/a?to%6Ben=zz')).toBe('/a?to%6Ben=****');
    expect(redactUrl('/project/ABC/run/12?include=tcases')).toBe('/project/ABC/run/12?include=tcases');
    expect(redactUrl('/invitee/abc')).toBe('/invitee/abc');
  });

  it('finds token pages in any case and percent-encoding, as the web router does', () => {
    expect(redactUrl('/Invite/abc')).toBe('/Invite/****');
    expect(redactUrl('/INVITE/abc/more')).toBe('/INVITE/****');
    expect(redactUrl('/Reset-Password/abc?x=1')).toBe('/Reset-Password/****?x=1');
    expect(redactUrl('/sHaReD/abc')).toBe('/sHaReD/****');
    expect(redactUrl('/%69nvite/abc')).toBe('/%69nvite/****');
    expect(redactUrl('/Invitee/abc')).toBe('/Invitee/abc');
  });

  it('shows a secret as ****, the marker of the rest of the log', () => {
    expect(redactUrl('/invite/abc')).toBe('/invite/****');
    expect(redactUrl('/device?user_code=ABCD-EFGH')).toBe('/device?user_code=****');
  });
});
