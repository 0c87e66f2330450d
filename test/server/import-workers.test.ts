/**
 * Contract §13.2 "durable and single" on PostgreSQL, through what `npm start` runs: two instances (one
 * with WORKERS=2) share the `imports` queue with a job lease far shorter than a slice, so slices of one
 * import are taken up by other processes while the first still runs, and the worker running it is
 * killed (SIGKILL) mid-file. The import still ends with exact counts: every item once, no duplicate
 * SKU, one audit entry per item.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshRequest, workersListening } from '../helpers/fresh-connection.ts';
import { type ServiceProcess, startService } from '../helpers/service-process.ts';
import { createTestDatabase, TEST_DB, type TestDatabase } from '../helpers/test-database.ts';
import { twoSkuItemsFile } from '../transfer/import-helpers.ts';

const ADMIN = { username: 'import-root', password: 'import-root-password' };
const ITEMS = 4000;

/** POSTs the file on a connection of its own. */
async function postFile(url: string, file: string, token: string) {
  const res = await fetch(url, {
    method: 'POST',
    body: file,
    headers: { 'content-type': 'text/csv', authorization: `Bearer ${token}`, connection: 'close' },
  });
  return { status: res.status, body: (await res.json()) as { id: number; rows_total: number | null } };
}

describe.skipIf(TEST_DB !== 'postgres')('imports with WORKERS=2 and two instances', () => {
  let database: TestDatabase;
  let first: ServiceProcess;
  let second: ServiceProcess;
  let token: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    const env = {
      DATABASE_URL: database.url!,
      LOG_LEVEL: 'info',
      ADMIN_USERNAME: ADMIN.username,
      ADMIN_PASSWORD: ADMIN.password,
      // A lease shorter than a slice (5 s): other processes take up an import while one still runs it.
      JOB_LEASE_SECONDS: '2',
      JOB_MAINTENANCE_SECONDS: '1',
    };
    first = await startService({ ...env, WORKERS: '2' });
    second = await startService({ ...env, WORKERS: '1' });
    await workersListening(first, 2);
    const login = await freshRequest(`${first.url}/admin/api/auth/login`, 'POST', ADMIN);
    token = login.body.access_token;
  }, 120_000);
  afterAll(async () => {
    await first?.stop();
    await second?.stop();
    await database?.drop();
  });

  it('when the worker running an import is killed mid-file and slices run in several processes, then the import ends with every item exactly once', async () => {
    const file = twoSkuItemsFile(ITEMS, { handle: 'kill', name: 'Kill', category: 'Outdoor > Kill', sku: 'K' });
    const started = await postFile(`${first.url}/admin/api/imports`, file, token);
    expect(started.status).toBe(202);
    // Staged as it was sent: the rows are known before the job starts.
    expect(started.body.rows_total).toBe(ITEMS * 2);
    const id = started.body.id;
    const status = () =>
      freshRequest(`${second.url}/admin/api/imports/${id}`, 'GET', undefined, { authorization: `Bearer ${token}` });

    // Killed once it has committed some batches: the worker that logged running it (on `first`).
    let killed: number | undefined;
    let seen = 0;
    while (!killed) {
      const now = await status();
      expect(['queued', 'running']).toContain(now.body.status);
      expect(now.body.rows_total).toBe(ITEMS * 2);
      expect(now.body.rows_done).toBeGreaterThanOrEqual(seen);
      seen = now.body.rows_done;
      if (now.body.rows_done > 0) {
        const runner = [...first.output().matchAll(/"import_id":(\d+),"pid":(\d+)[^\n]*running a slice/g)].filter(
          (m) => Number(m[1]) === id,
        );
        const pid = Number(runner.at(-1)?.[2]);
        if (pid && pid !== first.pid) {
          process.kill(pid, 'SIGKILL');
          killed = pid;
        }
      }
      await sleep(50);
    }

    let done: { body: Record<string, any> } | undefined;
    for (const until = Date.now() + 120_000; Date.now() < until; await sleep(250)) {
      done = await status();
      // What committed before the kill stays counted: the progress never goes back.
      expect(done.body.rows_done).toBeGreaterThanOrEqual(seen);
      seen = done.body.rows_done;
      if (!['queued', 'running'].includes(done.body.status)) break;
    }
    expect(done?.body).toMatchObject({
      status: 'succeeded',
      rows_total: ITEMS * 2,
      rows_done: ITEMS * 2,
      items: { created: ITEMS, updated: 0, unchanged: 0, failed: 0 },
    });
    const prisma = (await import('pg')).default;
    const client = new prisma.Client({ connectionString: database.url });
    await client.connect();
    try {
      const count = async (sql: string) => Number((await client.query(sql)).rows[0].n);
      expect(await count(`SELECT count(*) AS n FROM items WHERE handle LIKE 'kill-%'`)).toBe(ITEMS);
      expect(await count(`SELECT count(*) AS n FROM skus WHERE sku_code LIKE 'K-%'`)).toBe(ITEMS * 2);
      expect(await count(`SELECT count(DISTINCT sku_code) AS n FROM skus WHERE sku_code LIKE 'K-%'`)).toBe(ITEMS * 2);
      expect(
        await count(`SELECT count(*) AS n FROM audit_log WHERE request_id = '${id}' AND action = 'item.create'`),
      ).toBe(ITEMS);
      expect(
        await count(
          `SELECT count(*) AS n FROM (SELECT target_id FROM audit_log WHERE request_id = '${id}' AND action = 'item.create' GROUP BY target_id HAVING count(*) > 1) d`,
        ),
      ).toBe(0);
      // Every item is found by search (its documents were written with it).
      expect(
        await count(
          `SELECT count(*) AS n FROM item_search_documents d JOIN items i ON i.id = d.item_id WHERE i.handle LIKE 'kill-%'`,
        ),
      ).toBe(ITEMS);
    } finally {
      await client.end();
    }
    // More than one process ran slices of it (the lease handed it on, or the kill did).
    const runners = new Set(
      [...`${first.output()}${second.output()}`.matchAll(/"import_id":(\d+),"pid":(\d+)[^\n]*running a slice/g)]
        .filter((m) => Number(m[1]) === id)
        .map((m) => m[2]),
    );
    expect(runners.size).toBeGreaterThan(1);
  }, 240_000);
});
