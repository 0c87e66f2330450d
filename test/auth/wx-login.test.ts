/**
 * POST /api/v1/auth/wx-login (contract §3.2) against a local fake of WeChat's jscode2session
 * (test/helpers/fake-wechat.ts): every documented answer, upstream failure and misconfiguration.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, gqlCode, makeCustomer, refresh } from '../helpers/accounts.ts';
import { closedPortUrl, FAKE_WX, type FakeWeChat, startFakeWeChat } from '../helpers/fake-wechat.ts';
import { expectDocumentedResponse } from '../helpers/openapi.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

let wechat: FakeWeChat;
let app: TestApp;
beforeAll(async () => {
  wechat = await startFakeWeChat();
  app = await startTestApp(wechat.env);
});
afterAll(async () => {
  await app.close();
  await wechat.close();
});

let seq = 0;
/** A fresh openid per test, so tests never see each other's customers. */
const openid = (label = 'o') => `${label}-${process.pid}-${++seq}`;
const wxLogin = (code: unknown, on: TestApp = app) => on.request('/api/v1/auth/wx-login', { body: { code } });
const customers = () => app.db.prisma.customer.count();

describe('POST /api/v1/auth/wx-login — success', () => {
  it('when a new openid logs in, then 200 with a token, a user without username and is_new_user true', async () => {
    const id = openid();
    const before = wechat.calls.length;
    const res = await wxLogin(`ok:${id}`);
    expect(res.status).toBe(200);
    const created = await app.db.prisma.customer.findUniqueOrThrow({ where: { wxOpenid: id } });
    expect(res.body).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 7200,
      user: { id: created.id, username: null, nickname: null, avatar_url: null },
      is_new_user: true,
    });
    expect(res.headers.get('cache-control')).toBe('no-store');
    await expectDocumentedResponse(app, 'POST', '/api/v1/auth/wx-login', res);
    // WeChat was asked exactly as documented.
    expect(wechat.calls.slice(before)).toEqual([
      { appid: FAKE_WX.appId, secret: FAKE_WX.secret, js_code: `ok:${id}`, grant_type: 'authorization_code' },
    ]);
    // session_key goes nowhere: not in the answer, not in the database.
    expect(res.text).not.toMatch(/sk-|session_key/);
    expect(JSON.stringify(created)).not.toMatch(/sk-/);
    // The token is an ordinary customer token: it reads `me` and can be refreshed.
    expect((await app.graphql('{ me { id username } }', {}, { token: res.body.access_token })).body.data.me).toEqual({
      id: created.id,
      username: null,
    });
    expect((await refresh(app, res.body.access_token)).status).toBe(200);
  });

  it('when the same openid logs in again, then the same customer with is_new_user false', async () => {
    const id = openid();
    const first = await wxLogin(`ok:${id}`);
    const second = await wxLogin(`ok:${id}:again`);
    expect(second.status).toBe(200);
    expect(second.body.is_new_user).toBe(false);
    expect(second.body.user.id).toBe(first.body.user.id);
    expect(second.body.access_token).not.toBe(first.body.access_token);
  });

  it('when WeChat sends a unionid, then it is stored with the customer', async () => {
    const id = openid();
    const res = await wxLogin(`union:${id}:u-${id}`);
    expect(res.status).toBe(200);
    const customer = await app.db.prisma.customer.findUniqueOrThrow({ where: { id: res.body.user.id } });
    expect(customer).toMatchObject({ wxOpenid: id, wxUnionid: `u-${id}`, username: null, passwordHash: null });
  });

  it('when two first logins of one openid run in parallel, then one customer exists and exactly one login is "new"', async () => {
    const id = openid('race');
    const answers = await Promise.all([1, 2, 3, 4].map((n) => wxLogin(`ok:${id}:${n}`)));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(new Set(answers.map((r) => r.body.user.id)).size).toBe(1);
    expect(answers.filter((r) => r.body.is_new_user).length).toBe(1);
    expect(await app.db.prisma.customer.count({ where: { wxOpenid: id } })).toBe(1);
  });

  it('when WeChat answers -1 once, then the call is retried once and succeeds', async () => {
    const id = openid();
    const before = wechat.calls.length;
    const res = await wxLogin(`busy-once:${id}:1`);
    expect(res.status).toBe(200);
    expect(wechat.calls.length - before).toBe(2);
  });

  it('when an e-mail customer exists, then a WeChat identity never attaches itself to it', async () => {
    const emailCustomer = await makeCustomer(app);
    const res = await wxLogin(`ok:${openid()}`);
    expect(res.body.user.id).not.toBe(emailCustomer.id);
    expect((await app.db.prisma.customer.findUniqueOrThrow({ where: { id: emailCustomer.id } })).wxOpenid).toBeNull();
  });

  it('when called over GraphQL, then wxLogin returns the same data with isNewUser', async () => {
    const res = await app.graphql(
      'mutation ($c: String!) { wxLogin(code: $c) { accessToken tokenType expiresIn isNewUser user { id username } } }',
      {
        c: `ok:${openid()}`,
      },
    );
    expect(res.body.data.wxLogin).toMatchObject({
      tokenType: 'Bearer',
      expiresIn: 7200,
      isNewUser: true,
      user: { username: null },
    });
  });
});

describe('POST /api/v1/auth/wx-login — WeChat says no', () => {
  it.each([
    [40029, 401, 'WX_CODE_INVALID'],
    [40163, 401, 'WX_CODE_INVALID'],
    [40226, 403, 'ACCOUNT_DISABLED'],
    [45011, 429, 'RATE_LIMITED'],
    [-1, 503, 'UPSTREAM_UNAVAILABLE'],
    [40013, 503, 'UPSTREAM_UNAVAILABLE'],
  ])('when WeChat answers errcode %i, then %i %s and no customer is created', async (errcode, status, code) => {
    const before = [await customers(), wechat.calls.length] as const;
    const res = await wxLogin(`err:${errcode}`);
    expectProblem(res, status, code);
    await expectDocumentedResponse(app, 'POST', '/api/v1/auth/wx-login', res);
    expect(await customers()).toBe(before[0]);
    // -1 is retried exactly once; every other answer is final.
    expect(wechat.calls.length - before[1]).toBe(errcode === -1 ? 2 : 1);
    if (status === 401) expect(res.headers.get('www-authenticate')).toBe('Bearer realm="customer"');
    if (status === 429) expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(res.text).not.toContain(FAKE_WX.secret);
  });

  it.each(['not-json', 'http-500', 'http-502', 'no-openid'])(
    'when WeChat answers %s, then 503 UPSTREAM_UNAVAILABLE and no customer',
    async (code) => {
      const before = await customers();
      expectProblem(await wxLogin(code), 503, 'UPSTREAM_UNAVAILABLE');
      expect(await customers()).toBe(before);
    },
  );

  it('when WeChat does not answer within 5 s, then 503 UPSTREAM_UNAVAILABLE and no customer', async () => {
    const before = await customers();
    expectProblem(await wxLogin('slow'), 503, 'UPSTREAM_UNAVAILABLE');
    expect(await customers()).toBe(before);
  }, 20_000);

  it('when the customer of that openid is disabled, then 403 ACCOUNT_DISABLED after WeChat vouched for the code', async () => {
    const id = openid();
    await makeCustomer(app, { username: null, password: null, wxOpenid: id, disabled: true });
    const res = await wxLogin(`ok:${id}`);
    expectProblem(res, 403, 'ACCOUNT_DISABLED');
    expect(await app.db.prisma.customerSession.count({ where: { customer: { wxOpenid: id } } })).toBe(0);
  });
});

describe('POST /api/v1/auth/wx-login — bad requests and configuration', () => {
  it('when the code is missing, empty, too long or not a string, then 400 naming `code` and WeChat is not called', async () => {
    const before = wechat.calls.length;
    for (const body of [{}, { code: '' }, { code: 'x'.repeat(129) }, { code: 42 }, { code: null }]) {
      const res = await app.request('/api/v1/auth/wx-login', { body });
      expectProblem(res, 400, 'VALIDATION_FAILED');
      expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['code']);
    }
    expect(wechat.calls.length).toBe(before);
  });

  it('when WX_APPID / WX_SECRET are not configured, then 503 WX_LOGIN_NOT_CONFIGURED', async () => {
    const bare = await startTestApp();
    try {
      const before = wechat.calls.length;
      expectProblem(await wxLogin('ok:someone', bare), 503, 'WX_LOGIN_NOT_CONFIGURED');
      expect(gqlCode(await bare.graphql('mutation { wxLogin(code: "ok:x") { accessToken } }'))).toBe(
        'WX_LOGIN_NOT_CONFIGURED',
      );
      expect(wechat.calls.length).toBe(before);
    } finally {
      await bare.close();
    }
  });

  it('when the configured secret is wrong, then WeChat refuses it and the client gets 503 without the secret', async () => {
    const misconfigured = await startTestApp({ ...wechat.env, WX_SECRET: 'not-the-secret-wechat-knows' });
    try {
      const res = await wxLogin(`ok:${openid()}`, misconfigured);
      expectProblem(res, 503, 'UPSTREAM_UNAVAILABLE');
      expect(res.text).not.toContain('not-the-secret');
      expect(await misconfigured.db.prisma.customer.count()).toBe(0);
    } finally {
      await misconfigured.close();
    }
  });

  it('when WeChat cannot be reached at all, then 503 UPSTREAM_UNAVAILABLE', async () => {
    const unreachable = await startTestApp({ ...wechat.env, WX_API_BASE: await closedPortUrl() });
    try {
      expectProblem(await wxLogin(`ok:${openid()}`, unreachable), 503, 'UPSTREAM_UNAVAILABLE');
    } finally {
      await unreachable.close();
    }
  });
});
