/**
 * Contract §7.7: `GET /metrics` (Prometheus text) counts requests by route pattern, method and status
 * with their latency, GraphQL operations of both protocols in one place, login failures, rate-limit
 * rejections, catalogue cache hits and misses, database statements and pools. On the main port
 * outside production only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminLogin } from '../helpers/accounts.ts';
import { sample, total } from '../helpers/prometheus.ts';
import { startTestApp, TEST_ADMIN, type TestApp } from '../helpers/test-app.ts';
import { TEST_DB } from '../helpers/test-database.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ LOG_LEVEL: 'silent', LOGIN_MAX_FAILURES: '2' });
});
afterAll(() => app?.close());

const scrape = async () => {
  const res = await app.request('/metrics');
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text;
};

describe('/metrics', () => {
  it('when REST and GraphQL requests are answered, then each is counted by route pattern, method and status, with its latency', async () => {
    const before = await scrape();
    const at = (route: string, status: string, method = 'GET', text = before) =>
      sample(text, 'http_requests_total', { route, status, method }) ?? 0;
    expect((await app.request('/api/v1/items/999999')).status).toBe(404);
    expect((await app.request('/api/v1/items/999998')).status).toBe(404);
    expect((await app.graphql('query Shelf { categories { id } }')).status).toBe(200);
    expect((await app.request('/no/such/path')).status).toBe(404);

    const after = await scrape();
    expect(at('/api/v1/items/:id', '404', 'GET', after) - at('/api/v1/items/:id', '404')).toBe(2);
    expect(at('/graphql', '200', 'POST', after) - at('/graphql', '200', 'POST')).toBe(1);
    // Unknown paths share one series: a scanner cannot grow the metrics.
    expect(at('(unmatched)', '404', 'GET', after) - at('(unmatched)', '404')).toBe(1);
    expect(after).not.toContain('/no/such/path');
    const latency = { route: '/api/v1/items/:id', status: '404', method: 'GET' };
    expect(sample(after, 'http_request_duration_seconds_count', latency)).toBe(2);
    expect(sample(after, 'http_request_duration_seconds_bucket', { ...latency, le: '+Inf' })).toBe(2);
    expect(sample(after, 'http_request_duration_seconds_sum', latency)).toBeGreaterThan(0);
  });

  it('when an operation runs over REST or over /graphql, then graphql_operations_total counts each root field once, by field and type', async () => {
    const op = (text: string, field: string, type: string) =>
      sample(text, 'graphql_operations_total', { field, type }) ?? 0;
    const before = await scrape();
    await app.request('/api/v1/items/999999'); // REST runs the pre-parsed operation RestItem: field `item`
    await app.graphql('query FindOne { item(id: 999999) { id } }');
    await app.graphql(
      '{ categories { id } again: categories { name } ...More } fragment More on Query { item(id: 1) { id } }',
    );
    await app.graphql('mutation Nope { adminLogin(username: "x@y", password: "wrong-password") { accessToken } }');
    const after = await scrape();
    expect(op(after, 'item', 'query') - op(before, 'item', 'query')).toBe(3);
    expect(op(after, 'categories', 'query') - op(before, 'categories', 'query')).toBe(1);
    expect(op(after, 'adminLogin', 'mutation') - op(before, 'adminLogin', 'mutation')).toBe(1);
    // Names are the client's: they never become label values.
    expect(after).not.toMatch(/FindOne|Nope|RestItem/);
  });

  it('when wrong passwords are sent past the limit, then login failures and the RATE_LIMITED answer are counted', async () => {
    const failures = (text: string) =>
      sample(text, 'shop_login_failures_total', { realm: 'admin', method: 'password' }) ?? 0;
    const limited = (text: string) => total(text, 'shop_rate_limited_total');
    const before = await scrape();
    const username = `nobody-${Date.now()}@example.com`;
    expect((await adminLogin(app, username, 'wrong-1')).status).toBe(401);
    expect((await adminLogin(app, username, 'wrong-2')).status).toBe(401);
    expect((await adminLogin(app, username, 'wrong-3')).status).toBe(429); // LOGIN_MAX_FAILURES=2
    const gql = await app.graphql(
      `mutation Again { adminLogin(username: "${username}", password: "x") { accessToken } }`,
    );
    expect(gql.body.errors[0].extensions.code).toBe('RATE_LIMITED');
    expect((await adminLogin(app, TEST_ADMIN.username, TEST_ADMIN.password)).status).toBe(200);
    const after = await scrape();
    expect(failures(after) - failures(before)).toBe(2);
    expect(limited(after) - limited(before)).toBe(2);
    expect(sample(after, 'shop_rate_limited_total', { field: 'adminLogin' })).toBeGreaterThanOrEqual(1);
  });

  it('when a catalogue answer is asked for twice, then one cache miss and one hit are counted', async () => {
    const lookups = (text: string, result: string) =>
      sample(text, 'shop_catalog_cache_lookups_total', { kind: 'answer', result }) ?? 0;
    const before = await scrape();
    expect((await app.request('/api/v1/categories?x=1')).status).toBe(200);
    expect((await app.request('/api/v1/categories?x=2')).status).toBe(200);
    const after = await scrape();
    expect(lookups(after, 'miss') - lookups(before, 'miss')).toBe(1);
    expect(lookups(after, 'hit') - lookups(before, 'hit')).toBe(1);
  });

  it('when statements run, then their latency is recorded per pool, and pool usage is reported on PostgreSQL', async () => {
    const pool = TEST_DB === 'postgres' ? 'primary' : 'embedded';
    const count = (text: string) => sample(text, 'shop_db_statement_duration_seconds_count', { pool }) ?? 0;
    const before = await scrape();
    await app.request('/api/v1/items/999997');
    const after = await scrape();
    expect(count(after)).toBeGreaterThan(count(before));
    if (TEST_DB === 'postgres') {
      expect(sample(after, 'shop_db_pool_connections', { pool: 'primary' })).toBeGreaterThan(0);
      expect(sample(after, 'shop_db_pool_idle_connections', { pool: 'primary' })).toBeGreaterThanOrEqual(0);
      expect(sample(after, 'shop_db_pool_waiting_requests', { pool: 'primary' })).toBe(0);
    } else {
      expect(after).not.toMatch(/^shop_db_pool_connections\{/m);
    }
  });

  it('when anonymous clients send 600 invented operation names, then no series is added: labels come from the schema', async () => {
    const series = (text: string) => text.split('\n').filter((l) => l.startsWith('graphql_operations_total{')).length;
    await app.graphql('query Warm { categories { id } }');
    const before = await scrape();
    for (let i = 0; i < 600; i++) await app.graphql(`query Invented${i} { categories { id } }`);
    const after = await scrape();
    expect(series(after)).toBe(series(before));
    expect(after).not.toContain('Invented');
    expect(
      (sample(after, 'graphql_operations_total', { field: 'categories', type: 'query' }) ?? 0) -
        (sample(before, 'graphql_operations_total', { field: 'categories', type: 'query' }) ?? 0),
    ).toBe(600);
  });
});

describe('/metrics in production', () => {
  it('when NODE_ENV is production, then the main port does not serve /metrics', async () => {
    const prod = await startTestApp({ NODE_ENV: 'production' });
    try {
      const res = await prod.request('/metrics');
      expect(res.status).toBe(404);
      expect(res.text).not.toContain('http_requests_total');
    } finally {
      await prod.close();
    }
  });
});
