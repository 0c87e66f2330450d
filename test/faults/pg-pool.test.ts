/**
 * The PostgreSQL pools of src/db/pg-pool.ts against a database whose connections go silent (a TCP
 * proxy that stops forwarding): a statement fails at its timeout, the connection it ran on leaves
 * the pool — whoever released it, pg-pool or Prisma's adapter after a transaction — and closing
 * the pools is bounded. Needs a real server, so it runs on PostgreSQL only.
 */
import { PrismaPg } from '@prisma/adapter-pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { openDatabase } from '../../src/db/database.ts';
import { openPgPools, type PgPools } from '../../src/db/pg-pool.ts';
import { PrismaClient } from '../../src/generated/prisma/client.ts';
import { createLogger } from '../../src/logger.ts';
import { prepareDatabase } from '../../src/setup/prepare-database.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';
import { BASE_ENV } from '../helpers/test-app.ts';
import { createTestDatabase, TEST_DB, type TestDatabase } from '../helpers/test-database.ts';

const TIMEOUT_MS = 500;

/** Milliseconds `promise` takes to settle, and how it settled. */
async function timed<T>(promise: Promise<T>): Promise<{ ms: number; error?: Error }> {
  const started = performance.now();
  try {
    await promise;
    return { ms: performance.now() - started };
  } catch (error) {
    return { ms: performance.now() - started, error: error as Error };
  }
}

describe.skipIf(TEST_DB !== 'postgres')('PostgreSQL pools when the database stops answering', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let pools: PgPools;
  let prisma: PrismaClient;

  beforeAll(async () => {
    database = await createTestDatabase();
    const db = await openDatabase(database.target);
    await prepareDatabase(db, loadConfig(BASE_ENV), createLogger('silent'));
    await db.close();
    const url = new URL(database.url!);
    proxy = await startTcpProxy(url.hostname, Number(url.port || 5432));
    url.port = String(proxy.port);
    pools = openPgPools({ url: url.toString(), poolSize: 3, statementTimeoutMs: TIMEOUT_MS });
    prisma = new PrismaClient({ adapter: new PrismaPg(pools.pool) });
  });
  afterEach(async () => {
    proxy.restore();
    // A test that silenced the database opened the breaker: the next starts once a probe got through.
    await expect.poll(() => pools.silent, { timeout: 5_000 }).toBe(false);
  });
  afterAll(async () => {
    await prisma?.$disconnect();
    await pools?.close();
    await proxy?.close();
    await database?.drop();
  });

  it('when a pooled statement gets no answer, then it fails at the statement timeout and its connection is discarded', async () => {
    await pools.pool.query('SELECT 1');
    expect(pools.pool.totalCount).toBe(1);
    proxy.silence();
    const { ms, error } = await timed(pools.pool.query('SELECT 1'));
    expect(error?.message).toBe('Query read timeout');
    expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(ms).toBeLessThan(TIMEOUT_MS + 500);
    expect(pools.pool.totalCount).toBe(0);
  });

  it('when a statement in a Prisma transaction gets no answer, then the transaction fails and its connection leaves the pool', async () => {
    // Prisma's adapter releases a transaction's client without the error: only our discard removes it.
    const { ms, error } = await timed(
      prisma.$transaction(async (tx) => {
        await tx.category.count();
        proxy.silence();
        await tx.category.create({ data: { name: 'never' } });
      }),
    );
    expect(error?.message).toMatch(/Query read timeout|Connection terminated/);
    expect(ms).toBeLessThan(3 * TIMEOUT_MS + 1000);
    // Give the rollback path a moment to release the client, as Prisma does asynchronously.
    await new Promise((r) => setTimeout(r, 100));
    expect(pools.pool.totalCount).toBe(0);
    proxy.restore();
    await expect.poll(() => pools.silent, { timeout: 5_000 }).toBe(false);
    expect(await prisma.category.count({ where: { name: 'never' } })).toBe(0);
  });

  it('when a client checked out by hand times out and is released without an error, then it is not lent again', async () => {
    const client = await pools.pool.connect();
    proxy.silence();
    await expect(client.query('SELECT 1')).rejects.toThrow('Query read timeout');
    client.release();
    expect(pools.pool.totalCount).toBe(0);
  });

  it('when statements are queued behind one that gets no answer, then all of them fail at its timeout and the connection leaves the pool', async () => {
    const client = await pools.pool.connect();
    proxy.silence();
    const [first, second] = await Promise.all([timed(client.query('SELECT 1')), timed(client.query('SELECT 2'))]);
    expect(first.error?.message).toBe('Query read timeout');
    expect(second.error?.message).toMatch(/Query read timeout|Connection terminated/);
    for (const { ms } of [first, second]) expect(ms).toBeLessThan(TIMEOUT_MS + 500);
    client.release();
    expect(pools.pool.totalCount).toBe(0);
  });

  it('when a statement answers within the timeout, then it is not failed however long it took', async () => {
    const { rows } = await pools.pool.query(`SELECT 1 AS one FROM pg_sleep(${(TIMEOUT_MS * 0.6) / 1000})`);
    expect(rows).toEqual([{ one: 1 }]);
    expect(pools.silent).toBe(false);
  });

  it('when no connection can be opened, then a statement fails within the connection timeout', async () => {
    proxy.silence();
    const { ms, error } = await timed(pools.pool.query('SELECT 1'));
    expect(error?.message).toMatch(/timeout/);
    // Connection timeout: max(statement timeout, 1 s).
    expect(ms).toBeLessThan(1000 + 500);
  });

  it('when a statement got no answer, then the pool fails the next ones at once, and a probe closes it again within a second or two of the restore', async () => {
    await pools.pool.query('SELECT 1');
    proxy.silence();
    expect((await timed(pools.pool.query('SELECT 1'))).error?.message).toBe('Query read timeout');
    expect(pools.silent).toBe(true);
    for (const statement of [pools.pool.query('SELECT 1') as Promise<unknown>, prisma.category.count()]) {
      const { ms, error } = await timed(statement);
      expect(error?.message).toMatch(/The database is not answering/);
      expect(ms).toBeLessThan(TIMEOUT_MS);
    }
    proxy.restore();
    const restored = performance.now();
    await expect.poll(() => pools.silent, { timeout: 5_000 }).toBe(false);
    expect(performance.now() - restored).toBeLessThan(3_000);
    expect((await pools.pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it('when the server cancels a slow statement while the process is too busy to read its answer in time, then the statement fails with 57014 and the breaker stays closed', async () => {
    // A CPU-starved process under load, made deterministic: the event loop is blocked from before the
    // statement timeout until after it, so the server's cancellation (57014, at the timeout) waits
    // unread in the socket while the statement watch's timer runs first.
    const busy = new Promise<void>((resolve) =>
      setTimeout(
        () =>
          setImmediate(() => {
            const until = performance.now() + TIMEOUT_MS;
            while (performance.now() < until) {
              // the process is busy
            }
            resolve();
          }),
        TIMEOUT_MS - 100,
      ),
    );
    // Straight to the server: the TCP proxy runs in this process and would be blocked too.
    const direct = openPgPools({ url: database.url!, poolSize: 1, statementTimeoutMs: TIMEOUT_MS });
    try {
      const { error } = await timed(direct.pool.query('SELECT pg_sleep(30)'));
      await busy;
      expect((error as { code?: string } | undefined)?.code, String(error)).toBe('57014');
      expect(direct.silent).toBe(false);
      expect((await direct.pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await direct.close();
    }
  });

  it('when the pools are closed while the database is silent, then close returns within 3.5 s', async () => {
    await Promise.all([
      pools.pool.query('SELECT 1'),
      pools.pool.query('SELECT 1'),
      pools.maintenance.query('SELECT 1'),
    ]);
    expect(pools.pool.idleCount + pools.maintenance.idleCount).toBeGreaterThan(1);
    proxy.silence();
    // The maintenance pool has no statement timeout: only close() can end this one.
    const inFlight = pools.maintenance.query('SELECT 1').catch((e: Error) => e);
    await new Promise((r) => setTimeout(r, 100));
    expect(pools.maintenance.idleCount).toBe(0); // the statement is on the wire
    const { ms } = await timed(pools.close());
    expect(ms).toBeLessThan(3500);
    expect(await inFlight).toBeInstanceOf(Error);
  });
});
