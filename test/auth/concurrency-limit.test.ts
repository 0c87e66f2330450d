import { describe, expect, it } from 'vitest';
import { createConcurrencyLimit } from '../../src/auth/concurrency-limit.ts';

/** A task that runs until released, recording how many ran at once. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

describe('the password-hashing concurrency limit', () => {
  it('when more tasks than slots arrive, then at most the slot count run at once and all finish in order of arrival', async () => {
    const limit = createConcurrencyLimit(2, 10);
    let now = 0;
    let peak = 0;
    const finished: number[] = [];
    const gates = Array.from({ length: 6 }, gate);
    const runs = gates.map((g, i) =>
      limit.run(async () => {
        peak = Math.max(peak, ++now);
        await g.opened;
        now--;
        finished.push(i);
        return i;
      }),
    );
    await Promise.resolve();
    expect(limit.running).toBe(2);
    expect(limit.waiting).toBe(4);
    for (const g of gates) {
      g.open();
      await new Promise((r) => setImmediate(r));
    }
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(peak).toBe(2);
    expect(finished).toEqual([0, 1, 2, 3, 4, 5]);
    expect(limit.running).toBe(0);
  });

  it('when the queue is full, then the next task is refused at once with RATE_LIMITED and Retry-After 1', async () => {
    const limit = createConcurrencyLimit(1, 1);
    const g = gate();
    const first = limit.run(() => g.opened);
    const second = limit.run(async () => 'queued');
    await expect(limit.run(async () => 'refused')).rejects.toMatchObject({ code: 'RATE_LIMITED', retryAfter: 1 });
    g.open();
    await first;
    expect(await second).toBe('queued');
  });

  it('when a task throws, then its slot is released for the next one', async () => {
    const limit = createConcurrencyLimit(1, 5);
    await expect(limit.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await limit.run(async () => 'next')).toBe('next');
    expect(limit.running).toBe(0);
  });
});
