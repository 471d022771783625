/** A small JSON client for the public API that fails loudly: the generator must not silently build less data. */
export class Client {
  constructor(
    readonly baseUrl: string,
    readonly apiKey: string,
  ) {}

  async call<T = any>(method: string, path: string, body?: unknown): Promise<T> {
    const url = path.startsWith('/api/') ? `${this.baseUrl}${path}` : `${this.baseUrl}/api/public/v0${path}`;
    const res = await fetch(url, {
      method,
      headers: {
        authorization: `ApiKey ${this.apiKey}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path} → ${res.status}: ${text.slice(0, 500)}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  get = <T = any>(path: string) => this.call<T>('GET', path);
  post = <T = any>(path: string, body?: unknown) => this.call<T>('POST', path, body);
}

/** Runs `fn` over `items` with at most `limit` in flight. */
export async function mapLimit<T, R>(
  items: T[],
  limit: number,
  fn: (item: T, i: number) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i], i);
      }
    }),
  );
  return out;
}
