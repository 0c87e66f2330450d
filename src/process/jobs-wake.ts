/**
 * A job a serving worker queues is run by its instance's background process (background.ts): the
 * worker says so to the primary (`relayJobsWake`), which passes it on, so the job is looked for at
 * once instead of at the background process's next poll (2 s for imports).
 */
import cluster from 'node:cluster';

export const JOBS_WAKE = 'shop:jobs-wake';

export interface JobsWake {
  type: typeof JOBS_WAKE;
  queue: string;
}

/** In a worker: has the primary wake the background process for `queue`. Elsewhere: nothing to do. */
export function relayJobsWake(queue: string): void {
  if (cluster.isWorker && process.connected) process.send?.({ type: JOBS_WAKE, queue } satisfies JobsWake);
}
