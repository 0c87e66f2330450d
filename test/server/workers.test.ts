/**
 * Contract §7.7: with WORKERS > 1 the service runs as a primary and that many workers sharing the
 * port. A worker that dies is replaced while the others keep serving; SIGTERM drains every worker and
 * the primary exits 0; the embedded database refuses more than one worker.
 */
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { childrenOf, isBackgroundProcess } from '../helpers/cluster-processes.ts';
import { startService } from '../helpers/service-process.ts';
import { createTestDatabase, TEST_DB, type TestDatabase } from '../helpers/test-database.ts';

/** The serving workers among a primary's children: all but the background process (process/background.ts). */
const servingWorkers = (pid: number): number[] => childrenOf(pid).filter((child) => !isBackgroundProcess(child));
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe.skipIf(TEST_DB !== 'postgres')('WORKERS on PostgreSQL', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  it('when a worker dies, then it is replaced while the other keeps serving; SIGTERM stops them all with exit 0', {
    timeout: 90_000,
  }, async () => {
    const service = await startService({ DATABASE_URL: database.url!, WORKERS: '2', LOG_LEVEL: 'info' });
    try {
      // Both listening (a worker that is only forked has not joined the shared socket yet).
      await expect.poll(() => service.output().match(/shop service listening/g)?.length, { timeout: 20_000 }).toBe(2);
      // Two serving workers and the background process (process/background.ts).
      await expect.poll(() => childrenOf(service.pid).length, { timeout: 20_000 }).toBe(3);
      // Each worker runs with the memory settings the primary forks it with (process/worker-runtime.ts).
      for (const pid of childrenOf(service.pid)) {
        expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')).toContain('--heap-growing-percent=50');
        expect(readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')).toContain('MALLOC_ARENA_MAX=2');
      }
      const [victim, survivor] = servingWorkers(service.pid) as [number, number];
      process.kill(victim, 'SIGKILL');
      // (What the victim had accepted dies with it; from then on the survivor serves everything.)
      await expect
        .poll(() => alive(victim) && !readFileSync(`/proc/${victim}/stat`, 'utf8').includes(') Z '), { timeout: 5_000 })
        .toBe(false);
      for (let i = 0; i < 10; i++) {
        expect((await fetch(`${service.url}/api/v1/categories`)).status).toBe(200);
        await sleep(100);
      }
      await expect
        .poll(() => servingWorkers(service.pid).filter((pid) => pid !== victim).length, { timeout: 20_000 })
        .toBe(2);
      expect(childrenOf(service.pid)).toContain(survivor);
      expect(service.output()).toMatch(/worker died; replacing it/);
      await expect.poll(() => service.output().match(/shop service listening/g)?.length, { timeout: 20_000 }).toBe(3);
      const workers = childrenOf(service.pid);
      expect(await service.stop()).toBe(0);
      for (const pid of workers) expect(alive(pid)).toBe(false);
      expect(service.output().match(/"msg":"stopped"/g)?.length).toBe(3);
    } finally {
      await service.stop();
    }
  });

  it('when the first worker cannot start, then the primary exits 1 instead of restarting it forever', {
    timeout: 60_000,
  }, async () => {
    const unreachable = new URL(database.url!);
    unreachable.port = '1';
    await expect(
      // Not waiting for it to come up (DATABASE_CONNECT_TIMEOUT, test/server/startup-messages.test.ts).
      startService({
        DATABASE_URL: unreachable.toString(),
        WORKERS: '2',
        LOG_LEVEL: 'info',
        DATABASE_CONNECT_TIMEOUT: '0',
      }),
    ).rejects.toThrow(/exited with 1/);
  });
});

describe('WORKERS on the embedded database', () => {
  it('when more than one worker is asked for, then start-up stops naming WORKERS', () => {
    expect(() => loadConfig({ WORKERS: '2' })).toThrow(/WORKERS: the embedded database belongs to one process/);
    expect(loadConfig({}).workers).toBe(1);
    expect(loadConfig({ DATABASE_URL: 'postgresql://x/y', WORKERS: '3' }).workers).toBe(3);
  });
});
