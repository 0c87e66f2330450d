/**
 * The edges a production deployment meets (contract §7.1, §7.5, §11), on the service as `npm start`
 * runs it with NODE_ENV=production: only the service's CORS answers (never Yoga's, never credentials),
 * malformed GET parameters are the client's 400 (not an INTERNAL logged on every request), no "Did
 * you mean …?" spells out the schema, a token answer is `no-store` over every GraphQL transport,
 * CONNECT and a browser's GET /graphql get problem+json like every other answer.
 */
import { mkdtempSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServiceProcess, startService } from '../helpers/service-process.ts';
import { createTestDatabase, TEST_DB, type TestDatabase } from '../helpers/test-database.ts';

const ADMIN = { username: 'edge-root', password: 'edge-root-password' };

let database: TestDatabase | undefined;
let service: ServiceProcess;

beforeAll(async () => {
  const env: Record<string, string> = {
    NODE_ENV: 'production',
    CUSTOMER_JWT_SECRET: 'customer-secret-for-edge-tests-0123456789',
    ADMIN_JWT_SECRET: 'admin-secret-for-edge-tests-0123456789-xyz',
    ADMIN_USERNAME: ADMIN.username,
    ADMIN_PASSWORD: ADMIN.password,
    LOG_LEVEL: 'info',
    LOG_FORMAT: 'json',
    WORKERS: '1',
    DATA_DIR: mkdtempSync(join(tmpdir(), 'shop-edges-')),
  };
  if (TEST_DB === 'postgres') {
    database = await createTestDatabase();
    env.DATABASE_URL = database.url!;
  }
  service = await startService(env);
}, 90_000);
afterAll(async () => {
  await service?.stop();
  await database?.drop();
});

const graphql = (query: string, headers: Record<string, string> = {}, variables?: unknown) =>
  fetch(`${service.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query, variables }),
  });

/** Error-level lines of the service's log since `mark` (an offset into its output). */
const errorsSince = (mark: number) =>
  service
    .output()
    .slice(mark)
    .split('\n')
    .filter((l) => /"level":(50|60)/.test(l));

describe('production edges', () => {
  it('when a page on another origin calls /graphql and no CORS_ORIGINS is set, then no CORS header answers — credentials never', async () => {
    const evil = { origin: 'https://evil.example.com' };
    const res = await graphql('{ categories { id } }', evil);
    expect(res.status).toBe(200);
    expect([...res.headers.keys()].filter((h) => h.startsWith('access-control-'))).toEqual([]);
    const preflight = await fetch(`${service.url}/graphql`, {
      method: 'OPTIONS',
      headers: { ...evil, 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect([...preflight.headers.keys()].filter((h) => h.startsWith('access-control-'))).toEqual([]);
  });

  it('when GET /graphql has `variables` or `extensions` that are not JSON, then 400 VALIDATION_FAILED and nothing is logged as an error', async () => {
    const mark = service.output().length;
    for (const param of ['variables=x', 'extensions=x', 'variables=%7B']) {
      const res = await fetch(`${service.url}/graphql?query=%7Bcategories%7Bid%7D%7D&${param}`);
      expect(res.status, param).toBe(400);
      const body = (await res.json()) as { errors: { extensions: { code: string } }[] };
      expect(body.errors[0]?.extensions.code).toBe('VALIDATION_FAILED');
    }
    expect(errorsSince(mark)).toEqual([]);
  });

  it('when a document misspells an enum value, a field or a variable value, then no suggestion names the schema', async () => {
    const literal = await (await graphql('{ items(sort: PRICE_ASC) { total } }')).text();
    const variable = await (
      await graphql('query($s: ItemSort) { items(sort: $s) { total } }', {}, { s: 'PRICE_ASC' })
    ).text();
    const field = await (await graphql('{ itemz { total } }')).text();
    for (const text of [literal, variable, field]) {
      expect(text).toContain('VALIDATION_FAILED');
      expect(text).not.toMatch(/Did you mean|price_asc|"items"/);
    }
  });

  it('when a login is asked for over text/event-stream, then the token answer is `Cache-Control: no-store`', async () => {
    const res = await graphql(
      `mutation { adminLogin(username: "${ADMIN.username}", password: "${ADMIN.password}") { accessToken } }`,
      { accept: 'text/event-stream' },
    );
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const text = await res.text();
    expect(text).toContain('accessToken');
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('when a browser opens /graphql where GraphiQL is off, then 406 is problem+json', async () => {
    const res = await fetch(`${service.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(res.status).toBe(406);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await res.json()).toMatchObject({ status: 406, code: 'NOT_ACCEPTABLE' });
  });

  it('when a client sends CONNECT, then it gets a problem+json 405 with Allow and X-Request-Id, then the connection closes', async () => {
    const { port } = new URL(service.url);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(port), '127.0.0.1', () =>
        socket.write('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'),
      );
      let text = '';
      socket.on('data', (d) => (text += d.toString()));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    const [head, body] = answer.split('\r\n\r\n') as [string, string];
    expect(head).toMatch(/^HTTP\/1\.1 405 Method Not Allowed/);
    expect(head).toMatch(/\r\nContent-Type: application\/problem\+json/i);
    expect(head).toMatch(/\r\nAllow: GET, HEAD, POST/i);
    expect(head).toMatch(/\r\nX-Request-Id: \S+/i);
    expect(JSON.parse(body)).toMatchObject({ status: 405, code: 'METHOD_NOT_ALLOWED' });
  });
});
