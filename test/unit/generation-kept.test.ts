/** Values kept per catalogue generation, and reads under way shared (src/search/generation-kept.ts). */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GenerationKept, UNHEARD_MS } from '../../src/search/generation-kept.ts';

/** A read that finishes when told to, counting how often it was started. */
function heldReads() {
  const reads = {
    started: 0,
    pending: [] as Array<{ resolve: (v: string) => void; reject: (e: Error) => void }>,
    read: () => {
      reads.started++;
      return new Promise<string>((resolve, reject) => reads.pending.push({ resolve, reject }));
    },
  };
  return reads;
}

describe('values kept per catalogue generation', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['performance'] }));
  afterEach(() => vi.useRealTimers());

  it('when many searches ask while the value is being read, then they share the one read', async () => {
    const kept = new GenerationKept<object, string>({ enabled: false, generation: 1 });
    const key = {};
    const reads = heldReads();
    const asked = Array.from({ length: 50 }, () => kept.get(key, reads.read));
    expect(reads.started).toBe(1);
    reads.pending[0]!.resolve('groups');
    expect(await Promise.all(asked)).toEqual(Array(50).fill('groups'));
    // Kept now: no read while it is fresh.
    expect(kept.get(key, reads.read)).toBe('groups');
    expect(reads.started).toBe(1);
  });

  it('when the value goes stale (changes unheard), then one read again serves every search asking meanwhile', async () => {
    const kept = new GenerationKept<object, string>({ enabled: false, generation: 1 });
    const key = {};
    const reads = heldReads();
    const first = kept.get(key, reads.read);
    reads.pending[0]!.resolve('v1');
    await first;
    vi.advanceTimersByTime(UNHEARD_MS);
    const again = [kept.get(key, reads.read), kept.get(key, reads.read)];
    expect(reads.started).toBe(2);
    reads.pending[1]!.resolve('v2');
    expect(await Promise.all(again)).toEqual(['v2', 'v2']);
  });

  it('when the generation changes during a read, then a search after the change reads for itself, and the older read is not kept as new', async () => {
    const generations = { enabled: true, generation: 1 };
    const kept = new GenerationKept<object, string>(generations);
    const key = {};
    const reads = heldReads();
    const before = kept.get(key, reads.read);
    generations.generation = 2;
    const after = kept.get(key, reads.read);
    expect(reads.started).toBe(2);
    reads.pending[0]!.resolve('old');
    reads.pending[1]!.resolve('new');
    expect([await before, await after]).toEqual(['old', 'new']);
    expect(kept.get(key, reads.read)).toBe('new');
    expect(reads.started).toBe(2);
  });

  it('when a read fails, then those waiting on it fail, and the next search reads again', async () => {
    const kept = new GenerationKept<object, string>({ enabled: true, generation: 1 });
    const key = {};
    const reads = heldReads();
    const waiting = [kept.get(key, reads.read), kept.get(key, reads.read)];
    reads.pending[0]!.reject(new Error('connection lost'));
    for (const w of waiting) await expect(w).rejects.toThrow('connection lost');
    const next = kept.get(key, reads.read);
    expect(reads.started).toBe(2);
    reads.pending[1]!.resolve('groups');
    expect(await next).toBe('groups');
  });
});
