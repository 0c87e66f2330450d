/**
 * Bounds the costly searches one client runs at once (issue 34): a facet count or a spec-filtered list
 * reads every match, and at 10,000 items a worst case (10 spec names × 20 values with facets) runs for
 * 1–2 s. Eight of them at once from one client filled the pool and the database's CPU, so that every
 * other client's reads waited; with this bound the excess is refused at once (429 RATE_LIMITED,
 * Retry-After: 1) and costs nothing. A cached answer (rest/run.ts) never gets here, so it is never counted.
 *
 * Per client IP and per instance (contract §11: limits hold for the whole service): a slot is a point of
 * an instance counter, kept by the cluster primary for every worker (auth/instance-counters.ts), taken
 * when a search starts and given back when it ends. A worker that dies mid-search cannot give its slot
 * back; the counter's window (SLOT_WINDOW_S, far longer than any statement may run) returns it.
 */
import { RateLimiterRes } from 'rate-limiter-flexible';
import { instanceCounter } from '../auth/instance-counters.ts';
import { AppError } from '../errors/app-error.ts';

/** How long a taken slot counts at most: a slot its worker never gave back is free again after this. */
const SLOT_WINDOW_S = 60;

export interface SearchSlots {
  /** Runs `task` in one of `clientIp`'s slots; throws RATE_LIMITED (Retry-After 1) when they are all taken. */
  run<T>(clientIp: string, task: () => Promise<T>): Promise<T>;
}

/** `perClient`: searches one client IP may run at once (SEARCH_CONCURRENCY_PER_CLIENT). */
export function createSearchSlots(perClient: number): SearchSlots {
  const slots = instanceCounter({ points: perClient, duration: SLOT_WINDOW_S, keyPrefix: 'search-slots' });
  return {
    async run(clientIp, task) {
      try {
        await slots.consume(clientIp);
      } catch (err) {
        if (!(err instanceof RateLimiterRes)) throw err;
        // A refused take still counted a point (the counter counts, then compares): given back.
        await slots.reward(clientIp).catch(() => {});
        throw new AppError(
          'RATE_LIMITED',
          'Too many searches with facets or spec filters at once; retry in a moment.',
          {
            retryAfter: 1,
          },
        );
      }
      try {
        return await task();
      } finally {
        // The slot back; a primary that does not answer leaves it to the window (never fails the search).
        await slots.reward(clientIp).catch(() => {});
      }
    },
  };
}
