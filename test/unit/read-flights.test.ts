/**
 * Reads shared while in flight (src/rest/read-flights.ts): one read per answer at a time while the
 * cache is on, never across an invalidation, never when the cache is off; a failed read is not kept.
 */
import { describe, expect, it } from 'vitest';
import { ReadFlights } from '../../src/rest/read-flights.ts';

/** A read the test finishes by hand, counting how often it was started. */
function controlledReads() {
  const started: Array<{ key: string; resolve: (v: string) => void; reject: (e: Error) => void }> = [];
  const read = (key: string) => () =>
    new Promise<string>((resolve, reject) => {
      started.push({ key, resolve, reject });
    });
  return { started, read };
}

describe('reads in flight', () => {
  it('when several ask for one answer while it is read, then it is read once and each gets it', async () => {
    const cache = { enabled: true, generation: 1 };
    const flights = new ReadFlights<string>(cache);
    const { started, read } = controlledReads();
    const asked = [1, 2, 3].map(() => flights.share('a', read('a')));
    const other = flights.share('b', read('b'));
    expect(started.map((s) => s.key)).toEqual(['a', 'b']);
    started[0]!.resolve('answer a');
    started[1]!.resolve('answer b');
    expect(await Promise.all(asked)).toEqual(['answer a', 'answer a', 'answer a']);
    expect(await other).toBe('answer b');
    // Done: the next request reads again (keeping answers is the cache's work, not this).
    void flights.share('a', read('a'));
    expect(started).toHaveLength(3);
  });

  it('when the cache was emptied while a read runs, then a later request reads anew and the new read is the one shared', async () => {
    const cache = { enabled: true, generation: 1 };
    const flights = new ReadFlights<string>(cache);
    const { started, read } = controlledReads();
    const before = flights.share('a', read('a'));
    cache.generation = 2; // a write was answered meanwhile
    const after = flights.share('a', read('a'));
    expect(started).toHaveLength(2);
    started[0]!.resolve('old');
    expect(await before).toBe('old');
    // The old read's end does not take the new one out of the map.
    const alsoAfter = flights.share('a', read('a'));
    expect(started).toHaveLength(2);
    started[1]!.resolve('new');
    expect([await after, await alsoAfter]).toEqual(['new', 'new']);
  });

  it('when a read fails, then those waiting on it get its error and the next request reads again', async () => {
    const flights = new ReadFlights<string>({ enabled: true, generation: 1 });
    const { started, read } = controlledReads();
    const asked = [flights.share('a', read('a')), flights.share('a', read('a'))];
    started[0]!.reject(new Error('statement timeout'));
    for (const a of asked) await expect(a).rejects.toThrow('statement timeout');
    const again = flights.share('a', read('a'));
    expect(started).toHaveLength(2);
    started[1]!.resolve('fine');
    expect(await again).toBe('fine');
  });

  it('when the cache is off, then every request reads for itself', async () => {
    const flights = new ReadFlights<string>({ enabled: false, generation: 1 });
    const { started, read } = controlledReads();
    void flights.share('a', read('a'));
    void flights.share('a', read('a'));
    expect(started).toHaveLength(2);
  });
});
