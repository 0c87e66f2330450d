/**
 * Finding the newest events through the oldest-first feed (console/src/routes/_signed-in/-webhooks/newest-events.ts),
 * against a model of `events(after, limit)` with the service's `nextAfter` rule (events.service.ts):
 * a full page's last `seq`, else the log's newest.
 */
import { describe, expect, it } from 'vitest';
import { type EventsPage, newestEvents } from '../../console/src/routes/_signed-in/-webhooks/newest-events.ts';

/** A log holding seq first..newest (older ones past retention), and the requests made to it. */
function log(first: number, newest: number) {
  const calls: Array<[number, number]> = [];
  const read = async (after: number, limit: number): Promise<EventsPage<{ seq: number }>> => {
    calls.push([after, limit]);
    const events: Array<{ seq: number }> = [];
    for (let seq = Math.max(after + 1, first); seq <= newest && events.length < limit; seq++) events.push({ seq });
    const nextAfter = events.length === limit ? events.at(-1)!.seq : Math.max(after, newest);
    return { events, nextAfter };
  };
  return { read, calls };
}

const seqs = (events: Array<{ seq: number }>) => events.map((e) => e.seq);

describe('the newest events', () => {
  it('when the log is empty or shorter than a probe, then one or two requests give its newest, newest first', async () => {
    const empty = log(1, 0);
    expect(await newestEvents(empty.read, 20)).toEqual([]);
    expect(empty.calls).toHaveLength(1);
    const short = log(1, 7);
    expect(seqs(await newestEvents(short.read, 5))).toEqual([7, 6, 5, 4, 3]);
    expect(short.calls).toHaveLength(2);
  });

  it('when the log is long, then a few probes find its newest, whatever its length and its oldest kept', async () => {
    for (const [first, newest] of [
      [1, 100],
      [1, 101],
      [1, 200],
      [1, 12_345],
      [9_000, 1_000_000],
      [1, 1_048_576],
    ] as const) {
      const { read, calls } = log(first, newest);
      expect(seqs(await newestEvents(read, 3))).toEqual([newest, newest - 1, newest - 2]);
      expect(calls.length, `${first}..${newest}`).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(newest / 100 + 1)) + 4);
      expect(calls.every(([, limit]) => limit <= 100)).toBe(true);
    }
  });
});
