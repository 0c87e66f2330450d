/**
 * Start-up failures an operator can fix say so in one line naming the variable, without a stack
 * trace: a port in use, a database that does not answer (after a bounded wait with progress, its
 * password never shown). Production on the embedded database starts with a loud warning.
 */
import { once } from 'node:events';
import { existsSync, mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { sample } from '../helpers/prometheus.ts';
import { freePort, startProcess, startService } from '../helpers/service-process.ts';
import { createTestDatabase, migratedDataDir, TEST_DB, type TestDatabase } from '../helpers/test-database.ts';

let database: TestDatabase | undefined;
let env: Record<string, string>;
let occupied: Server;
let busyPort: number;

beforeAll(async () => {
  env = { DATA_DIR: mkdtempSync(join(tmpdir(), 'shop-startup-')), LOG_LEVEL: 'info', SEED_DEMO: 'false' };
  if (TEST_DB === 'postgres') {
    database = await createTestDatabase();
    env.DATABASE_URL = database.url!;
    env.WORKERS = '1';
  }
  occupied = createServer().listen(0, '127.0.0.1');
  await once(occupied, 'listening');
  busyPort = (occupied.address() as { port: number }).port;
});
afterAll(async () => {
  occupied?.close();
  await database?.drop();
});

/** The output of a start that must fail, and how it exited. */
async function failedStart(extra: Record<string, string>, timeoutMs = 30_000): Promise<string> {
  const err = await startService({ ...env, ...extra }, timeoutMs).then(
    // A start that should have failed must not outlive the test.
    async (service) => {
      await service.stop(2_000);
      return new Error('it started');
    },
    (e: Error) => e,
  );
  expect(err.message).toMatch(/^service exited with 1 before listening/);
  return err.message;
}

const PRODUCTION = {
  NODE_ENV: 'production',
  CUSTOMER_JWT_SECRET: 'customer-secret-for-start-tests-0123456789',
  ADMIN_JWT_SECRET: 'admin-secret-for-start-tests-0123456789-xy',
};

describe('start-up messages', () => {
  it('when PORT is taken, then one line says so and names PORT, with no stack trace, and the exit code is 1', async () => {
    const out = await failedStart({ PORT: String(busyPort) });
    expect(out).toContain(`shop service failed to start: PORT ${busyPort} is in use — set PORT\n`);
    expect(out).not.toMatch(/^\s+at /m);
    expect(out).not.toContain('EADDRINUSE');
  });

  it('when PORT is taken on a first start, then it says so before touching the database: no migrations, no bootstrap password, no lock left (contract §11)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'shop-taken-port-'));
    const started = performance.now();
    // A first development start: demo data and a generated bootstrap password are what it would print.
    const out = await failedStart({ PORT: String(busyPort), DATA_DIR: dataDir, SEED_DEMO: 'true' });
    const elapsed = performance.now() - started;
    expect(out).toContain(`PORT ${busyPort} is in use — set PORT`);
    expect(out).not.toMatch(/opening the embedded database|migration|seeding|Bootstrap admin|password/i);
    expect(existsSync(join(dataDir, 'shop.pid')), 'no lock left behind').toBe(false);
    expect(existsSync(join(dataDir, 'pglite')), 'the embedded database was not even opened').toBe(false);
    // Contract: within 2 s of the process starting (a first start used to take ~27 s of migrations
    // and seeding before it found out); the bound here is slack for a loaded test machine.
    expect(elapsed).toBeLessThan(10_000);
  });

  it('when METRICS_PORT is taken, then one line says so and names METRICS_PORT', async () => {
    const out = await failedStart({ ...PRODUCTION, METRICS_PORT: String(busyPort) });
    expect(out).toContain(`METRICS_PORT ${busyPort} is in use — set METRICS_PORT`);
    expect(out).not.toMatch(/^\s+at /m);
  });

  it('when DATABASE_URL does not answer, then it waits DATABASE_CONNECT_TIMEOUT with progress lines naming DATABASE_URL, then exits 1 — never showing the password', {
    timeout: 40_000,
  }, async () => {
    const password = 'pw-Kd83hQ-secret';
    const out = await failedStart({
      DATABASE_URL: `postgresql://shop:${password}@127.0.0.1:1/shop`,
      DATABASE_CONNECT_TIMEOUT: '6000',
      WORKERS: '1',
    });
    const progress = out.match(
      /waiting for the database at DATABASE_URL=postgresql:\/\/shop:\*\*\*@127\.0\.0\.1:1\/shop: .*ECONNREFUSED/g,
    );
    // One at the first failure, one five seconds later.
    expect(progress?.length, out).toBe(2);
    expect(out).toMatch(
      /shop service failed to start: the database at DATABASE_URL=postgresql:\/\/shop:\*\*\*@127\.0\.0\.1:1\/shop did not answer within 6 s \(.*ECONNREFUSED.*\) — start it or fix DATABASE_URL/,
    );
    expect(out).not.toContain(password);
    expect(out).not.toMatch(/^\s+at /m);
  });

  it.skipIf(TEST_DB !== 'postgres')(
    'when DATABASE_URL has a wrong password, then it stops at once naming DATABASE_URL',
    async () => {
      const url = new URL(database!.url!);
      url.username = 'no_such_role_for_tests';
      url.password = 'pw-Lm29xV-secret';
      const started = performance.now();
      const out = await failedStart({ DATABASE_URL: url.toString(), DATABASE_CONNECT_TIMEOUT: '20000' });
      expect(performance.now() - started).toBeLessThan(15_000);
      expect(out).toMatch(
        /the database at DATABASE_URL=postgresql:\/\/no_such_role_for_tests:\*\*\*@.* refused the connection: .* — fix DATABASE_URL/,
      );
      expect(out).not.toContain('pw-Lm29xV-secret');
    },
  );

  it.skipIf(TEST_DB === 'postgres')(
    'when production runs on the embedded database, then a loud warning says so at start; metrics are on METRICS_PORT only',
    {
      timeout: 60_000,
    },
    async () => {
      const metricsPort = await freePort();
      const service = await startProcess({
        env: {
          ...env,
          ...PRODUCTION,
          // Migrated already: what is under test is the warning and the metrics port, not a first start.
          DATA_DIR: await migratedDataDir('shop-prod-embedded-'),
          METRICS_PORT: String(metricsPort),
        },
      });
      try {
        const warning = service
          .output()
          .split('\n')
          .find((l) => l.includes('PRODUCTION ON THE EMBEDDED DATABASE'));
        expect(warning).toBeDefined();
        expect(JSON.parse(warning!)).toMatchObject({ level: 40 });
        expect(warning).toContain('set DATABASE_URL');
        // A production process warms up before it listens (process/warm-up.ts); its requests are not
        // counted below (the rehearsal has metrics of its own).
        const warmed = service
          .output()
          .split('\n')
          .find((l) => l.includes('"warmed up"'));
        expect(JSON.parse(warmed!).warm_up_requests).toBeGreaterThan(10);
        expect((await fetch(`${service.url}/api/v1/categories`)).status).toBe(200);
        expect((await fetch(`${service.url}/metrics`)).status).toBe(404);
        const metrics = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
        expect(metrics.status).toBe(200);
        const text = await metrics.text();
        expect(sample(text, 'http_requests_total', { route: '/api/v1/categories', status: '200', method: 'GET' })).toBe(
          1,
        );
        expect(sample(text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
        expect(sample(text, 'shop_processes')).toBe(1);
      } finally {
        expect(await service.stop()).toBe(0);
      }
    },
  );
});

describe('configuration of logs, metrics and the database wait', () => {
  it('when LOG_FORMAT is unset, then it is pretty only in development on a terminal', () => {
    expect(loadConfig({}, true).logFormat).toBe('pretty');
    expect(loadConfig({}, false).logFormat).toBe('json');
    expect(loadConfig({ NODE_ENV: 'test' }, true).logFormat).toBe('json');
    expect(loadConfig({ ...PRODUCTION }, true).logFormat).toBe('json');
    expect(loadConfig({ LOG_FORMAT: 'json' }, true).logFormat).toBe('json');
    expect(() => loadConfig({ LOG_FORMAT: 'xml' })).toThrow(/LOG_FORMAT: must be pretty or json/);
  });

  it('when METRICS_* and DATABASE_CONNECT_TIMEOUT are given, then they are read; bad values name the variable', () => {
    const c = loadConfig({ METRICS_PORT: '9464', DATABASE_CONNECT_TIMEOUT: '5000' });
    expect(c.metrics).toEqual({ onMainPort: true, port: 9464, host: '127.0.0.1' });
    expect(c.databaseConnectTimeoutMs).toBe(5000);
    expect(loadConfig({}).databaseConnectTimeoutMs).toBe(30_000);
    expect(loadConfig({ ...PRODUCTION }).metrics.onMainPort).toBe(false);
    expect(() => loadConfig({ METRICS_PORT: '3000', PORT: '3000' })).toThrow(/METRICS_PORT: must differ from PORT/);
    expect(() => loadConfig({ METRICS_PORT: 'x' })).toThrow(/METRICS_PORT: must be a port number/);
    expect(() => loadConfig({ DATABASE_CONNECT_TIMEOUT: '30s' })).toThrow(/DATABASE_CONNECT_TIMEOUT/);
  });
});
