import cluster from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';

/*
 * `serve --workers N`: the workers share one port, so a scrape reaches any one of them. That worker asks the
 * primary, which asks every worker for its registry (prom-client's AggregatorRegistry over the cluster's IPC) and
 * answers the sum; so every scrape sees the whole service, whichever worker took it.
 */

const ASK = 'casebook:metrics-ask';
const ANSWER = 'casebook:metrics-answer';

interface Answer {
  type: typeof ANSWER;
  id: number;
  text?: string;
  error?: string;
}

/** In the primary: answers the workers' requests for the cluster's metrics. */
export function answerMetricsRequests(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: { type?: string; id?: number }) => {
    if (message?.type !== ASK || typeof message.id !== 'number') return;
    const id = message.id;
    aggregator.clusterMetrics().then(
      (text) => worker.send({ type: ANSWER, id, text } satisfies Answer),
      (err: Error) => worker.send({ type: ANSWER, id, error: err.message } satisfies Answer),
    );
  });
}

/** In a worker: hands `registry` to the primary's aggregation, and answers a function that reads the sum. */
export function clusterMetricsReader(registry: Registry): () => Promise<string> {
  // Constructing one adds the worker's listener that answers the primary with the registries set here.
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries([registry]);
  let next = 0;
  const waiting = new Map<number, { resolve: (text: string) => void; reject: (err: Error) => void }>();
  process.on('message', (message: Answer) => {
    if (message?.type !== ANSWER) return;
    const w = waiting.get(message.id);
    if (!w) return;
    waiting.delete(message.id);
    if (message.text !== undefined) w.resolve(message.text);
    else w.reject(new Error(`metrics of the other workers: ${message.error ?? 'no answer'}`));
  });
  return () =>
    new Promise<string>((resolve, reject) => {
      const id = next++;
      waiting.set(id, { resolve, reject });
      process.send!({ type: ASK, id });
    });
}
