/**
 * One labelled series of a prom-client counter or histogram, updated without prom-client's work per
 * call. `counter.inc(labels)` and `histogram.observe(labels, v)` copy the labels, check each name,
 * build a string key from them and look the series up by it — on every request, for series a caller
 * knows in advance (a route's status, a pool, a cache lookup's outcome). Here the series' entry is
 * found once and updated in place: what prom-client exports (and sums across workers) is unchanged.
 *
 * This reads prom-client's own storage (`hashMap`, its entries' `value` / `sum`, `count` and
 * `bucketValues` keyed by upper bound), pinned in package-lock.json; test/unit/metric-series.test.ts
 * holds every export equal to the same updates made through prom-client's API, so an upgrade that
 * changes the storage fails there. An entry that prom-client let go of (`reset()`) is found again.
 */
import type { Counter, Histogram } from 'prom-client';

type Labels = Record<string, string>;
type Entry = { labels: Labels };
type CounterEntry = Entry & { value: number };
type HistogramEntry = Entry & { sum: number; count: number; bucketValues: Record<string, number> };
/** What of a counter or histogram this module reads: its series by key. */
type Storage<E> = { hashMap: Record<string, E | undefined> };

/** The key prom-client stores `labels` under, and the entry there (made by `create` when absent). */
function entryOf<E extends Entry>(metric: Storage<E>, labels: Labels, create: () => void): { key: string; entry: E } {
  const wanted = JSON.stringify(Object.entries(labels).sort());
  const find = () =>
    Object.entries(metric.hashMap).find(([, e]) => e && JSON.stringify(Object.entries(e.labels).sort()) === wanted);
  let found = find();
  if (!found) {
    create();
    found = find();
  }
  if (!found?.[1]) throw new Error(`no series for ${wanted}`);
  return { key: found[0], entry: found[1] };
}

export interface CounterSeries {
  inc(): void;
}

/** One series of `counter`, e.g. `counterSeries(requests, { method: 'GET', route, status: '200' })`. */
export function counterSeries(counter: Counter<string>, labels: Labels): CounterSeries {
  const storage = counter as unknown as Storage<CounterEntry>;
  // A counter made at 0 is exported as 0, as prom-client's first `inc` would leave it but one.
  const find = () => entryOf(storage, labels, () => counter.inc(labels, 0));
  let { key, entry } = find();
  return {
    inc() {
      if (storage.hashMap[key] !== entry) ({ key, entry } = find());
      entry.value += 1;
    },
  };
}

export interface HistogramSeries {
  observe(value: number): void;
}

/** One series of `histogram`: each observation counted in its bucket, its sum and its count. */
export function histogramSeries(histogram: Histogram<string>, labels: Labels): HistogramSeries {
  const storage = histogram as unknown as Storage<HistogramEntry> & { upperBounds: number[] };
  const bounds = storage.upperBounds;
  // The entries' bucket keys: the bounds as property names (what `bucketValues[bound]` converts to).
  const keys = bounds.map(String);
  const find = () => entryOf(storage, labels, () => histogram.zero(labels));
  let { key, entry } = find();
  return {
    observe(value) {
      if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
      if (storage.hashMap[key] !== entry) ({ key, entry } = find());
      entry.sum += value;
      entry.count += 1;
      // Above the last bound: only in `+Inf`, which is the count.
      for (let i = 0; i < bounds.length; i++) {
        if (value <= bounds[i]!) {
          entry.bucketValues[keys[i]!]! += 1;
          return;
        }
      }
    },
  };
}
