/**
 * The job queue's batches (src/jobs/job-queue.ts): a worker fetches several jobs at once and runs them
 * side by side; pg-boss completes or fails a batch whole, so a job that threw must be given back to be
 * tried again while the others of its batch are completed — each job done once, the failed one again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

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
