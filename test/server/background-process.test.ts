/**
 * The background process of an instance on PostgreSQL (src/process/background.ts, docs/architecture.md):
 * beside WORKERS serving workers the primary forks one process, at a lower priority, that alone runs
 * the instance's imports and webhook deliveries; a serving worker that queues a job has the primary
 * wake it. Killed, it is replaced, and the work goes on in its successor; SIGTERM stops it with the rest.
 */
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childrenOf, isBackgroundProcess } from '../helpers/cluster-processes.ts';
import { freshRequest, workersListening } from '../helpers/fresh-connection.ts';
import { type ServiceProcess, startService } from '../helpers/service-process.ts';
import { createTestDatabase, TEST_DB, type TestDatabase } from '../helpers/test-database.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { csv } from '../transfer/import-helpers.ts';

const ADMIN = { username: 'background-root', password: 'background-root-password' };

/** The niceness of `pid` (field 19 of /proc/<pid>/stat). */
const niceOf = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
};
/** Pids that logged `msg` (pino's lines carry the process's pid). */
const pidsLogging = (output: string, msg: string) =>
  new Set(
    [...output.matchAll(/^\{[^\n]*\n?/gm)].flatMap(([line]) => {
      const entry = JSON.parse(line) as { pid?: number; msg?: string };
      return entry.msg?.startsWith(msg) && entry.pid ? [entry.pid] : [];
    }),
  );

describe.skipIf(TEST_DB !== 'postgres')('the background process (WORKERS=2)', () => {
  let database: TestDatabase;
  let service: ServiceProcess;
  let receiver: WebhookReceiver;
  let token: string;
  let categoryId: number;

  const auth = () => ({ authorization: `Bearer ${token}` });
  const createItem = (name: string) =>
    freshRequest(
      `${service.url}/admin/api/items`,
      'POST',
      { name, category_id: categoryId, price: 1, stock: 1, skus: [], images: [] },
      auth(),
    );
  const background = () => {
    const found = childrenOf(service.pid).filter(isBackgroundProcess);
    expect(found).toHaveLength(1);
    return found[0]!;
  };
  const delivered = async (name: string) => {
    for (const until = Date.now() + 20_000; Date.now() < until; await sleep(100)) {
      const hit = receiver.on('/all').find((r) => r.body.includes(`"${name}"`));
      if (hit) return hit;
    }
    throw new Error(`no delivery of ${name}`);
  };

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    database = await createTestDatabase();
    service = await startService({
      DATABASE_URL: database.url!,
      WORKERS: '2',
      LOG_LEVEL: 'debug',
      ADMIN_USERNAME: ADMIN.username,
      ADMIN_PASSWORD: ADMIN.password,
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE: 'true',
    });
    await workersListening(service, 2);
    token = (await freshRequest(`${service.url}/admin/api/auth/login`, 'POST', ADMIN)).body.access_token;
    const gql = async (query: string, variables: object = {}) =>
      (await freshRequest(`${service.url}/graphql`, 'POST', { query, variables }, auth())).body.data;
    categoryId = (await gql('mutation { createCategory(input: { name: "Background" }) { id } }')).createCategory.id;
    await gql('mutation($input: CreateWebhookInput!) { createWebhook(input: $input) { webhook { id } } }', {
      input: { url: `${receiver.url}/all`, events: ['item.created'] },
    });
  }, 120_000);
  afterAll(async () => {
    await service?.stop();
    await database?.drop();
    await receiver?.close();
  });

  it('when items are created and a file imported through the serving workers, then only the background process (niced) delivers and imports', async () => {
    const runner = background();
    expect(niceOf(runner)).toBe(5);
    for (const pid of childrenOf(service.pid).filter((pid) => pid !== runner)) expect(niceOf(pid)).toBe(0);

    for (let i = 0; i < 6; i++) expect((await createItem(`Lamp ${i}`)).status).toBe(201);
    for (let i = 0; i < 6; i++) await delivered(`Lamp ${i}`);

    const res = await fetch(`${service.url}/admin/api/imports`, {
      method: 'POST',
      body: csv([
        ['handle', 'name', 'category', 'price', 'sku_code', 'sku_stock', 'spec:size'],
        ['bg-1', 'Background 1', 'Outdoor > Background', '5', 'BG-1', 1, '10'],
      ]),
      headers: { 'content-type': 'text/csv', ...auth(), connection: 'close' },
    });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: number };
    let state = '';
    for (const until = Date.now() + 20_000; state !== 'succeeded' && Date.now() < until; await sleep(100))
      state = (await freshRequest(`${service.url}/admin/api/imports/${id}`, 'GET', undefined, auth())).body.status;
    expect(state).toBe('succeeded');

    const output = service.output();
    expect(pidsLogging(output, 'webhook attempt: sending')).toEqual(new Set([runner]));
    expect(pidsLogging(output, 'import: running a slice')).toEqual(new Set([runner]));
    // The import was queued by a serving worker: the primary passed its word on (process/jobs-wake.ts).
    expect(pidsLogging(output, 'background process: woken')).toEqual(new Set([runner]));
  }, 60_000);

  it('when the background process is killed, then the primary replaces it and deliveries go on in the new one', async () => {
    const victim = background();
    process.kill(victim, 'SIGKILL');
    await expect
      .poll(() => childrenOf(service.pid).filter((pid) => pid !== victim && isBackgroundProcess(pid)).length, {
        timeout: 20_000,
      })
      .toBe(1);
    const successor = background();
    expect(service.output()).toMatch(/"role":"background"[^\n]*worker died; replacing it/);
    // The serving workers were never touched: still two, still serving.
    expect(childrenOf(service.pid)).toHaveLength(3);
    expect((await createItem('After the kill')).status).toBe(201);
    await delivered('After the kill');
    const senders = [
      ...service.output().matchAll(/"event_id":"(evt_[0-9a-f]+)","pid":(\d+)[^\n]*webhook attempt: sending/g),
    ];
    expect(Number(senders.at(-1)?.[2])).toBe(successor);

    // SIGTERM: the background process stops with the serving workers, and the primary exits 0.
    const all = childrenOf(service.pid);
    expect(await service.stop()).toBe(0);
    for (const pid of all) expect(() => process.kill(pid, 0)).toThrow();
    expect(service.output()).toMatch(/background process stopped/);
  }, 90_000);

  it('when the service is stopped (SIGTERM) while its background process runs an import, then it exits 0 and, started again, finishes the import with every item once', async () => {
    const env = { DATABASE_URL: database.url!, WORKERS: '2', LOG_LEVEL: 'info' };
    let running = await startService(env);
    try {
      await workersListening(running, 2);
      token = (await freshRequest(`${running.url}/admin/api/auth/login`, 'POST', ADMIN)).body.access_token;
      const items = 3000;
      const rows = [
        ['handle', 'name', 'category', 'price', 'sku_code', 'sku_stock', 'spec:size'],
        ...Array.from({ length: items }, (_, i) => [
          `drain-${i}`,
          `Drain ${i}`,
          'Outdoor > Drain',
          '5',
          `D-${i}`,
          1,
          '40',
        ]),
      ];
      const res = await fetch(`${running.url}/admin/api/imports`, {
        method: 'POST',
        body: csv(rows),
        headers: { 'content-type': 'text/csv', ...auth(), connection: 'close' },
      });
      expect(res.status).toBe(202);
      const { id } = (await res.json()) as { id: number };
      const status = async (on: ServiceProcess) =>
        (await freshRequest(`${on.url}/admin/api/imports/${id}`, 'GET', undefined, auth())).body;
      let done = 0;
      for (const until = Date.now() + 30_000; done === 0 && Date.now() < until; await sleep(50))
        done = (await status(running)).rows_done;
      expect(done).toBeGreaterThan(0);
      expect(done).toBeLessThan(items);

      // Stopped mid-file: the running slice ends after its batch (what committed stays), and all exit 0.
      expect(await running.stop()).toBe(0);
      expect(running.output()).toMatch(/background process: stopping/);
      running = await startService(env);
      let now: Record<string, any> = {};
      for (const until = Date.now() + 60_000; Date.now() < until; await sleep(250)) {
        now = await status(running);
        expect(now.rows_done).toBeGreaterThanOrEqual(done);
        if (!['queued', 'running'].includes(now.status)) break;
      }
      expect(now).toMatchObject({ status: 'succeeded', rows_done: items, items: { created: items, failed: 0 } });
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        const count = async (sql: string) => Number((await client.query(sql)).rows[0].n);
        expect(await count(`SELECT count(*) AS n FROM items WHERE handle LIKE 'drain-%'`)).toBe(items);
        expect(await count(`SELECT count(DISTINCT sku_code) AS n FROM skus WHERE sku_code LIKE 'D-%'`)).toBe(items);
        expect(
          await count(`SELECT count(*) AS n FROM audit_log WHERE request_id = '${id}' AND action = 'item.create'`),
        ).toBe(items);
      } finally {
        await client.end();
      }
    } finally {
      await running.stop();
    }
  }, 120_000);
});
