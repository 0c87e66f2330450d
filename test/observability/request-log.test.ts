/**
 * Contract §7.7, the request log, on the service as `npm start` runs it: one line per request with
 * request id, method, route pattern, status, duration, bytes, client IP, principal and GraphQL
 * operation name — JSON, or one readable line with LOG_FORMAT=pretty — and never a token, password,
 * WeChat code or session key: a whole run of logins, refreshes and writes is searched for every
 * secret it used.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_WX, type FakeWeChat, startFakeWeChat } from '../helpers/fake-wechat.ts';
import { type ServiceProcess, startProcess, startService } from '../helpers/service-process.ts';
import { createTestDatabase, TEST_DB, type TestDatabase } from '../helpers/test-database.ts';

const ADMIN_PASSWORD = 'admin-pw-Zq8vLr2m-never-logged';
const CUSTOMER_PASSWORD = 'customer-pw-Hk4tWs9x-never-logged';
const WRONG_PASSWORD = 'wrong-pw-Yp3nCd7e-never-logged';
const INLINE_PASSWORD = 'inline-pw-Bv6uJq1r-never-logged';
const WX_CODE = 'ok:openid-logtest:code-Xr5mNq8s-never-logged';
const SESSION_KEY = 'sk-openid-logtest-must-never-leak'; // what the fake WeChat answers for WX_CODE
const SECRETS = {
  CUSTOMER_JWT_SECRET: 'customer-jwt-secret-Lw2pFh6k-0123456789abcdef',
  ADMIN_JWT_SECRET: 'admin-jwt-secret-Gt9sBn3v-0123456789abcdef-x',
};

let wechat: FakeWeChat;
let database: TestDatabase | undefined;
let env: Record<string, string>;

beforeAll(async () => {
  wechat = await startFakeWeChat();
  env = {
    ...wechat.env,
    ...SECRETS,
    ADMIN_USERNAME: 'root',
    ADMIN_PASSWORD,
    SEED_DEMO: 'false',
    LOG_LEVEL: 'trace',
    LOG_FORMAT: 'json',
    DATA_DIR: mkdtempSync(join(tmpdir(), 'shop-request-log-')),
  };
  if (TEST_DB === 'postgres') {
    database = await createTestDatabase();
    env.DATABASE_URL = database.url!;
  }
});
afterAll(async () => {
  await wechat?.close();
  await database?.drop();
});

interface Answer {
  status: number;
  requestId: string;
  body: any;
}

const client = (service: ServiceProcess) => ({
  async send(path: string, opts: { body?: unknown; token?: string; method?: string } = {}): Promise<Answer> {
    const headers: Record<string, string> = {};
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    const res = await fetch(service.url + path, {
      method: opts.method ?? (opts.body === undefined ? 'GET' : 'POST'),
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    });
    const text = await res.text();
    return {
      status: res.status,
      requestId: res.headers.get('x-request-id') ?? '',
      body: text ? JSON.parse(text) : undefined,
    };
  },
  graphql(query: string, variables: Record<string, unknown> = {}, token?: string) {
    return this.send('/graphql', { body: { query, variables }, token });
  },
});

/** The JSON request lines of a log. */
const requestLines = (output: string) =>
  output
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.msg === 'request' || l.msg === 'request failed' || l.msg === 'request not served');

describe('request log', () => {
  it('when a full run of logins, refreshes and writes is logged, then every request has its line and no secret appears', {
    timeout: 90_000,
  }, async () => {
    const service = await startService(env);
    const api = client(service);
    const tokens: string[] = [];
    const sent: Answer[] = [];
    const send = async (p: Promise<Answer>, status: number) => {
      const a = await p;
      expect(a.status, JSON.stringify(a.body)).toBe(status);
      sent.push(a);
      return a;
    };
    let customerId: number;
    try {
      const admin = await send(
        api.send('/admin/api/auth/login', { body: { username: 'root', password: ADMIN_PASSWORD } }),
        200,
      );
      const adminToken = admin.body.access_token as string;
      tokens.push(adminToken);
      const created = await send(
        api.graphql(
          'mutation NewCustomer($input: CreateCustomerInput!) { createCustomer(input: $input) { id } }',
          { input: { username: 'log-test@example.com', password: CUSTOMER_PASSWORD } },
          adminToken,
        ),
        200,
      );
      customerId = created.body.data.createCustomer.id;
      await send(
        api.send('/api/v1/auth/login', { body: { username: 'log-test@example.com', password: WRONG_PASSWORD } }),
        401,
      );
      const login = await send(
        api.send('/api/v1/auth/login', { body: { username: 'log-test@example.com', password: CUSTOMER_PASSWORD } }),
        200,
      );
      tokens.push(login.body.access_token);
      const me = await send(api.graphql('query Me { me { id } }', {}, login.body.access_token), 200);
      expect(me.body.data.me.id).toBe(customerId);
      const refreshed = await send(
        api.send('/api/v1/auth/refresh', { method: 'POST', token: login.body.access_token }),
        200,
      );
      tokens.push(refreshed.body.access_token);
      const wx = await send(api.send('/api/v1/auth/wx-login', { body: { code: WX_CODE } }), 200);
      tokens.push(wx.body.access_token);
      const category = await send(
        api.graphql('mutation Shelf { createCategory(input: { name: "Boots" }) { id } }', {}, adminToken),
        200,
      );
      const item = await send(
        api.send('/admin/api/items', {
          token: adminToken,
          body: {
            name: 'Log boot',
            category_id: category.body.data.createCategory.id,
            price: '19.90',
            stock: 1,
            skus: [{ sku_code: 'LOG-1', specs: { size: '42' } }],
            images: ['https://cdn.example.com/log.jpg'],
          },
        }),
        201,
      );
      const gqlLogin = await send(
        api.graphql('mutation SignIn($u: String!, $p: String!) { login(username: $u, password: $p) { accessToken } }', {
          u: 'log-test@example.com',
          p: CUSTOMER_PASSWORD,
        }),
        200,
      );
      tokens.push(gqlLogin.body.data.login.accessToken);
      const inline = await send(
        api.graphql(
          `mutation { login(username: "log-test@example.com", password: "${INLINE_PASSWORD}") { accessToken } }`,
        ),
        200,
      );
      expect(inline.body.errors[0].extensions.code).toBe('INVALID_CREDENTIALS');
      expect(wechat.calls.some((c) => c.js_code === WX_CODE)).toBe(true);

      // The lines say who asked what, and how it went.
      const lines = () => requestLines(service.output());
      await expect.poll(() => lines().length).toBeGreaterThanOrEqual(sent.length);
      const lineOf = (a: Answer) => lines().find((l) => l.request_id === a.requestId);
      for (const a of sent) {
        const line = lineOf(a);
        expect(line, a.requestId).toBeDefined();
        expect(line).toMatchObject({ status: a.status, client_ip: '127.0.0.1' });
        expect(line!.bytes).toBeGreaterThan(0);
        expect(typeof line!.duration_ms).toBe('number');
      }
      expect(lineOf(refreshed)).toMatchObject({
        method: 'POST',
        route: '/api/v1/auth/refresh',
        principal: `customer:${customerId}`,
      });
      expect(lineOf(me)).toMatchObject({
        route: '/graphql',
        principal: `customer:${customerId}`,
        graphql_operation: 'Me',
      });
      expect(lineOf(item)).toMatchObject({ route: '/admin/api/items', status: 201, principal: 'admin:1' });
      expect(lineOf(created)).toMatchObject({ principal: 'admin:1', graphql_operation: 'NewCustomer' });
      expect(lineOf(gqlLogin)).toMatchObject({ graphql_operation: 'SignIn' });
      expect(lineOf(gqlLogin)!.principal).toBeUndefined();
      expect(lineOf(inline)).toMatchObject({ graphql_operation: '(anonymous)' });
    } finally {
      expect(await service.stop()).toBe(0);
    }

    const log = service.output();
    const secrets = [
      ADMIN_PASSWORD,
      CUSTOMER_PASSWORD,
      WRONG_PASSWORD,
      INLINE_PASSWORD,
      WX_CODE,
      WX_CODE.split(':').at(-1)!,
      SESSION_KEY,
      FAKE_WX.secret,
      ...Object.values(SECRETS),
      ...tokens,
      // A token's signature alone would be as bad.
      ...tokens.map((t) => t.split('.')[2]!),
    ];
    expect(tokens).toHaveLength(5);
    for (const secret of secrets) expect(log.includes(secret), `the log holds ${secret}`).toBe(false);
  });

  it('when LOG_FORMAT=pretty, then each request is one readable line naming method, route pattern, status, duration and size', {
    timeout: 60_000,
  }, async () => {
    const service = await startProcess({ env: { ...env, LOG_LEVEL: 'info', LOG_FORMAT: 'pretty' }, ready: 'readyz' });
    try {
      expect((await fetch(`${service.url}/api/v1/items/424242`)).status).toBe(404);
      await expect
        .poll(() => service.output())
        .toMatch(
          /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: GET \/api\/v1\/items\/:id 404 [\d.]+ ms \d+ B .*"path":"\/api\/v1\/items\/424242"/m,
        );
      expect(service.output()).not.toMatch(/^\{"level"/m);
    } finally {
      expect(await service.stop()).toBe(0);
    }
  });

  it('when answers are expected states — a refused input, an unconfigured mini-program login, a missing page — then their lines are info or warn, never error, and name the route and the operation', {
    timeout: 90_000,
  }, async () => {
    // No WeChat app configured here: wx-login answers 503 WX_LOGIN_NOT_CONFIGURED, as designed.
    const { WX_APPID: _appId, WX_SECRET: _secret, WX_API_BASE: _base, ...unconfigured } = env;
    const service = await startService(unconfigured);
    const api = client(service);
    try {
      const refused = await api.send('/api/v1/items?limit=500');
      expect(refused.status).toBe(400);
      const wx = await api.send('/api/v1/auth/wx-login', { body: { code: 'any-code' } });
      expect(wx).toMatchObject({ status: 503, body: { code: 'WX_LOGIN_NOT_CONFIGURED' } });
      expect((await fetch(`${service.url}/docs/assets/swagger-ui.css`)).status).toBe(200);
      expect((await api.send('/no/such/page')).status).toBe(404);
    } finally {
      expect(await service.stop()).toBe(0);
    }
    const lines = requestLines(service.output());
    const line = (path: string) => lines.find((l) => l.path === path) as Record<string, unknown>;
    expect(line('/api/v1/items')).toMatchObject({ level: 30, status: 400, graphql_operation: 'RestItems' });
    expect(line('/api/v1/auth/wx-login')).toMatchObject({ level: 40, status: 503, graphql_operation: 'RestWxLogin' });
    expect(line('/docs/assets/swagger-ui.css')).toMatchObject({ level: 30, route: '/docs/assets/:file' });
    expect(line('/no/such/page')).toMatchObject({ level: 30, route: '(unmatched)' });
    const errors = service
      .output()
      .split('\n')
      .filter((l) => /"level":(50|60)/.test(l));
    expect(errors).toEqual([]);
  });
});
