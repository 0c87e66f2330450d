/**
 * Contract §11: a write that waits for a database connection waits as a statement may
 * (DATABASE_STATEMENT_TIMEOUT) and only then answers 503 — never a spurious failure sooner because
 * the machine is busy. Prisma's interactive transactions would give up after 2 s on their own.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, loginAsAdmin } from '../helpers/accounts.ts';
import { makeCategory } from '../helpers/catalog.ts';
import { itemBody, postItem } from '../helpers/catalog-admin.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { TEST_DB } from '../helpers/test-database.ts';

const POOL_SIZE = 3;

/**
 * Keeps every connection of the app's request pool checked out for `ms`: each in a transaction that
 * waits in between its statements, so no statement timeout ends it early.
 */
const occupyPool = (app: TestApp, ms: number) =>
  Promise.all(
    Array.from({ length: POOL_SIZE }, () =>
      app.db.prisma.$transaction(async (tx) => {
        await tx.$queryRaw`SELECT 1`;
        await sleep(ms);
      }),
    ),
  );

describe.skipIf(TEST_DB !== 'postgres')('a write while every pooled connection is busy', () => {
  let app: TestApp;
  let token: string;
  let categoryId: number;
  beforeAll(async () => {
    app = await startTestApp({ DATABASE_STATEMENT_TIMEOUT: '5000' }, { poolSize: POOL_SIZE });
    token = await loginAsAdmin(app);
    categoryId = (await makeCategory(app)).id;
  });
  afterAll(() => app.close());

  it('when every connection is busy for 3 s, then an item creation waits for one and succeeds (201)', {
    timeout: 30_000,
  }, async () => {
    const busy = occupyPool(app, 3_000);
    // Let the sleeps take every connection first.
    await expect.poll(() => app.db.poolUsage()[0]?.idle === 0 && app.db.poolUsage()[0]?.total === POOL_SIZE).toBe(true);
    const started = Date.now();
    const res = await postItem(app, token, itemBody(categoryId, { name: 'Written while busy' }));
    expect(res.status, res.text).toBe(201);
    expect(Date.now() - started, 'it waited for a connection').toBeGreaterThan(1_500);
    await busy;
  });

  it('when a transaction starts while every connection is busy for 3 s, then it waits for one instead of failing after 2 s', {
    timeout: 30_000,
  }, async () => {
    // The case above may spend its wait before the transaction (reading the admin); this one waits in
    // the transaction's own start, where Prisma's default (2 s) gave up while the pool still had time.
    const busy = occupyPool(app, 3_000);
    await expect.poll(() => app.db.poolUsage()[0]?.idle === 0 && app.db.poolUsage()[0]?.total === POOL_SIZE).toBe(true);
    const counted = await app.db.prisma.$transaction((tx) => tx.item.count());
    expect(counted).toBeGreaterThanOrEqual(0);
    await busy;
  });

  it('when every connection stays busy past the statement timeout, then the write answers 503 SERVICE_UNAVAILABLE', {
    timeout: 30_000,
  }, async () => {
    const busy = occupyPool(app, 7_000);
    await expect.poll(() => app.db.poolUsage()[0]?.idle === 0 && app.db.poolUsage()[0]?.total === POOL_SIZE).toBe(true);
    const started = Date.now();
    const res = await postItem(app, token, itemBody(categoryId, { name: 'Never written' }));
    expectProblem(res, 503, 'SERVICE_UNAVAILABLE');
    expect(Date.now() - started, 'not before a statement would have given up').toBeGreaterThan(4_000);
    await busy;
    expect(await app.db.prisma.item.count({ where: { name: 'Never written' } })).toBe(0);
  });
});
