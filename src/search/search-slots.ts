/**
 * Bounds the costly searches one client runs at once (issue 34): a facet count or a spec-filtered list
 * reads every match, and at 10,000 items a worst case (10 spec names × 20 values with facets) runs for
 * 1–2 s. Eight of them at once from one client filled the pool and the database's CPU, so that every
 * other client's reads waited; with this bound the excess is refused at once (429 RATE_LIMITED,
 * Retry-After: 1) and costs nothing. Per client IP and per process: a client that spreads its
 * searches over the workers of an instance (WORKERS=N) gets N times the bound, which still holds each
 * worker's pool for others. A cached answer (rest/run.ts) never gets here, so it is never counted.
 */
import { type ConcurrencyLimit, createConcurrencyLimit } from '../auth/concurrency-limit.ts';

/** Costly searches one client IP may run at once in one process. */
export const SEARCHES_PER_CLIENT = 2;

export interface SearchSlots {
  /** Runs `task` in one of `clientIp`'s slots; throws RATE_LIMITED (Retry-After 1) when they are all taken. */
  run<T>(clientIp: string, task: () => Promise<T>): Promise<T>;
}

export function createSearchSlots(perClient = SEARCHES_PER_CLIENT): SearchSlots {
  // One semaphore per client that has a search running; none kept for idle clients.
  const clients = new Map<string, ConcurrencyLimit>();
  return {
    async run(clientIp, task) {
      let slots = clients.get(clientIp);
      if (!slots) {
        slots = createConcurrencyLimit(
          perClient,
          0,
          'Too many searches with facets or spec filters at once; retry in a moment.',
        );
        clients.set(clientIp, slots);
      }
      try {
        return await slots.run(task);
      } finally {
        if (slots.running === 0 && slots.waiting === 0) clients.delete(clientIp);
      }
    },
  };
}
