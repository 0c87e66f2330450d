/** The synonym groups kept between searches (src/search/synonym-index.ts). */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SqlReader } from '../../src/db/database.ts';
import { UNHEARD_MS } from '../../src/search/generation-kept.ts';
import { SynonymIndexCache } from '../../src/search/synonym-index.ts';

function countingReader(groups: string[][]) {
  const reader = {
    kind: 'postgres' as const,
    reads: 0,
    groups,
    query: async () => {
      reader.reads++;
      return reader.groups.map((terms) => ({ terms }));
    },
  };
  return reader;
}

describe('synonym index cache', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['performance'] }));
  afterEach(() => vi.useRealTimers());

  it('when the catalogue cache hears every change, then the groups are read once per generation', async () => {
    const generations = { enabled: true, generation: 1 };
    const cache = new SynonymIndexCache(generations);
    const sql = countingReader([['跑鞋', 'sneaker']]);
    const first = await cache.get(sql as unknown as SqlReader);
    vi.advanceTimersByTime(60_000);
    expect(await cache.get(sql as unknown as SqlReader)).toBe(first);
    expect(sql.reads).toBe(1);
    generations.generation++;
    await cache.get(sql as unknown as SqlReader);
    expect(sql.reads).toBe(2);
  });

  it('when changes cannot be heard (the cache off), then the groups are kept at most UNHEARD_MS, and a change made here is read at once', async () => {
    const generations = { enabled: false, generation: 1 };
    const cache = new SynonymIndexCache(generations);
    const sql = countingReader([['跑鞋', 'sneaker']]);
    const first = await cache.get(sql as unknown as SqlReader);
    vi.advanceTimersByTime(UNHEARD_MS - 1);
    expect(await cache.get(sql as unknown as SqlReader)).toBe(first);
    expect(sql.reads).toBe(1);
    vi.advanceTimersByTime(1);
    // Read again; the same groups keep the same index object (compiled keywords stay valid).
    expect(await cache.get(sql as unknown as SqlReader)).toBe(first);
    expect(sql.reads).toBe(2);
    sql.groups = [['跑鞋', 'trainer']];
    generations.generation++;
    const changed = await cache.get(sql as unknown as SqlReader);
    expect(sql.reads).toBe(3);
    expect(changed).not.toBe(first);
    expect(changed.get('跑鞋')).toEqual([['跑鞋', 'trainer']]);
  });
});
