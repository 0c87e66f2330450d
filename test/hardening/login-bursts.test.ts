/**
 * Contract §7.2: the login limits hold under concurrency. A burst of parallel wrong passwords gets
 * no more password checks than the limits allow (each check of a wrong password is exactly one 401;
 * everything else must be a 429), in memory and through Redis, over REST and GraphQL alike; and a
 * burst of mini-program logins is cut off per IP before WeChat is called.
 */
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminLogin, customerLogin, makeAdmin, makeCustomer } from '../helpers/accounts.ts';
import { type FakeWeChat, startFakeWeChat } from '../helpers/fake-wechat.ts';
import { type ApiResponse, startTestApp, type TestApp } from '../helpers/test-app.ts';

const REDIS_URL = process.env.REDIS_TEST_URL;
const randomIp = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
const from = (ip: string) => ({ 'x-forwarded-for': ip });

/** Status counts of a burst; every answer must be a 401 (a password was checked) or a 429. */
function tally(answers: ApiResponse[]): { checked: number; limited: number } {
  const codes = answers.map((r) => r.body?.code ?? r.body?.errors?.[0]?.extensions?.code);
  expect(codes.filter((c) => c !== 'INVALID_CREDENTIALS' && c !== 'RATE_LIMITED')).toEqual([]);
  return {
    checked: codes.filter((c) => c === 'INVALID_CREDENTIALS').length,
    limited: codes.filter((c) => c === 'RATE_LIMITED').length,
  };
}

const gqlLogin = (app: TestApp, field: 'login' | 'adminLogin', username: string, headers: Record<string, string>) =>
  app.graphql(
    `mutation($u: String!) { ${field}(username: $u, password: "wrong-password") { accessToken } }`,
    { u: username },
    { headers },
  );

for (const store of ['memory', 'redis'] as const) {
  describe.skipIf(store === 'redis' && !REDIS_URL)(`parallel wrong passwords (${store})`, () => {
    let app: TestApp;
    beforeAll(async () => {
      app = await startTestApp({
        TRUST_PROXY: 'loopback',
        LOGIN_IP_PER_MINUTE: '1000',
        LOGIN_USERNAME_MAX_FAILURES_PER_HOUR: '20',
        ...(store === 'redis' ? { REDIS_URL: REDIS_URL! } : {}),
      });
    });
    afterAll(() => app.close());

    it('when 40 wrong customer logins for one username come at once from one IP, then at most 5 passwords are checked', async () => {
      const customer = await makeCustomer(app);
      const ip = randomIp();
      const rest = tally(
        await Promise.all(
          Array.from({ length: 40 }, () => customerLogin(app, customer.username, 'wrong-password', from(ip))),
        ),
      );
      expect(rest.checked).toBeLessThanOrEqual(5);
      expect(rest.checked + rest.limited).toBe(40);

      const other = await makeCustomer(app);
      const gql = tally(
        await Promise.all(Array.from({ length: 40 }, () => gqlLogin(app, 'login', other.username!, from(ip)))),
      );
      expect(gql.checked).toBeLessThanOrEqual(5);
    });

    it('when 40 wrong admin logins come at once, then at most 5 passwords are checked (REST and GraphQL)', async () => {
      const admin = await makeAdmin(app);
      const ip = randomIp();
      const rest = tally(
        await Promise.all(
          Array.from({ length: 40 }, () => adminLogin(app, admin.username, 'wrong-password', from(ip))),
        ),
      );
      expect(rest.checked).toBeLessThanOrEqual(5);
      const other = await makeAdmin(app);
      const gql = tally(
        await Promise.all(Array.from({ length: 40 }, () => gqlLogin(app, 'adminLogin', other.username, from(ip)))),
      );
      expect(gql.checked).toBeLessThanOrEqual(5);
    });

    it('when 12 right-password logins of one admin come at once from one IP, then none is told to wait the window', async () => {
      const admin = await makeAdmin(app, { password: 'right-password-123' });
      const ip = randomIp();
      const answers = await Promise.all(
        Array.from({ length: 12 }, () => adminLogin(app, admin.username, 'right-password-123', from(ip))),
      );
      const waits = answers.filter((r) => r.status === 429).map((r) => Number(r.headers.get('retry-after')));
      expect(answers.filter((r) => r.status !== 200 && r.status !== 429)).toEqual([]);
      // Reservations in flight are no spent limit: at worst "try again in 1 s", never the window's 900.
      expect(waits.filter((s) => s > 1)).toEqual([]);
      // A reservation is held for one password check: the waiters get their turn as it settles.
      expect(answers.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(10);
    });

    it('when wrong logins for one username come at once from many IPs, then the per-username limit caps the checks', async () => {
      const customer = await makeCustomer(app);
      const answers = await Promise.all(
        Array.from({ length: 80 }, () => customerLogin(app, customer.username, 'wrong-password', from(randomIp()))),
      );
      const { checked } = tally(answers);
      expect(checked).toBeLessThanOrEqual(20);
      expect(checked).toBeGreaterThan(0);
    });
  });
}

describe('mini-program logins per IP', () => {
  let wechat: FakeWeChat;
  let app: TestApp;
  beforeAll(async () => {
    wechat = await startFakeWeChat();
    app = await startTestApp({ ...wechat.env, WX_LOGIN_IP_PER_MINUTE: '30' });
  });
  afterAll(async () => {
    await app.close();
    await wechat.close();
  });

  it('when 200 wx-logins with bad codes arrive at once, then WeChat is called at most 30 times and the rest are 429', async () => {
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => app.request('/api/v1/auth/wx-login', { body: { code: `bad-code-${i}` } })),
    );
    const codes = answers.map((r) => r.body.code);
    expect(codes.filter((c) => c === 'WX_CODE_INVALID')).toHaveLength(30);
    expect(codes.filter((c) => c === 'RATE_LIMITED')).toHaveLength(170);
    expect(wechat.calls).toHaveLength(30);
    expect(answers.find((r) => r.status === 429)!.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it('when the code is invalid input, then 400 without calling WeChat or spending the quota', async () => {
    const before = wechat.calls.length;
    const res = await app.request('/api/v1/auth/wx-login', { body: { code: '' } });
    expect(res.status).toBe(400);
    expect(wechat.calls.length).toBe(before);
  });
});
