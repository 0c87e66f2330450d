/**
 * The catalogue answer cache (contract §7.6): per process, bounded by CATALOG_CACHE_MB, holding
 * serialized public answers (with their ETag and compressed variants) and the totals of list filters.
 *
 * Never stale: a catalogue write empties it on the instance that wrote before that write answers, and
 * on every other instance when PostgreSQL's notification arrives (a trigger sends one for any change,
 * also from a SQL console). While the notification channel may have missed something (its connection
 * is lost or silent) the cache is off; when the channel is back it starts empty. A read that began
 * before an invalidation is not stored after it (the generation check), so it cannot bring old data back.
 */
import { LRUCache } from 'lru-cache';
import { keepable, type PreparedBody } from '../http/prepared-body.ts';
import type { Logger } from '../logger.ts';
import { memoBy } from '../memo.ts';
import { type CounterSeries, counterSeries } from '../observability/metric-series.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { AnswerCache } from '../rest/answer-cache.ts';

/** The notification channel the catalogue triggers speak on (prisma/migrations/…_catalog_notify). */
export const CATALOG_CHANNEL = 'shop_catalog';

/** A kept answer: its body, strong ETag and compressed forms (made on first demand). */
export type CachedAnswer = PreparedBody;

const MAX_TOTALS = 10_000;

type Lookup = 'answer' | 'total';
type LookupResult = 'hit' | 'miss' | 'off';

export class CatalogCache implements AnswerCache {
  readonly #answers?: LRUCache<string, CachedAnswer>;
  readonly #totals?: LRUCache<string, number>;
  #generation = 0;
  #listening = false;
  /** Per kind of lookup, its counter's series by outcome; absent when lookups are not counted. */
  readonly #lookupSeries?: Record<Lookup, (result: LookupResult) => CounterSeries>;

  constructor(
    maxBytes: number,
    /** `Cache-Control: public, max-age=N` on catalogue answers (CATALOG_MAX_AGE); 0 sends `no-cache`. */
    readonly maxAgeSeconds: number,
    private readonly log: Logger,
    /** Counts each lookup as a hit, a miss, or `off` (disabled, or not listening). */
    lookups?: Metrics['catalogCache'],
  ) {
    // Six series at most, each found once (memo.ts): every read counts one.
    if (lookups) {
      const seriesOf = (kind: Lookup) => memoBy((result: LookupResult) => counterSeries(lookups, { kind, result }));
      this.#lookupSeries = { answer: seriesOf('answer'), total: seriesOf('total') };
    }
    if (maxBytes <= 0) return;
    // An answer's size: its body, its compressed forms (about a third of it), the key and bookkeeping.
    this.#answers = new LRUCache({
      maxSize: maxBytes,
      sizeCalculation: (a, key) => Math.ceil(a.body.length * 1.4) + key.length + 200,
    });
    this.#totals = new LRUCache({ max: MAX_TOTALS });
  }

  /** True while answers may be served from and stored in the cache. */
  get enabled(): boolean {
    return this.#answers !== undefined && this.#listening;
  }

  /** Changes with every invalidation; a read stores its result only under the generation it began in. */
  get generation(): number {
    return this.#generation;
  }

  answer(key: string): CachedAnswer | undefined {
    const answer = this.enabled ? this.#answers?.get(key) : undefined;
    this.#count('answer', answer);
    return answer;
  }

  storeAnswer(key: string, answer: CachedAnswer, generation: number): void {
    if (this.enabled && generation === this.#generation) this.#answers?.set(key, keepable(answer));
  }

  total(filterKey: string): number | undefined {
    const total = this.enabled ? this.#totals?.get(filterKey) : undefined;
    this.#count('total', total);
    return total;
  }

  #count(kind: Lookup, found: unknown): void {
    this.#lookupSeries?.[kind](!this.enabled ? 'off' : found === undefined ? 'miss' : 'hit').inc();
  }

  storeTotal(filterKey: string, total: number, generation: number): void {
    if (this.enabled && generation === this.#generation) this.#totals?.set(filterKey, total);
  }

  /** The catalogue changed: forget everything (writes are rare; answers are cheap to make again). */
  invalidate(): void {
    this.#generation++;
    this.#answers?.clear();
    this.#totals?.clear();
  }

  /** The notification channel lost (false) or regained (true) its certainty of hearing every change. */
  channelHealth(listening: boolean): void {
    if (listening === this.#listening) return;
    this.invalidate();
    this.#listening = listening;
    if (this.#answers) {
      if (listening) this.log.info('catalogue cache on: listening for catalogue changes');
      else this.log.warn('catalogue cache off until catalogue changes can be heard again');
    }
  }
}
