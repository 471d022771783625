import http from 'node:http';
import https from 'node:https';
import { OutboundRefused, type OutboundGuard } from './ssrf.js';

export interface OutboundRequest {
  url: string;
  method?: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs?: number;
  /** Bytes of the response body kept (the rest is read and dropped). */
  keepBytes?: number;
}

export interface OutboundResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  durationMs: number;
}

/**
 * One HTTP(S) request through the SSRF guard: the URL is checked, the name resolved through the guard's lookup
 * (the connection goes to the checked address, never to a second resolution), redirects are not followed (a 3xx
 * is an answer like any other), and the whole exchange is bounded by `timeoutMs` (10 s).
 * Network errors, the guard's refusals and timeouts reject.
 */
export function sendOutbound(guard: OutboundGuard, req: OutboundRequest): Promise<OutboundResponse> {
  const started = Date.now();
  const timeoutMs = req.timeoutMs ?? 10_000;
  const keep = req.keepBytes ?? 4096;
  return new Promise<OutboundResponse>((resolve, reject) => {
    let url: URL;
    try {
      url = new URL(req.url);
      if (url.protocol !== 'https:' && url.protocol !== 'http:')
        throw new Error(`unsupported scheme ${url.protocol}`);
      guard.checkUrl(url);
    } catch (err) {
      reject(err);
      return;
    }
    const body = Buffer.from(req.body, 'utf8');
    const client = url.protocol === 'https:' ? https : http;
    const request = client.request(
      url,
      {
        method: req.method ?? 'POST',
        headers: { ...req.headers, 'content-length': String(body.length) },
        lookup: guard.lookup as never,
        // A fresh connection each time: a kept-alive one would skip the lookup, and with it the check.
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        res.on('data', (chunk: Buffer) => {
          if (kept < keep) {
            chunks.push(chunk.subarray(0, keep - kept));
            kept += Math.min(chunk.length, keep - kept);
          }
        });
        res.on('end', () => {
          clearTimeout(timer);
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
            durationMs: Date.now() - started,
          });
        });
        res.on('error', (err) => {
          clearTimeout(timer);
          reject(err);
        });
      },
    );
    const timer = setTimeout(
      () => request.destroy(Object.assign(new Error(`timed out after ${timeoutMs} ms`), { code: 'TIMEOUT' })),
      timeoutMs,
    );
    request.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    request.end(body);
  });
}

/** A Retry-After beyond this is not waited for: the usual back-off applies. */
const MAX_RETRY_AFTER_MS = 3_600_000;

/** A response's Retry-After in whole seconds, as milliseconds; undefined when absent, a date, or over an hour. */
export function retryAfterMs(res: OutboundResponse): number | undefined {
  const ra = res.headers['retry-after'];
  if (typeof ra !== 'string' || !/^\d+$/.test(ra)) return undefined;
  const ms = Number(ra) * 1000;
  return ms <= MAX_RETRY_AFTER_MS ? ms : undefined;
}

/**
 * Why a request got no answer, in our own words with the error's code (`could not connect to the tracker
 * (ECONNREFUSED)`): never the text of a lower layer, which may quote what the other side sent. The guard's refusal
 * is ours already and kept as it is.
 */
export function failureWords(err: unknown, peer: string): string {
  if (err instanceof OutboundRefused) return err.message;
  const raw = (err as { code?: unknown } | null)?.code;
  const code = typeof raw === 'string' && /^[A-Z0-9_]{1,64}$/.test(raw) ? raw : undefined;
  if (code === 'TIMEOUT') return `${peer} did not answer in time (${(err as Error).message})`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `could not find ${peer}'s host name (${code})`;
  if (code === 'ECONNREFUSED' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH')
    return `could not connect to ${peer} (${code})`;
  if (code !== undefined && /CERT|TLS|SSL/.test(code))
    return `${peer}'s TLS certificate was refused (${code})`;
  return `the connection to ${peer} failed (${code ?? 'network error'})`;
}
