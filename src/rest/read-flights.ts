/**
 * Reads in flight, shared: while the answer cache is on, a request for an answer that is being read
 * right now waits for that read instead of starting its own. Without it, the first moments after a
 * start or after any catalogue write (which empties the cache) send one statement per request for the
 * same few hot answers — 64 connections asking for 10 keywords queue dozens of identical searches
 * behind the pool, and under a slow database every one of them can run into the statement timeout,
 * so the cache never fills.
 *
 * A read is shared only within the cache generation it began in (answer-cache.ts): a request that
 * arrives after an invalidation — after a write this instance answered, say — starts a read of its
 * own, so sharing never shows it older data than a kept answer could. A read that fails fails for
 * those waiting on it (they asked at the same moment); the next request reads again.
 */
import type { AnswerCache } from './answer-cache.ts';

export class ReadFlights<T> {
  readonly #reading = new Map<string, Promise<T>>();
  #generation: number;

  constructor(private readonly cache: Pick<AnswerCache, 'enabled' | 'generation'>) {
    this.#generation = cache.generation;
  }

  /** `read()`'s result for `key`: the one in flight for it in this generation, else a new one. */
  share(key: string, read: () => Promise<T>): Promise<T> {
    // With the cache off every request reads for itself, as the operator asked.
    if (!this.cache.enabled) return read();
    if (this.cache.generation !== this.#generation) {
      this.#reading.clear();
      this.#generation = this.cache.generation;
    }
    const inFlight = this.#reading.get(key);
    if (inFlight) return inFlight;
    const flight = read().finally(() => {
      if (this.#reading.get(key) === flight) this.#reading.delete(key);
    });
    this.#reading.set(key, flight);
    return flight;
  }
}
