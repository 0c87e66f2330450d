/**
 * How soon the deliveries list asks again. An attempt's record stays `pending` after its retry was
 * made (the retry is a new record), so "some row is pending" would poll for ever: the list polls fast
 * only while an attempt is under way or an event's newest attempt has its retry due within a minute
 * (or just overdue), and slowly otherwise, so that new deliveries still appear.
 */

export const FAST_REFRESH_MS = 1000;
export const SLOW_REFRESH_MS = 5000;
const SOON_MS = 60_000;
const OVERDUE_MS = 15_000;

interface AttemptTimes {
  eventId: string;
  attempt: number;
  durationMs: number | null;
  nextAttemptAt: string | null;
}

export function refreshInterval(deliveries: readonly AttemptTimes[], now: number): number {
  const newest = new Map<string, AttemptTimes>();
  for (const d of deliveries) {
    if ((newest.get(d.eventId)?.attempt ?? 0) < d.attempt) newest.set(d.eventId, d);
  }
  for (const d of newest.values()) {
    if (d.durationMs === null) return FAST_REFRESH_MS;
    if (d.nextAttemptAt) {
      const due = Date.parse(d.nextAttemptAt) - now;
      if (due < SOON_MS && due > -OVERDUE_MS) return FAST_REFRESH_MS;
    }
  }
  return SLOW_REFRESH_MS;
}
