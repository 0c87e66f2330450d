/**
 * Metrics summed across node:cluster workers (contract §7.7) with prom-client's AggregatorRegistry:
 * the primary asks every worker for its registry and adds them up. The primary serves the sum on
 * METRICS_PORT; a worker serving `/metrics` on the main port (development) asks the primary for it.
 */
import cluster from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';
import type { MetricsText } from './metrics-endpoint.ts';

const ASK = 'shop:cluster-metrics?';
const ANSWER = 'shop:cluster-metrics';
/** prom-client gives up on a silent worker after 5 s; a worker waits a little longer for the primary. */
const ANSWER_TIMEOUT_MS = 6_000;

interface Ask {
  type: typeof ASK;
  id: number;
}
interface Answer {
  type: typeof ANSWER;
  id: number;
  text?: string;
  error?: string;
}

/** In the primary: the cluster's sum, for its own listener and for workers that ask. */
export function primaryClusterMetrics(): MetricsText {
  const aggregator = new AggregatorRegistry();
  const sum = () => aggregator.clusterMetrics();
  cluster.on('message', (worker, message: Ask) => {
    if (message?.type !== ASK) return;
    const reply = (answer: Omit<Answer, 'type' | 'id'>) => {
      if (worker.isConnected()) worker.send({ type: ANSWER, id: message.id, ...answer });
    };
    sum().then(
      (text) => reply({ text }),
      (err: Error) => reply({ error: err.message }),
    );
  });
  return sum;
}

/** In a worker: offers `registry` to the primary's sum, and returns how to ask the primary for the sum. */
export function workerClusterMetrics(registry: Registry): MetricsText {
  // Constructing one installs prom-client's listener that answers the primary in this worker.
  void new AggregatorRegistry();
  AggregatorRegistry.setRegistries([registry]);
  let nextId = 0;
  const waiting = new Map<number, (answer: Answer) => void>();
  process.on('message', (message: Answer) => {
    if (message?.type === ANSWER) waiting.get(message.id)?.(message);
  });
  return () =>
    new Promise<string>((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(
        () => settle({ type: ANSWER, id, error: 'the primary did not answer' }),
        ANSWER_TIMEOUT_MS,
      );
      const settle = (answer: Answer) => {
        clearTimeout(timer);
        waiting.delete(id);
        if (answer.text !== undefined) resolve(answer.text);
        else reject(new Error(`cluster metrics: ${answer.error}`));
      };
      waiting.set(id, settle);
      process.send?.({ type: ASK, id } satisfies Ask);
    });
}
