/**
 * The queue tries a failed job again every second, for as long as it fails: right while the database
 * is away (it comes back), wrong for a job that fails the same way every time — a bug, a value the
 * database refuses. An import would stay `running` for ever; a delivery would send its event to the
 * receiver every second. A job's failures in a row are counted here, in the process running it, and
 * after `tolerated` of them its caller ends it another way. A database that is away, or a process
 * that is stopping, counts as no failure: the job is right to wait for them.
 */
import { isDatabaseUnavailable } from '../errors/to-app-error.ts';
import type { JobQueue } from './job-queue.ts';

export interface FailureStreaks<K> {
  /**
   * Counts a failure of `key`'s job: its streak so far (0 when it does not count), and whether it has
   * now reached the tolerated number (the streak starts again: the caller ends the job another way).
   */
  failed(key: K, err: unknown): { count: number; stuck: boolean };
  /** `key`'s job succeeded: its streak ends. */
  succeeded(key: K): void;
}

export function failureStreaks<K>(tolerated: number, jobs: Pick<JobQueue, 'stopping'>): FailureStreaks<K> {
  const streaks = new Map<K, number>();
  return {
    failed(key, err) {
      if (isDatabaseUnavailable(err) || jobs.stopping()) return { count: 0, stuck: false };
      const count = (streaks.get(key) ?? 0) + 1;
      if (count < tolerated) {
        streaks.set(key, count);
        return { count, stuck: false };
      }
      streaks.delete(key);
      return { count, stuck: true };
    },
    succeeded: (key) => void streaks.delete(key),
  };
}
