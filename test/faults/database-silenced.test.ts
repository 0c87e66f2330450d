/**
 * Contract §7.3 / §7.4 with the real bundle (`npm start`) against a PostgreSQL whose connections
 * go silent — open, but no byte flows (a TCP proxy stops forwarding): requests answer 503
 * SERVICE_UNAVAILABLE within the statement timeout instead of hanging, /readyz says 503, the service
 * is whole again within seconds of the database answering, and SIGTERM still exits 0.
 * Needs a real server, so it runs on PostgreSQL only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itemBody } from '../helpers/catalog-admin.ts';
import { expectDefined } from '../helpers/expect-defined.ts';
import { type ServiceProcess, startService } from '../helpers/service-process.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';
import { createTestDatabase, TEST_DB, type TestDatabase } from '../helpers/test-database.ts';

const STATEMENT_TIMEOUT_MS = 1000;
// A request waits at most for a connection (max(statement timeout, 1 s)) and then one statement.
const ANSWER_BOUND_MS = 2 * STATEMENT_TIMEOUT_MS + 700;
const ADMIN = { username: 'root', password: 'root-password-for-faults' };

interface Answer {
  status: number;
  ms: number;
  code?: string;
  contentType: string | null;
}

/** One request, timed; the body's `code` when it is a problem. */
async function call(service: ServiceProcess, path: string, init: RequestInit = {}): Promise<Answer> {
  const started = performance.now();
  const res = await fetch(service.url + path, { ...init, signal: AbortSignal.timeout(20_000) });
  const body = (await res.json().catch(() => ({}))) as { code?: string };
  return {
    status: res.status,
    ms: performance.now() - started,
    code: body.code,
    contentType: res.headers.get('content-type'),
  };
}

const json = (body: unknown, token?: string): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
  body: JSON.stringify(body),
});

/** Polls `path` until it answers 200; resolves with the milliseconds that took, or rejects after `limitMs`. */
async function until200(service: ServiceProcess, path: string, limitMs: number): Promise<number> {
  const started = performance.now();
  for (;;) {
    if ((await call(service, path)).status === 200) return performance.now() - started;
    if (performance.now() - started > limitMs) throw new Error(`${path} not 200 within ${limitMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe.skipIf(TEST_DB !== 'postgres')('when PostgreSQL stops answering', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let env: Record<string, string>;

  beforeAll(async () => {
    database = await createTestDatabase();
    const url = new URL(database.url!);
    proxy = await startTcpProxy(url.hostname, Number(url.port || 5432));
    url.port = String(proxy.port);
    env = {
      DATABASE_URL: url.toString(),
      DATABASE_STATEMENT_TIMEOUT: String(STATEMENT_TIMEOUT_MS),
      DATABASE_POOL_SIZE: '10',
      DATA_DIR: mkdtempSync(join(tmpdir(), 'shop-faults-')),
      ADMIN_USERNAME: ADMIN.username,
      ADMIN_PASSWORD: ADMIN.password,
      LOG_LEVEL: 'info', // startService waits for the "listening" line
      // One process, and every read from the database: what is measured is the database path.
      WORKERS: '1',
      CATALOG_CACHE_MB: '0',
      // Answers come fast while the breaker is open, so the waves below send many logins a second:
      // what is tested is their 503, not the per-IP attempt limit.
      LOGIN_IP_PER_MINUTE: '10000',
    };
  });
  afterAll(async () => {
    proxy?.restore();
    await proxy?.close();
    await database?.drop();
    if (env?.DATA_DIR) rmSync(env.DATA_DIR, { recursive: true, force: true });
  });

  it('when it is silenced for 3 s under load, then requests answer 503 within the bound and all is well again soon after', {
    timeout: 60_000,
  }, async () => {
    const service = await startService(env);
    try {
      const login = await fetch(`${service.url}/admin/api/auth/login`, json(ADMIN));
      const token = ((await login.json()) as { access_token: string }).access_token;
      const categories = (await (await fetch(`${service.url}/api/v1/categories`)).json()) as {
        categories: { id: number }[];
      };
      const [category] = categories.categories;
      expectDefined(category, 'a seeded category');
      const newItem = () => json(itemBody(category.id, { skus: [] }), token);
      const list = (i: number) => call(service, `/api/v1/items?page=${(i % 3) + 1}&limit=5`);
      expect((await Promise.all(Array.from({ length: 8 }, (_, i) => list(i)))).map((a) => a.status)).toEqual(
        Array(8).fill(200),
      );

      proxy.silence();
      const silencedAt = performance.now();
      const answers: Answer[] = [];
      const ready: Answer[] = [];
      // Waves of concurrent reads, a login (Prisma), an item creation (a Prisma transaction) and the probe.
      while (performance.now() - silencedAt < 3000) {
        const wave = await Promise.all([
          ...Array.from({ length: 6 }, (_, i) => list(i)),
          call(service, '/api/v1/auth/login', json({ username: 'nobody@example.com', password: 'whatever-1' })),
          call(service, '/admin/api/items', newItem()),
        ]);
        answers.push(...wave);
        ready.push(await call(service, '/readyz'));
      }
      proxy.restore();
      const recoveredMs = await until200(service, '/readyz', 15_000);

      expect(answers.length).toBeGreaterThanOrEqual(8);
      for (const a of answers) {
        expect(a).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
        expect(a.contentType).toMatch(/^application\/problem\+json/);
        expect(a.ms).toBeLessThan(ANSWER_BOUND_MS);
      }
      for (const r of ready) {
        expect(r.status).toBe(503);
        expect(r.ms).toBeLessThan(2500);
      }
      expect(recoveredMs).toBeLessThan(15_000);
      // Whole again: every pooled connection answers, Prisma transactions included.
      const after = await Promise.all(Array.from({ length: 12 }, (_, i) => list(i)));
      expect(after.map((a) => a.status)).toEqual(Array(12).fill(200));
      const created = await call(service, '/admin/api/items', newItem());
      expect(created.status).toBe(201);
      console.info(
        `silenced: ${answers.length} answers, slowest ${Math.round(Math.max(...answers.map((a) => a.ms)))} ms; ` +
          `readyz slowest ${Math.round(Math.max(...ready.map((r) => r.ms)))} ms; ready again ${Math.round(recoveredMs)} ms after restore`,
      );
    } finally {
      proxy.restore();
      expect(await service.stop()).toBe(0);
    }
  });

  it('when it is silenced, then after the first statement times out requests answer 503 at once (a breaker) and /readyz says 503; within seconds of the restore all is well', {
    timeout: 60_000,
  }, async () => {
    const service = await startService(env);
    try {
      expect((await call(service, '/api/v1/items')).status).toBe(200);
      proxy.silence();
      const first = await call(service, '/api/v1/items');
      expect(first).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
      expect(first.ms, 'the first one finds out by waiting').toBeGreaterThan(STATEMENT_TIMEOUT_MS * 0.8);
      const after: Answer[] = [];
      for (let i = 0; i < 10; i++) after.push(await call(service, i % 2 ? '/api/v1/items' : '/api/v1/categories'));
      after.push(await call(service, '/admin/api/auth/login', json(ADMIN)));
      for (const a of after) {
        expect(a).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
        // Without the breaker each of these waited out the statement timeout again.
        expect(a.ms).toBeLessThan(STATEMENT_TIMEOUT_MS);
      }
      const ready = await call(service, '/readyz');
      expect(ready.status).toBe(503);
      expect(ready.ms).toBeLessThan(STATEMENT_TIMEOUT_MS);
      expect(service.output()).toMatch(/database not answering: requests fail at once/);
      proxy.restore();
      const recoveredMs = await until200(service, '/api/v1/items', 10_000);
      expect((await call(service, '/readyz')).status).toBe(200);
      expect(service.output()).toMatch(/database answering again/);
      console.info(
        `breaker: first 503 after ${Math.round(first.ms)} ms, then slowest ${Math.round(Math.max(...after.map((a) => a.ms)))} ms; ` +
          `serving again ${Math.round(recoveredMs)} ms after the restore`,
      );
    } finally {
      proxy.restore();
      expect(await service.stop()).toBe(0);
    }
  });

  it('when SIGTERM arrives while it is silenced, then the process exits 0 within 15 s', {
    timeout: 60_000,
  }, async () => {
    const service = await startService(env);
    try {
      expect((await call(service, '/api/v1/items')).status).toBe(200);
      proxy.silence();
      // Statements in flight on silenced connections when the signal arrives.
      const inFlight = Array.from({ length: 4 }, () => call(service, '/api/v1/items').catch(() => undefined));
      await new Promise((r) => setTimeout(r, 200));
      const started = performance.now();
      const code = await service.stop(20_000); // killed (null) if it has not exited by then
      const ms = performance.now() - started;
      expect(code).toBe(0);
      expect(ms).toBeLessThan(15_000);
      await Promise.all(inFlight);
      console.info(`SIGTERM while silenced: exited ${code} after ${Math.round(ms)} ms`);
    } finally {
      proxy.restore();
      await service.stop();
    }
  });
});
