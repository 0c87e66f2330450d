/**
 * When PostgreSQL goes away the process stays up, answers 503 SERVICE_UNAVAILABLE (and /readyz 503),
 * and recovers by itself when the database is back. Needs a real server, so it runs on PostgreSQL only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { TEST_DB } from '../helpers/test-database.ts';

describe.runIf(TEST_DB === 'postgres')('database outage', () => {
  let app: TestApp;
  let proxy: TcpProxy;

  beforeAll(async () => {
    const target = new URL(process.env.TEST_DATABASE_URL!);
    proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
    // Cache off: a cached answer is still true while the database is away (nothing can change it), so the
    // cache would answer these reads; what is tested here is the read that has to reach the database.
    app = await startTestApp({ CATALOG_CACHE_MB: '0' }, { viaPort: proxy.port });
    await app.db.prisma.category.create({ data: { name: 'Shoes' } });
  });
  afterAll(async () => {
    proxy.restore();
    await app?.close();
    await proxy?.close();
  });

  it('when the database becomes unreachable, then reads answer 503 SERVICE_UNAVAILABLE and /healthz stays 200', async () => {
    expect((await app.request('/api/v1/categories')).status).toBe(200);
    proxy.cut();
    const res = await app.request('/api/v1/categories');
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503 });
    expect(res.text).not.toMatch(/ECONN|127\.0\.0\.1|postgres/i);
    const gql = await app.graphql('{ categories { id } }');
    expect(gql.body.errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE');
    expect((await app.request('/readyz')).status).toBe(503);
    expect((await app.request('/healthz')).status).toBe(200);
  });

  it('when the database is back, then the service recovers without a restart', async () => {
    proxy.restore();
    expect((await app.request('/readyz')).status).toBe(200);
    const res = await app.request('/api/v1/categories');
    expect(res.status).toBe(200);
    expect(res.body.categories).toHaveLength(1);
  });
});
