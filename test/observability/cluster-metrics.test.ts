/**
 * Contract §7.7: with WORKERS > 1, /metrics is the sum of every worker's metrics — on the main port
 * in development (a worker asks the primary), on METRICS_PORT in production (the primary answers).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sample } from '../helpers/prometheus.ts';
import { freePort, type ServiceProcess, startService } from '../helpers/service-process.ts';
import { createTestDatabase, TEST_DB, type TestDatabase } from '../helpers/test-database.ts';

const REQUESTS = 12;

/** Sends REQUESTS on fresh connections (so both workers may take some), then reads `metricsUrl`. */
async function trafficThenMetrics(service: ServiceProcess, metricsUrl: string): Promise<string> {
  // Both workers listen before traffic starts: otherwise one would see it all.
  await expect.poll(() => service.output().match(/shop service listening/g)?.length, { timeout: 20_000 }).toBe(2);
  await Promise.all(
    Array.from({ length: REQUESTS }, async () => {
      const res = await fetch(`${service.url}/api/v1/categories`, { headers: { connection: 'close' } });
      expect(res.status).toBe(200);
      await res.text();
    }),
  );
  const res = await fetch(metricsUrl);
  expect(res.status).toBe(200);
  return res.text();
}

describe.skipIf(TEST_DB !== 'postgres')('/metrics with workers', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database?.drop());

  const categories = { route: '/api/v1/categories', method: 'GET', status: '200' };

  it('when two workers serve in development, then /metrics on the main port is their sum', {
    timeout: 90_000,
  }, async () => {
    const service = await startService({ DATABASE_URL: database.url!, WORKERS: '2', LOG_LEVEL: 'info' });
    try {
      const text = await trafficThenMetrics(service, `${service.url}/metrics`);
      expect(sample(text, 'shop_processes')).toBe(2);
      expect(sample(text, 'http_requests_total', categories)).toBe(REQUESTS);
      expect(sample(text, 'http_request_duration_seconds_count', categories)).toBe(REQUESTS);
      expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
      expect(sample(text, 'shop_db_pool_connections', { pool: 'primary' })).toBeGreaterThan(0);
    } finally {
      expect(await service.stop()).toBe(0);
    }
  });

  it('when two workers serve in production, then the primary answers on METRICS_PORT with their sum, and the main port has no /metrics', {
    timeout: 90_000,
  }, async () => {
    const metricsPort = await freePort();
    const service = await startService({
      DATABASE_URL: database.url!,
      WORKERS: '2',
      LOG_LEVEL: 'info',
      NODE_ENV: 'production',
      CUSTOMER_JWT_SECRET: 'customer-secret-for-cluster-tests-0123456789',
      ADMIN_JWT_SECRET: 'admin-secret-for-cluster-tests-0123456789-xy',
      METRICS_PORT: String(metricsPort),
    });
    try {
      const text = await trafficThenMetrics(service, `http://127.0.0.1:${metricsPort}/metrics`);
      expect(sample(text, 'shop_processes')).toBe(2);
      expect(sample(text, 'http_requests_total', categories)).toBe(REQUESTS);
      expect((await fetch(`${service.url}/metrics`)).status).toBe(404);
      expect((await fetch(`http://127.0.0.1:${metricsPort}/other`)).status).toBe(404);
    } finally {
      expect(await service.stop()).toBe(0);
    }
  });
});
