/**
 * Contract §11: every login limit holds for the whole service, not per process. With WORKERS=2 and no
 * Redis, the workers share their counts through the primary — each request here comes on a fresh
 * connection, so the kernel spreads them over both workers as it would a real client's.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshRequest, workersListening } from '../helpers/fresh-connection.ts';
import { lockWaiters } from '../helpers/lock-waiters.ts';
import { type ServiceProcess, startService } from '../helpers/service-process.ts';
import { createTestDatabase, TEST_DB, type TestDatabase } from '../helpers/test-database.ts';

const ADMIN = { username: 'cluster-root', password: 'cluster-root-password' };
const CUSTOMER = { username: 'cluster-customer@example.com', password: 'cluster-customer-password' };

/** POSTs JSON on a connection of its own; the status and Retry-After. */
const post = (url: string, body: unknown) =>
  freshRequest(url, 'POST', body).then((r) => ({
    status: r.status,
    retryAfter: r.headers['retry-after'] as string | undefined,
  }));

/** GETs `url` on a connection of its own; the status and Retry-After. */
const get = (url: string) =>
  freshRequest(url).then((r) => ({ status: r.status, retryAfter: r.headers['retry-after'] as string | undefined }));

const SEARCHES_PER_CLIENT = 2;

describe.skipIf(TEST_DB !== 'postgres')('login limits and search slots with WORKERS=2 and no Redis', () => {
  let database: TestDatabase;
  let service: ServiceProcess;
  beforeAll(async () => {
    database = await createTestDatabase();
    service = await startService({
      DATABASE_URL: database.url!,
      WORKERS: '2',
      LOG_LEVEL: 'info',
      ADMIN_USERNAME: ADMIN.username,
      ADMIN_PASSWORD: ADMIN.password,
      // The per-IP attempt limit would end the bursts below on its own; the per-username ones are tested.
      LOGIN_IP_PER_MINUTE: '1000',
      // Every costly search reaches the database (a cached answer takes no slot).
      CATALOG_CACHE_MB: '0',
      SEARCH_CONCURRENCY_PER_CLIENT: String(SEARCHES_PER_CLIENT),
    });
    await workersListening(service, 2);
    expect((await post(`${service.url}/api/v1/auth/register`, CUSTOMER)).status).toBe(201);
  }, 90_000);
  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  it('when 10 right-password admin logins arrive at once on fresh connections, then none is told to wait the window', async () => {
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => post(`${service.url}/admin/api/auth/login`, ADMIN)),
    );
    expect(answers.filter((a) => a.status !== 200 && a.status !== 429)).toEqual([]);
    // The workers share reservations through the primary: ones in flight are waited for, not a spent limit.
    expect(answers.filter((a) => a.status === 429 && Number(a.retryAfter) > 1)).toEqual([]);
  }, 60_000);

  const cases = [
    { who: 'a customer', path: '/api/v1/auth/login', account: CUSTOMER },
    { who: 'an admin', path: '/admin/api/auth/login', account: ADMIN },
    {
      who: 'an unknown username',
      path: '/api/v1/auth/login',
      account: { username: 'nobody-here@example.com', password: 'any-password' },
    },
  ];
  it.each(cases)(
    'when $who fails 5 times on fresh connections, then the 6th attempt — right password or not — is 429 with Retry-After',
    async ({ path, account }) => {
      for (let i = 0; i < 5; i++) {
        expect((await post(service.url + path, { ...account, password: `wrong-${i}` })).status).toBe(401);
      }
      const sixth = await post(service.url + path, account);
      expect(sixth.status).toBe(429);
      expect(Number(sixth.retryAfter)).toBeGreaterThan(0);
    },
    60_000,
  );

  it('when 40 wrong-password admin logins arrive at once, then at most 5 passwords are checked and the rest are 429', async () => {
    const statuses = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        post(`${service.url}/admin/api/auth/login`, { username: 'burst-admin', password: `wrong-${i}` }).then(
          (r) => r.status,
        ),
      ),
    );
    const checked = statuses.filter((s) => s === 401).length;
    expect(checked).toBeLessThanOrEqual(5);
    expect(checked + statuses.filter((s) => s === 429).length).toBe(40);
  }, 60_000);

  it('when one client runs more costly searches at once than its bound, spread over both workers, then the instance holds the bound: the excess is 429 with Retry-After: 1', async () => {
    // The searches are held by a lock another session keeps on `skus` (every spec filter reads it).
    const locker = new pg.Client({ connectionString: database.url });
    await locker.connect();
    const waiting = () => lockWaiters(locker);
    const search = (i: number) => get(`${service.url}/api/v1/items?facets=true&spec=color:red&page=${i + 1}`);
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE skus IN ACCESS EXCLUSIVE MODE');
      const held = Array.from({ length: SEARCHES_PER_CLIENT }, (_, i) => search(i));
      await expect.poll(waiting, { timeout: 10_000 }).toBe(SEARCHES_PER_CLIENT);
      // Six more on fresh connections: per process, the other worker would have let some through.
      const excess = await Promise.all(Array.from({ length: 6 }, (_, i) => search(10 + i)));
      for (const res of excess) expect(res).toEqual({ status: 429, retryAfter: '1' });
      expect(await waiting()).toBe(SEARCHES_PER_CLIENT);
      await locker.query('COMMIT');
      for (const res of await Promise.all(held)) expect(res.status).toBe(200);
      expect((await search(20)).status).toBe(200);
    } finally {
      await locker.end();
    }
  }, 60_000);
});
