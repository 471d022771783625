import pg from 'pg';

/**
 * A dedicated PostgreSQL connection that LISTENs on `channel` and calls `onNotify` for each notification (and
 * once after every (re)connect, so work announced while it was away is not missed). A lost connection is
 * opened again after `retryMs`. The pool's connections cannot LISTEN: they return to the pool between queries.
 */
export function listenPg(
  url: string,
  channel: string,
  onNotify: () => void,
  options: { retryMs?: number; onError?: (err: Error) => void } = {},
): () => Promise<void> {
  let client: pg.Client | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const connect = () => {
    if (stopped) return;
    const c = new pg.Client({ connectionString: url });
    client = c;
    const retry = (err: Error) => {
      options.onError?.(err);
      c.removeAllListeners();
      c.on('error', () => {});
      void c.end().catch(() => {});
      if (client === c) client = undefined;
      if (!stopped) timer = setTimeout(connect, options.retryMs ?? 5_000);
    };
    c.on('error', retry);
    c.on('notification', () => onNotify());
    c.connect()
      .then(() => c.query(`LISTEN ${channel}`))
      .then(() => onNotify(), retry);
  };
  connect();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    const c = client;
    client = undefined;
    if (c) {
      c.removeAllListeners();
      c.on('error', () => {});
      await c.end().catch(() => {});
    }
  };
}
