/**
 * The benchmark's turns (bench/load.ts): the service and the floor take 2 s turns in the order
 * A B B A A B …, so a drift of the shared machine's speed falls on both alike; long requests keep one
 * stretch each.
 */
import { describe, expect, it } from 'vitest';
import { turnOrder, turnsFor, warmUpP99 } from '../../bench/load.ts';

describe('bench turns', () => {
  it('when a full run measures short requests, then 10 s become five 2 s turns each', () => {
    expect(turnsFor(10, 40)).toBe(5);
  });

  it('when requests take long (p99 over 100 ms) or the run is short (quick mode), then one stretch each', () => {
    expect(turnsFor(10, 101)).toBe(1);
    expect(turnsFor(10, 4_000)).toBe(1);
    expect(turnsFor(0.5, 10)).toBe(1);
  });

  it('when no request of the warm-up completed (its p99 reads 0), then its requests count as the longest: one stretch each', () => {
    expect(turnsFor(10, warmUpP99(0, 0))).toBe(1);
    expect(turnsFor(10, warmUpP99(1_200, 40))).toBe(5);
  });

  it('when two servers take turns, then each pair is in the order opposite to the last (A B B A A B …)', () => {
    expect(
      turnOrder(5)
        .map(([, server]) => 'AB'[server])
        .join(''),
    ).toBe('ABBAABBAAB');
    // Each server has every turn once, with that turn's request sequence.
    expect(turnOrder(3)).toEqual([
      [0, 0],
      [0, 1],
      [1, 1],
      [1, 0],
      [2, 0],
      [2, 1],
    ]);
  });

  it('when the turns are even, then the two servers sit at the same mean position in time', () => {
    const mean = (server: 0 | 1) => {
      const at = turnOrder(4).flatMap(([, s], i) => (s === server ? [i] : []));
      return at.reduce((a, b) => a + b, 0) / at.length;
    };
    expect(mean(0)).toBe(mean(1));
  });
});
