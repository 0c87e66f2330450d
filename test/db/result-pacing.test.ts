/**
 * src/db/result-pacing.ts: database results reach their callers one per event-loop turn, in order,
 * so a saturated process still turns its loop (and accepts connections) at the pace of one request.
 */
import { describe, expect, it } from 'vitest';
import { paced } from '../../src/db/result-pacing.ts';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('result pacing', () => {
  it('when three results arrive in one turn, then they are handed over in order, one per turn', async () => {
    const delivered: string[] = [];
    for (const r of ['a', 'b', 'c']) paced(() => delivered.push(r));
    expect(delivered).toEqual([]);
    await nextTurn();
    expect(delivered).toEqual(['a']);
    await nextTurn();
    expect(delivered).toEqual(['a', 'b']);
    await nextTurn();
    expect(delivered).toEqual(['a', 'b', 'c']);
  });

  it('when the loop is idle, then a result is handed over in the same turn it arrived', async () => {
    const delivered: string[] = [];
    paced(() => delivered.push('only'));
    await nextTurn();
    expect(delivered).toEqual(['only']);
  });
});
