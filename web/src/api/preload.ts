/**
 * Answers started before the application's code arrived (web/src/boot.ts), handed to the API client instead of
 * asking the service again. A cold page load otherwise waits for the application's JavaScript to be parsed and
 * run (a few hundred milliseconds on a slow machine) before its first request leaves; with these, the service
 * computes the page's data (10,000 run cases, the folder tree) meanwhile.
 */
export interface Preloaded {
  /** `performance.now()` when the request started. */
  at: number;
  response: Promise<Response>;
}

declare global {
  interface Window {
    /** By absolute URL: GET requests boot.ts started for the page being opened. */
    casebookPreloads?: Map<string, Preloaded>;
  }
}

/** An answer older than this is not trusted to be current: the page asks again. */
const FRESH_MS = 10_000;

/**
 * The preloaded answer to this GET, once (a body is read once), or undefined. A preload that failed on the
 * network is retried as an ordinary request.
 */
export function takePreloaded(request: Request): Promise<Response> | undefined {
  const preloads = window.casebookPreloads;
  if (!preloads || request.method !== 'GET') return undefined;
  const hit = preloads.get(request.url);
  if (!hit) return undefined;
  preloads.delete(request.url);
  if (performance.now() - hit.at > FRESH_MS) return undefined;
  return hit.response.catch(() => fetch(request));
}
