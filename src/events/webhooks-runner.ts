/**
 * A process's part of webhook delivery (contract §14.2), where background work runs (runtime.ts
 * `background`: on PostgreSQL each instance's background process): it dispatches new events to jobs
 * (one process at a time, event-dispatch.ts) and runs delivery jobs, up to DELIVERY_WORKERS ×
 * DELIVERY_BATCH at once (any process; a job makes one event's attempts, webhook-delivery.ts).
 */
import type { Config } from '../config/config.ts';
import type { Database } from '../db/database.ts';
import { failureStreaks } from '../jobs/failure-streaks.ts';
import type { Logger } from '../logger.ts';
import type { Services } from '../services.ts';
import { startEventDispatch } from './event-dispatch.ts';
import {
  createDelivery,
  DELIVERY_BATCH,
  DELIVERY_FAILURES_TOLERATED,
  DELIVERY_QUEUE,
  DELIVERY_WORKERS,
  putOffStuck,
  type QueuedDeliveryJob,
  webhooksOf,
} from './webhook-delivery.ts';

export interface Webhooks {
  /** Stops dispatching (the job queue, closed with the services, stops the attempts). */
  stop(): Promise<void>;
}

export async function runWebhooks(db: Database, services: Services, config: Config, log: Logger): Promise<Webhooks> {
  const deps = { sql: db.sql, jobs: services.jobs, config, log };
  const deliver = createDelivery(deps);
  const failures = failureStreaks<string>(DELIVERY_FAILURES_TOLERATED, services.jobs);
  await services.jobs.work(
    DELIVERY_QUEUE,
    async (data, id) => {
      const job = data as unknown as QueuedDeliveryJob;
      try {
        await deliver(job, id);
        failures.succeeded(id);
      } catch (err) {
        const { count, stuck } = failures.failed(id, err);
        const about = { err, webhook_ids: webhooksOf(job), event_id: job.eventId, failures: count };
        // Tried again (its attempts, where recorded, are marked interrupted then) — until it is stuck.
        if (!stuck) {
          log.warn(about, 'webhook delivery failed; tried again');
          throw err;
        }
        log.error(about, 'webhook delivery failed every time; put off to its next try');
        await putOffStuck(deps, job, id);
      }
    },
    // A batch of jobs per fetch, completed in one statement: a dispatch round queues a job for each
    // event of the last ROUND_GAP_MS at once. PostgreSQL: the jobs one process
    // dispatches wake its own workers at once, but another instance's only look at their next poll —
    // every half second, so no first attempt waits seconds for it (the cost: a cheap indexed fetch on
    // the job queue's own pool). The embedded database has one process.
    { workers: DELIVERY_WORKERS, batchSize: DELIVERY_BATCH, pollSeconds: db.url ? 0.5 : undefined },
  );
  const dispatch = startEventDispatch(db.sql, services.jobs, config, log);
  services.onCatalogChange(dispatch.kick);
  return { stop: () => dispatch.stop() };
}
