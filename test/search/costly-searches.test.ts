/**
 * Issue 34: one client's costly searches (facets, spec filters) are bounded per instance, so that they
 * cannot take the whole pool from other clients. The searches are held deterministically by a lock
 * another session keeps on `skus` — PostgreSQL only, since the embedded database has one session.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCategory, makeItem } from '../helpers/catalog.ts';
import { lockWaiters } from '../helpers/lock-waiters.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { TEST_DB } from '../helpers/test-database.ts';

describe.skipIf(TEST_DB !== 'postgres')('costly searches per client', () => {
  let app: TestApp;
  let locker: pg.Client;

  const SEARCHES_PER_CLIENT = 2;
  beforeAll(async () => {
    // The answer cache off: every search reaches the database (a cached answer is never counted).
    app = await startTestApp({ CATALOG_CACHE_MB: '0', SEARCH_CONCURRENCY_PER_CLIENT: String(SEARCHES_PER_CLIENT) });
    const category = await makeCategory(app);
    await makeItem(app, { categoryId: category.id, name: 'Trail runner', skus: [{ specs: { color: 'red' } }] });
    locker = new pg.Client({ connectionString: app.databaseUrl });
    await locker.connect();
  });
  afterAll(async () => {
    await locker?.end();
    await app?.close();
  });

  /** Sessions of the service waiting for the lock on `skus`. */
  const waiting = () => lockWaiters(locker);

  it('when one client runs more facet searches at once than its bound, then the excess answers 429 RATE_LIMITED with Retry-After: 1 at once, and the rest complete', async () => {
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE skus IN ACCESS EXCLUSIVE MODE');
    const search = (i: number) => app.request(`/api/v1/items?keyword=trail&facets=true&spec=color:red&page=${i + 1}`);
    const held = Array.from({ length: SEARCHES_PER_CLIENT }, (_, i) => search(i));
    try {
      await expect.poll(waiting, { timeout: 10_000 }).toBe(SEARCHES_PER_CLIENT);
      const excess = await Promise.all([search(10), search(11), search(12)]);
      for (const res of excess) {
        expect(res.status).toBe(429);
        expect(res.body.code).toBe('RATE_LIMITED');
        expect(res.headers.get('retry-after')).toBe('1');
      }
      // Other reads are not bounded with them.
      expect((await app.request('/api/v1/categories')).status).toBe(200);
      expect((await app.request('/readyz')).status).toBe(200);
    } finally {
      await locker.query('COMMIT');
    }
    for (const res of await Promise.all(held)) expect(res.status).toBe(200);
    // The slots are free again.
    expect((await search(20)).status).toBe(200);
  });
});
