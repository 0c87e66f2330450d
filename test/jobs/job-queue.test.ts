/**
 * The job queue's batches (src/jobs/job-queue.ts): a worker fetches several jobs at once and runs them
 * side by side; pg-boss completes or fails a batch whole, so a job that threw must be given back to be
 * tried again while the others of its batch are completed — each job done once, the failed one again.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { TEST_DB } from '../helpers/test-database.ts';

const QUEUE = 'test-batches';
/** Like `imports`: one job waiting and one running per key. */
const CHAIN = 'test-chain';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
  // Retried at once (no delay), a few times at most.
  await app.db.sql.exec(
    `SELECT pgboss.create_queue('${QUEUE}', '{"policy":"standard","retryLimit":3,"retryDelay":0}')`,
  );
  await app.db.sql.exec(`SELECT pgboss.create_queue('${CHAIN}', '{"policy":"stately"}')`);
});
afterAll(() => app.close());

describe('job batches', () => {
  it('when one job of a batch throws, then it alone is tried again and the others are done once', async () => {
    // Queued before any worker looks, in one transaction: the first fetch takes all four.
    await app.db.sql.transaction((query) =>
      app.services.jobs.sendWithin(
        query,
        QUEUE,
        [0, 1, 2, 3].map((n) => ({ data: { n } })),
      ),
    );
    const runs: number[] = [];
    const seen = new Map<number, number>();
    let running = 0;
    let together = 0;
    await app.services.jobs.work(
      QUEUE,
      async (data) => {
        const n = data.n as number;
        runs.push(n);
        seen.set(n, (seen.get(n) ?? 0) + 1);
        together = Math.max(together, ++running);
        await new Promise((resolve) => setImmediate(resolve));
        running--;
        if (n === 2 && seen.get(n) === 1) throw new Error('the first try of job 2 fails');
      },
      { batchSize: 4 },
    );
    const jobs = () =>
      app.db.sql.query<{ n: number; state: string; retries: number }>(
        `SELECT (data->>'n')::int AS n, state::text AS state, retry_count AS retries FROM pgboss.job WHERE name = $1 ORDER BY 1`,
        [QUEUE],
      );
    await expect
      .poll(async () => (await jobs()).map((j) => j.state), { timeout: 15_000, interval: 100 })
      .toEqual(['completed', 'completed', 'completed', 'completed']);
    expect([...seen.entries()].sort()).toEqual([
      [0, 1],
      [1, 1],
      [2, 2],
      [3, 1],
    ]);
    expect(runs).toHaveLength(5);
    // The first four were one batch, run side by side.
    expect(together).toBe(4);
    expect((await jobs()).map((j) => j.retries)).toEqual([0, 0, 1, 0]);
  });

  it('when a job queues its own next step under its key, then that step is taken as soon as the job ends, not at the next poll', async () => {
    // An import's slices: each queues the next before it returns. With a poll of a minute, anything
    // but being taken at once would take that long. (PostgreSQL shows it: there the completion and
    // the next fetch race on two connections; the embedded database's one session runs them in turn.)
    const steps: number[] = [];
    await app.services.jobs.work(
      CHAIN,
      async (data) => {
        const step = data.step as number;
        steps.push(step);
        if (step < 3) await app.services.jobs.send(CHAIN, { step: step + 1 }, { key: 'chain' });
      },
      { pollSeconds: 60 },
    );
    await app.services.jobs.send(CHAIN, { step: 1 }, { key: 'chain' });
    await expect.poll(() => steps, { timeout: 20_000, interval: 50 }).toEqual([1, 2, 3]);
  });
});

describe.skipIf(TEST_DB !== 'postgres')('a database gone as a batch ends', () => {
  it('when the database refuses connections just as a batch is completed, then the process lives on: no unhandled rejection', async () => {
    const QUEUE_GONE = 'test-gone';
    await app.db.sql.exec(`SELECT pgboss.create_queue('${QUEUE_GONE}', '{"policy":"standard"}')`);
    const url = new URL(app.databaseUrl!);
    const name = url.pathname.slice(1);
    url.pathname = '/postgres';
    const admin = new pg.Client({ connectionString: url.toString() });
    await admin.connect();
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    let ran = false;
    try {
      await app.services.jobs.send(QUEUE_GONE, { n: 1 });
      await app.services.jobs.work(QUEUE_GONE, async () => {
        if (ran) return;
        ran = true;
        // No new connection to the database (superusers included), and the queue's own ones cut: the
        // completion that follows this handler finds no database.
        await admin.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS false`);
        await admin.query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name = 'shop-jobs'`,
          [name],
        );
      });
      await expect.poll(() => ran, { timeout: 10_000 }).toBe(true);
      // pg-boss completes (or, our completion failing, fails) the batch after the handler, unawaited.
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      expect(unhandled.map((r) => String((r as Error)?.stack ?? r))).toEqual([]);
    } finally {
      await admin.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`);
      await admin.end();
      process.off('unhandledRejection', onUnhandled);
    }
  }, 30_000);
});
