/**
 * Background work (imports, contract §13.2) as jobs of pg-boss: an established library that keeps its
 * jobs in PostgreSQL, hands each job to one process of the whole deployment (`FOR UPDATE SKIP LOCKED`)
 * and gives a job whose process died back to the queue when its lease (`expireInSeconds`) runs out.
 * Why pg-boss and not graphile-worker: it runs on the embedded database too — it only needs something
 * that executes SQL (`db.executeSql`), so PGlite serves it exactly as PostgreSQL does, with the same
 * guarantees for the single process; graphile-worker needs a `pg` pool with LISTEN. Its schema is
 * created by our own migration (20261204000000_jobs), so it starts with `migrate: false`.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import PgBoss from 'pg-boss';
// @ts-expect-error pg-boss ships no types for its internal modules (see failedUnawaited)
import Manager from 'pg-boss/src/manager.js';
import type { Config } from '../config/config.ts';
import type { Database, SqlQuery } from '../db/database.ts';
import type { Logger } from '../logger.ts';
import { relayJobsWake } from '../process/jobs-wake.ts';

export interface JobQueue {
  /**
   * Queues one job (this process looks for it at once); with `key`, none is queued when one with the
   * same key already waits (the queue's policy).
   */
  send(queue: string, data: object, options?: { key?: string }): Promise<void>;
  /**
   * Queues jobs as part of the caller's transaction (`query` runs in it): they exist exactly when it
   * commits. `startAfter`: not before then; `leaseSeconds` (default JOB_LEASE_SECONDS): how long one
   * run may take before it is taken for dead. Call `wake(queue)` after the commit to look at once.
   */
  sendWithin(
    query: SqlQuery,
    queue: string,
    jobs: Array<{ data: object; startAfter?: Date }>,
    options?: { leaseSeconds?: number },
  ): Promise<void>;
  /**
   * Has this process look for jobs of `queue` now (ones its own committed transaction queued); a
   * process that does not run them has its instance's background process look.
   */
  wake(queue: string): void;
  /**
   * Has this process take jobs of `queue`: `workers` (default one) each fetch up to `batchSize`
   * (default one) jobs at once and run them side by side, looking for more every `pollSeconds`
   * (default 2) — at once after a full batch, when more may be due. `handler` throwing, or the process
   * dying, leaves the job to be tried again (by any process) once its lease ends.
   */
  work(
    queue: string,
    handler: (data: Record<string, unknown>, id: string) => Promise<void>,
    options?: { workers?: number; batchSize?: number; pollSeconds?: number },
  ): Promise<void>;
  /** True once stop() was called: a running job should hand on the rest of its work. */
  stopping(): boolean;
  /** Takes no more jobs and waits (up to `timeoutMs`) for the running one to return. */
  stop(timeoutMs: number): Promise<void>;
}

/**
 * pg-boss 10 completes (or fails) a batch after its handler without awaiting the promise (manager.js
 * `onFetch` calls `this.complete` / `this.fail` on its Manager): with the database unreachable at that
 * moment the promise rejects with nobody listening — an unhandled rejection, which ends a Node process
 * (a background process, or a test run). Every such promise gets a listener here, on the Manager
 * class those calls go to; a caller that awaits it still sees the rejection. The job, left active,
 * comes back when its lease ends. (test/jobs/job-queue.test.ts: a database gone as a batch ends.)
 */
let failedUnawaited: (err: unknown, method: string) => void = () => {};
for (const method of ['complete', 'fail'] as const) {
  const prototype = (Manager as { prototype: Record<string, (...args: unknown[]) => Promise<unknown>> }).prototype;
  const original = prototype[method]!;
  const listened = function (this: unknown, ...args: unknown[]) {
    const settled = original.apply(this, args);
    settled.catch((err: unknown) => failedUnawaited(err, method));
    return settled;
  };
  // PgBoss exposes a Manager's functions under their names (index.js #promoteFunctions).
  Object.defineProperty(listened, 'name', { value: method });
  prototype[method] = listened;
}

/** How often a process asks for new jobs (one it queued itself it looks for at once). */
const POLL_SECONDS = 2;

export interface JobQueueOptions {
  /**
   * This process runs jobs (work()), and so also finds expired leases (pg-boss's supervisor). A
   * serving worker beside a background process (process/background.ts) only queues them.
   */
  runsJobs: boolean;
}

export async function openJobQueue(
  db: Database,
  config: Config,
  log: Logger,
  { runsJobs }: JobQueueOptions,
): Promise<JobQueue> {
  // PostgreSQL: a small pool of pg-boss's own (its polling is no request's statement); the embedded
  // database: its one session, outside the statements counted and timed for requests.
  // Client-side bounds: a database that stops answering fails the queue's polls (tried again at the
  // next one) instead of holding them, and a stop, for ever.
  const connection = db.url
    ? {
        connectionString: db.url,
        max: 2,
        application_name: 'shop-jobs',
        connectionTimeoutMillis: 10_000,
        query_timeout: 60_000,
      }
    : { db: db.backgroundSql! };
  const boss = new PgBoss({
    ...connection,
    schema: 'pgboss',
    migrate: false,
    // Expired leases are found (and their jobs given back) by the supervisor; one process a time does it.
    supervise: runsJobs,
    maintenanceIntervalSeconds: config.jobs.maintenanceSeconds,
    monitorStateIntervalSeconds: 600,
    schedule: false,
  } as PgBoss.ConstructorOptions);
  boss.on('error', (err: Error) => log.warn({ err }, 'job queue: maintenance failed (tried again at its next turn)'));
  failedUnawaited = (err, method) =>
    log.warn({ err }, `job queue: ${method} failed (the job comes back when its lease ends)`);
  await boss.start();
  if (!db.url && runsJobs) await releaseDeadLeases(boss, db);
  const workers = new Map<string, string[]>();
  const wake = (queue: string) => {
    const here = workers.get(queue);
    // Queued by a serving worker: its instance's background process runs it, and is told at once.
    if (!here) return relayJobsWake(queue);
    for (const worker of here) boss.notifyWorker(worker);
  };
  let stopping = false;
  return {
    async send(queue, data, options) {
      await boss.send(queue, data, {
        expireInSeconds: config.jobs.leaseSeconds,
        ...(options?.key ? { singletonKey: options.key } : {}),
      });
      wake(queue);
    },
    async sendWithin(query, queue, jobs, options) {
      if (jobs.length === 0) return;
      const db = { executeSql: async (text: string, values: unknown[]) => ({ rows: await query(text, values) }) };
      await boss.insert(
        jobs.map(({ data, startAfter }) => ({
          name: queue,
          data,
          expireInSeconds: options?.leaseSeconds ?? config.jobs.leaseSeconds,
          ...(startAfter ? { startAfter } : {}),
        })),
        { db },
      );
    },
    wake,
    async work(queue, handler, options) {
      const ids: string[] = [];
      const batchSize = options?.batchSize ?? 1;
      for (let n = 0; n < (options?.workers ?? 1); n++) {
        let id: string | undefined;
        id = await boss.work<Record<string, unknown>>(
          queue,
          { batchSize, pollingIntervalSeconds: options?.pollSeconds ?? POLL_SECONDS },
          async (batch) => {
            const results = await Promise.allSettled(batch.map((job) => handler(job.data, job.id)));
            // pg-boss sleeps its polling interval after every fetch it was not woken during: one batch
            // per poll, whatever the queue holds. A full batch: more may be due, look again at once.
            if (batch.length === batchSize && id) boss.notifyWorker(id);
            const failed = batch.flatMap((job, i) => {
              const result = results[i]!;
              return result.status === 'rejected' ? [{ id: job.id, reason: result.reason as unknown }] : [];
            });
            const done = batch.filter((_, i) => results[i]!.status === 'fulfilled').map((job) => job.id);
            // pg-boss completes a batch without waiting, and fetches again at once: a job its handler
            // queued under the same key (an import's next slice) could not become active beside the one
            // still active (the `stately` policy), so the fetch found nothing and the worker slept its
            // polling interval — 2 s of an import standing still at every slice. Completed here first.
            if (done.length) await boss.complete(queue, done);
            if (failed.length === 0) return;
            if (failed.length === batch.length) throw failed[0]!.reason;
            // pg-boss completes a batch or fails it whole: the failed ones are failed here first (to be
            // tried again), and its completion of the batch then leaves them be (it completes only the
            // jobs still active).
            await Promise.all(
              failed.map(({ id: jobId, reason }) =>
                boss.fail(queue, jobId, { message: reason instanceof Error ? reason.message : String(reason) }),
              ),
            );
          },
        );
        ids.push(id);
      }
      workers.set(queue, ids);
    },
    stopping: () => stopping,
    async stop(timeoutMs) {
      stopping = true;
      // Its own pool (PostgreSQL) is closed with it; the embedded session is the database's to close.
      // Bounded: with the database silent, closing the pool would wait for statements that never end.
      const close = db.url !== undefined;
      const stopped = boss.stop({ graceful: true, wait: true, close, timeout: Math.max(timeoutMs, 1000) });
      await Promise.race([stopped.catch(() => {}), sleep(timeoutMs)]);
    },
  };
}

/**
 * The embedded database is one process's alone (its data directory's lock, db/data-dir-lock.ts), so a
 * job still active when that process opens it was left by a process that died: it is given back at
 * once (failed, to be tried again like an expired lease) instead of after its lease — an import killed
 * mid-file resumes as the service starts again, not JOB_LEASE_SECONDS later. On PostgreSQL another
 * instance may be running the job, and only its lease can tell.
 */
async function releaseDeadLeases(boss: PgBoss, db: Database): Promise<void> {
  const { rows } = await db.backgroundSql!.executeSql(
    "SELECT name, array_agg(id::text) AS ids FROM pgboss.job WHERE state = 'active' GROUP BY name",
    [],
  );
  const message = 'its process ended before it finished (the embedded database was opened again)';
  for (const { name, ids } of rows as Array<{ name: string; ids: string[] }>) {
    for (const id of ids) await boss.fail(name, id, { message });
  }
}
