/** How soon the console's deliveries list asks again (console/src/routes/_signed-in/-webhooks/delivery-refresh.ts). */
import { describe, expect, it } from 'vitest';
import {
  FAST_REFRESH_MS,
  refreshInterval,
  SLOW_REFRESH_MS,
} from '../../console/src/routes/_signed-in/-webhooks/delivery-refresh.ts';

const NOW = Date.parse('2026-11-27T10:00:00Z');
const at = (ms: number) => new Date(NOW + ms).toISOString();
const attempt = (eventId: string, n: number, durationMs: number | null, nextAttemptAt: string | null = null) => ({
  eventId,
  attempt: n,
  durationMs,
  nextAttemptAt,
});

describe('the deliveries list’s refresh', () => {
  it('when an attempt is under way or its retry is due within a minute, then it asks again every second', () => {
    expect(refreshInterval([attempt('evt_a', 1, null)], NOW)).toBe(FAST_REFRESH_MS);
    expect(refreshInterval([attempt('evt_a', 1, 12, at(5_000))], NOW)).toBe(FAST_REFRESH_MS);
    // Just overdue: the retry is being made.
    expect(refreshInterval([attempt('evt_a', 1, 12, at(-3_000))], NOW)).toBe(FAST_REFRESH_MS);
  });

  it('when a pending attempt was followed by a newer one, or its retry is far, then it asks every 5 s', () => {
    expect(refreshInterval([attempt('evt_a', 2, 9), attempt('evt_a', 1, 12, at(-1_000))], NOW)).toBe(SLOW_REFRESH_MS);
    expect(refreshInterval([attempt('evt_a', 3, 12, at(300_000))], NOW)).toBe(SLOW_REFRESH_MS);
    expect(refreshInterval([attempt('evt_a', 1, 12, at(-60_000))], NOW)).toBe(SLOW_REFRESH_MS);
    expect(refreshInterval([], NOW)).toBe(SLOW_REFRESH_MS);
  });
});
