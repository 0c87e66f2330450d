/**
 * Rate-limit counters for one instance of the service (contract §11: "N workers together never allow
 * more than the limit"). A process serving alone counts in its own memory; a node:cluster worker
 * counts in the primary's memory over IPC (rate-limiter-flexible's RateLimiterCluster), so the
 * WORKERS of an instance share every count without Redis. Across instances, Redis adds the shared
 * view on top (login-limiter.ts).
 */
import cluster from 'node:cluster';
import { RateLimiterCluster, RateLimiterClusterMaster, RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

/** A limit: `points` per `duration` seconds, under a prefix unique to the limit. */
export interface CounterLimit {
  points: number;
  duration: number;
  keyPrefix: string;
}

/** What the login limits need of a counter; a spent limit rejects with a `RateLimiterRes`. */
export interface InstanceCounter {
  consume(key: string): Promise<unknown>;
  reward(key: string): Promise<unknown>;
  delete(key: string): Promise<unknown>;
  /** The key's count now (null: nothing counted in the window). */
  get(key: string): Promise<RateLimiterRes | null>;
}

/**
 * How long a worker waits for the primary's answer. The primary does nothing but supervise, so it
 * answers in well under a millisecond; a second means it is gone or wedged.
 */
const PRIMARY_TIMEOUT_MS = 1_000;

/** In the cluster primary, before any worker is forked: keeps the workers' counters (one set per instance). */
export function keepCountersForWorkers(): void {
  new RateLimiterClusterMaster();
}

/**
 * The counter of `limit` for this instance. In a worker, a primary that does not answer (it is
 * exiting, or its IPC channel broke) must not turn logins into 500s: the worker then counts in its
 * own memory, which still never lets more through than the limit per process.
 */
export function instanceCounter(limit: CounterLimit): InstanceCounter {
  const own = new RateLimiterMemory(limit);
  if (!cluster.isWorker) return own;
  const primary = new RateLimiterCluster({ ...limit, timeoutMs: PRIMARY_TIMEOUT_MS });
  const either =
    <A extends unknown[]>(call: (store: InstanceCounter, ...args: A) => Promise<unknown>) =>
    async (...args: A) => {
      try {
        return await call(primary, ...args);
      } catch (err) {
        if (err instanceof RateLimiterRes) throw err; // the limit is spent: that is the answer
        return call(own, ...args);
      }
    };
  return {
    consume: either((store, key: string) => store.consume(key)),
    reward: either((store, key: string) => store.reward(key)),
    delete: either((store, key: string) => store.delete(key)),
    get: either((store, key: string) => store.get(key)) as InstanceCounter['get'],
  };
}
