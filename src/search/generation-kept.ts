/**
 * What a search reads of the catalogue besides its matches — the synonym groups (synonym-index.ts), a
 * keyword's forgiven form (forgiving.ts), the categories suggestions match (suggestions.ts) — kept per
 * key under the catalogue generation it was read in: a catalogue write changes the generation, on every
 * instance within §7.6's bound, and the next search reads again. Where changes cannot be heard (the
 * answer cache off), a value is kept for UNHEARD_MS at most, so a change made elsewhere shows within
 * §7.6's 1 s, and a change made here at once.
 *
 * A read under way is shared: the searches that find the value missing or stale while it is being read
 * wait for that read instead of each starting their own. Without this, at 64 connections and ~1,000
 * searches a second with the cache off, 64 % of the searches read the vocabulary again (6,798 reads
 * for 10,699 searches in 12 s, pg_stat_statements): each stale moment sent every search for the
 * keyword to the pool, whose queue made the moment last. Shared only within the generation the read
 * began in (as rest/read-flights.ts shares answers): a search after a change never waits for a read of
 * the data before it. A read that fails fails for those waiting on it; the next search reads again.
 */

/** What the catalogue cache tells: whether it hears every change, and the generation now. */
export interface Generations {
  readonly enabled: boolean;
  readonly generation: number;
}

/** How long a value is kept while changes made elsewhere cannot be heard (contract §7.6: 1 s at most). */
export const UNHEARD_MS = 500;

interface Kept<V> {
  generation: number;
  /** When its read began (performance.now()). */
  readAt: number;
  value: V;
}

export class GenerationKept<K extends object, V> {
  readonly #kept = new WeakMap<K, Kept<V>>();
  readonly #reading = new WeakMap<K, { generation: number; value: Promise<V> }>();

  constructor(private readonly generations: Generations) {}

  /**
   * `key`'s value: the one kept, if it is of this generation and fresh; else the read under way for it
   * in this generation; else `read(previous)` (`previous`: the value kept before, to reuse unchanged parts).
   */
  get(key: K, read: (previous: V | undefined) => Promise<V>): V | Promise<V> {
    const { enabled, generation } = this.generations;
    const kept = this.#kept.get(key);
    const fresh = enabled || performance.now() - (kept?.readAt ?? Number.NEGATIVE_INFINITY) < UNHEARD_MS;
    if (kept?.generation === generation && fresh) return kept.value;
    const reading = this.#reading.get(key);
    if (reading?.generation === generation) return reading.value;
    const readAt = performance.now();
    const value = read(kept?.value).then((value) => {
      // Under the generation the read began in: a change during the read makes the next search read again.
      this.#kept.set(key, { generation, readAt, value });
      return value;
    });
    const flight = { generation, value };
    this.#reading.set(key, flight);
    const done = () => {
      if (this.#reading.get(key) === flight) this.#reading.delete(key);
    };
    value.then(done, done);
    return value;
  }
}
