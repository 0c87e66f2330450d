/**
 * Timeouts that follow the machine rather than a fixed guess: a laptop busy with other work (or a
 * 2-core box shared by several people) runs a cold start several times slower than an idle one, and a
 * fixed 30 s then fails a test that was only slow. The scale is the run queue per core at the start of
 * the run (1 on an idle machine, 2 when twice as many processes want a core as there are cores),
 * measured once by global-setup.ts and passed to every test worker; bounded so a broken test still
 * fails within minutes. Kept free of vitest so vitest.config.ts can ask too.
 */
import { availableParallelism, loadavg } from 'node:os';

/** Where global-setup.ts leaves the scale it measured for the test workers. */
export const TIME_SCALE_ENV = 'SHOP_TEST_TIME_SCALE';

const MAX_SCALE = 6;

/** The run queue per core now, between 1 and MAX_SCALE (1 where the platform has no load average). */
export function measureTimeScale(): number {
  const perCore = loadavg()[0]! / availableParallelism();
  return Math.min(MAX_SCALE, Math.max(1, Math.round(perCore * 10) / 10));
}

/** The scale of this run: global setup's measurement, or one taken now (outside `npm test`). */
export function timeScale(): number {
  const measured = Number(process.env[TIME_SCALE_ENV]);
  return measured >= 1 ? measured : measureTimeScale();
}

/** `ms` on an idle machine, as long as it is allowed to take on this one now. */
export const scaled = (ms: number): number => Math.round(ms * timeScale());
