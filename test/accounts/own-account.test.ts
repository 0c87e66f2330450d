/**
 * Contract §8.1 for a logged-in customer: logout (the whole session is revoked), GET / PATCH
 * /api/v1/me with GraphQL `me` / `updateMe` beside them, and `changePassword` (checked as a login,
 * revoking every other session).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CUSTOMER_PASSWORD,
  customerLogin,
  expectProblem,
  gqlCode,
  loginAsAdmin,
  loginAsCustomer,
  makeCustomer,
  refresh,
} from '../helpers/accounts.ts';
import { errorFields } from '../helpers/catalog.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

let app: TestApp;
let adminToken: string;
beforeAll(async () => {
  app = await startTestApp({ LOGIN_IP_PER_MINUTE: '1000', LOGIN_MAX_FAILURES: '3' });
  adminToken = await loginAsAdmin(app);
});
afterAll(() => app.close());

const me = (token?: string) => app.request('/api/v1/me', { token });
const patchMe = (token: string | undefined, body: unknown) =>
  app.request('/api/v1/me', { method: 'PATCH', token, body });
const logout = (token?: string) => app.request('/api/v1/auth/logout', { method: 'POST', token });

const ME = /* GraphQL */ `{ me { id username nickname avatarUrl } }`;
const UPDATE_ME = /* GraphQL */ `
  mutation ($input: UpdateMeInput!) { updateMe(input: $input) { id username nickname avatarUrl } }`;
const CHANGE_PASSWORD = /* GraphQL */ `
  mutation ($current: String!, $next: String!) { changePassword(currentPassword: $current, newPassword: $next) }`;

/** A fresh customer and a logged-in token of theirs. */
async function customerWithToken(nickname = 'Alice') {
  const customer = await makeCustomer(app, { nickname });
  return { customer, token: await loginAsCustomer(app, customer.username!) };
}

describe('POST /api/v1/auth/logout', () => {
  it('when a customer logs out, then 204 with no body and every token of the session is revoked', async () => {
    const { customer, token: first } = await customerWithToken();
    const refreshed = await refresh(app, first);
    expect(refreshed.status).toBe(200);
    const second = refreshed.body.access_token as string;
    const otherSession = await loginAsCustomer(app, customer.username!);

    const res = await logout(second);
    expect(res.status, res.text).toBe(204);
    expect(res.text).toBe('');
    for (const token of [second, first]) {
      const after = await me(token);
      expectProblem(after, 401, 'TOKEN_REVOKED');
      expect(after.headers.get('www-authenticate')).toBe('Bearer realm="customer", error="invalid_token"');
      expectProblem(await refresh(app, token), 401, 'TOKEN_REVOKED');
      expectProblem(await logout(token), 401, 'TOKEN_REVOKED');
    }
    // Other sessions of the same customer are not touched.
    expect((await me(otherSession)).status).toBe(200);
  });

  it('when GraphQL logout is used, then true, and the token answers TOKEN_REVOKED from then on', async () => {
    const { token } = await customerWithToken();
    const res = await app.graphql('mutation { logout }', {}, { token });
    expect(res.body).toEqual({ data: { logout: true } });
    expect(gqlCode(await app.graphql(ME, {}, { token }))).toBe('TOKEN_REVOKED');
    expectProblem(await me(token), 401, 'TOKEN_REVOKED');
  });

  it('when no token or an admin token is presented, then 401 UNAUTHENTICATED or TOKEN_INVALID', async () => {
    const none = await logout();
    expectProblem(none, 401, 'UNAUTHENTICATED');
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="customer"');
    expectProblem(await logout(adminToken), 401, 'TOKEN_INVALID');
    expect(gqlCode(await app.graphql('mutation { logout }'))).toBe('UNAUTHENTICATED');
  });
});

describe('GET /api/v1/me', () => {
  it('when a customer asks, then 200 with the user object of the login answer, not cached; GraphQL me agrees', async () => {
    const { customer, token } = await customerWithToken('Bob');
    const login = await customerLogin(app, customer.username, CUSTOMER_PASSWORD);
    const res = await me(token);
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toEqual({ id: customer.id, username: customer.username, nickname: 'Bob', avatar_url: null });
    expect(res.body).toEqual(login.body.user);
    const gql = await app.graphql(ME, {}, { token });
    expect(gql.body.data.me).toEqual({
      id: customer.id,
      username: customer.username,
      nickname: 'Bob',
      avatarUrl: null,
    });
  });

  it('when no token, an admin token or a garbled token is sent, then 401 with the contract code', async () => {
    expectProblem(await me(), 401, 'UNAUTHENTICATED');
    expectProblem(await me(adminToken), 401, 'TOKEN_INVALID');
    expectProblem(await me('not.a.token'), 401, 'TOKEN_INVALID');
  });

  it('when the account is disabled, then 403 ACCOUNT_DISABLED', async () => {
    const { customer, token } = await customerWithToken();
    await app.db.prisma.customer.update({ where: { id: customer.id }, data: { disabled: true } });
    expectProblem(await me(token), 403, 'ACCOUNT_DISABLED');
  });
});

describe('PATCH /api/v1/me', () => {
  it('when nickname and avatar_url are sent, then 200 with the updated user, and every read sees it', async () => {
    const { customer, token } = await customerWithToken();
    const res = await patchMe(token, { nickname: '  Alice B. ', avatar_url: 'https://cdn.example.com/a.png' });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const expected = {
      id: customer.id,
      username: customer.username,
      nickname: 'Alice B.',
      avatar_url: 'https://cdn.example.com/a.png',
    };
    expect(res.body).toEqual(expected);
    expect((await me(token)).body).toEqual(expected);
    expect((await customerLogin(app, customer.username, CUSTOMER_PASSWORD)).body.user).toEqual(expected);
  });

  it('when a field is left out it stays, and null clears it', async () => {
    const { token } = await customerWithToken('Keep');
    await patchMe(token, { avatar_url: 'http://cdn.example.com/b.png' });
    const onlyAvatar = await patchMe(token, { avatar_url: null });
    expect(onlyAvatar.body).toMatchObject({ nickname: 'Keep', avatar_url: null });
    const empty = await patchMe(token, {});
    expect(empty.status).toBe(200);
    expect(empty.body).toMatchObject({ nickname: 'Keep', avatar_url: null });
    const cleared = await patchMe(token, { nickname: null, unknown_field: 1, id: 999 });
    expect(cleared.body).toMatchObject({ nickname: null, avatar_url: null });
  });

  it('when GraphQL updateMe is used, then it changes the same fields and answers the same user', async () => {
    const { customer, token } = await customerWithToken();
    const gql = await app.graphql(
      UPDATE_ME,
      { input: { nickname: '小明', avatarUrl: 'https://x.example/p.jpg' } },
      { token },
    );
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.updateMe).toEqual({
      id: customer.id,
      username: customer.username,
      nickname: '小明',
      avatarUrl: 'https://x.example/p.jpg',
    });
    expect((await me(token)).body).toEqual({
      id: customer.id,
      username: customer.username,
      nickname: '小明',
      avatar_url: 'https://x.example/p.jpg',
    });
  });

  const invalid: Array<[what: string, body: unknown, fields: string[]]> = [
    ['the nickname has 65 characters', { nickname: 'n'.repeat(65) }, ['nickname']],
    ['the nickname is blank', { nickname: ' ' }, ['nickname']],
    ['the nickname is a number', { nickname: 7 }, ['nickname']],
    ['the avatar is not a URL', { avatar_url: 'avatar.png' }, ['avatar_url']],
    ['the avatar is an ftp URL', { avatar_url: 'ftp://cdn.example.com/a.png' }, ['avatar_url']],
    ['the avatar URL is over 2048 characters', { avatar_url: `https://x.example/${'a'.repeat(2040)}` }, ['avatar_url']],
    ['both are wrong', { nickname: '', avatar_url: 'javascript:alert(1)' }, ['avatar_url', 'nickname']],
  ];
  for (const [what, body, fields] of invalid) {
    it(`when ${what}, then 400 VALIDATION_FAILED naming ${fields.join(', ')} and nothing changes`, async () => {
      const { customer, token } = await customerWithToken('Same');
      const res = await patchMe(token, body);
      expectProblem(res, 400, 'VALIDATION_FAILED');
      expect(errorFields(res.body.errors).sort()).toEqual(fields);
      const stored = await app.db.prisma.customer.findUniqueOrThrow({ where: { id: customer.id } });
      expect(stored).toMatchObject({ nickname: 'Same', avatarUrl: null });
    });
  }

  it('when GraphQL updateMe gets a bad avatar, then VALIDATION_FAILED naming avatarUrl', async () => {
    const { token } = await customerWithToken();
    const res = await app.graphql(UPDATE_ME, { input: { avatarUrl: 'nope' } }, { token });
    expect(gqlCode(res)).toBe('VALIDATION_FAILED');
    expect(errorFields(res.body.errors[0].extensions.errors)).toEqual(['avatarUrl']);
  });

  it('when the token is missing or wrong, then 401 before the body is looked at', async () => {
    expectProblem(await patchMe(undefined, { nickname: 'n'.repeat(100) }), 401, 'UNAUTHENTICATED');
    expectProblem(await patchMe(adminToken, { nickname: 'x' }), 401, 'TOKEN_INVALID');
  });

  it('when the body is not JSON or not an object, then 415 / 400', async () => {
    const { token } = await customerWithToken();
    expectProblem(
      await app.request('/api/v1/me', { method: 'PATCH', token, rawBody: 'nickname=x', contentType: 'text/plain' }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
    expectProblem(await patchMe(token, 'x'), 400, 'VALIDATION_FAILED');
  });
});

describe('methods on /api/v1/me', () => {
  it('when another method is used, then 405 with Allow listing GET, HEAD and PATCH', async () => {
    for (const method of ['DELETE', 'PUT', 'POST']) {
      const res = await app.request('/api/v1/me', { method });
      expectProblem(res, 405, 'METHOD_NOT_ALLOWED');
      expect(res.headers.get('allow')).toBe('GET, HEAD, PATCH');
    }
  });

  it('when a browser preflights a PATCH, then 204 allowing PATCH', async () => {
    const res = await app.request('/api/v1/me', {
      method: 'OPTIONS',
      headers: {
        origin: 'https://shop.example.com',
        'access-control-request-method': 'PATCH',
        'access-control-request-headers': 'authorization, content-type',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-methods')).toBe('GET,HEAD,PATCH');
    expect(res.headers.get('allow')).toBe('GET, HEAD, PATCH');
  });
});

describe('changePassword', () => {
  it('when the current password is right, then true, the other sessions are revoked and this one stays', async () => {
    const { customer, token } = await customerWithToken();
    const other = await loginAsCustomer(app, customer.username!);
    const res = await app.graphql(
      CHANGE_PASSWORD,
      { current: CUSTOMER_PASSWORD, next: 'a-brand-new-password' },
      { token },
    );
    expect(res.body).toEqual({ data: { changePassword: true } });
    expectProblem(await me(other), 401, 'TOKEN_REVOKED');
    expect((await me(token)).status).toBe(200);
    expectProblem(await customerLogin(app, customer.username, CUSTOMER_PASSWORD), 401, 'INVALID_CREDENTIALS');
    expect((await customerLogin(app, customer.username, 'a-brand-new-password')).status).toBe(200);
  });

  it('when the current password is wrong, then INVALID_CREDENTIALS, nothing changes, and it counts as a failed login', async () => {
    const { customer, token } = await customerWithToken();
    const other = await loginAsCustomer(app, customer.username!);
    for (let i = 0; i < 3; i++) {
      const res = await app.graphql(
        CHANGE_PASSWORD,
        { current: 'wrong-password', next: 'a-brand-new-password' },
        { token },
      );
      expect(gqlCode(res)).toBe('INVALID_CREDENTIALS');
      expect(res.body.data ?? null).toBeNull();
    }
    expect((await me(other)).status).toBe(200);
    // LOGIN_MAX_FAILURES (3) spent for this username from this IP: even the right password waits now.
    expectProblem(await customerLogin(app, customer.username, CUSTOMER_PASSWORD), 429, 'RATE_LIMITED');
    const again = await app.graphql(
      CHANGE_PASSWORD,
      { current: CUSTOMER_PASSWORD, next: 'a-brand-new-password' },
      { token },
    );
    expect(gqlCode(again)).toBe('RATE_LIMITED');
    const stored = await app.db.prisma.customer.findUniqueOrThrow({ where: { id: customer.id } });
    expect(stored.passwordHash).toBe(customer.passwordHash);
  });

  it('when the new password breaks the rules, then VALIDATION_FAILED naming it, before the current one is checked', async () => {
    const { token } = await customerWithToken();
    for (const next of ['short', 'p'.repeat(1025)]) {
      const res = await app.graphql(CHANGE_PASSWORD, { current: CUSTOMER_PASSWORD, next }, { token });
      expect(gqlCode(res)).toBe('VALIDATION_FAILED');
      expect(errorFields(res.body.errors[0].extensions.errors)).toEqual(['newPassword']);
    }
    const empty = await app.graphql(CHANGE_PASSWORD, { current: '', next: 'a-brand-new-password' }, { token });
    expect(errorFields(empty.body.errors[0].extensions.errors)).toEqual(['currentPassword']);
  });

  it('when the account has no password (mini-program only), then INVALID_CREDENTIALS', async () => {
    const wx = await makeCustomer(app, { username: null, password: null, wxOpenid: 'openid-change-password' });
    const session = await app.db.prisma.customerSession.create({
      data: {
        id: crypto.randomUUID(),
        customerId: wx.id,
        currentJti: crypto.randomUUID(),
        currentIssuedAt: new Date(Math.floor(Date.now() / 1000) * 1000),
        expiresAt: new Date(Date.now() + 3600_000),
      },
    });
    const { token } = await app.services.tokens.customer.issue({
      sub: String(wx.id),
      sid: session.id,
      jti: session.currentJti,
      iat: session.currentIssuedAt.getTime() / 1000,
    });
    expect((await me(token)).body).toEqual({ id: wx.id, username: null, nickname: null, avatar_url: null });
    const res = await app.graphql(
      CHANGE_PASSWORD,
      { current: 'anything-at-all', next: 'a-brand-new-password' },
      { token },
    );
    expect(gqlCode(res)).toBe('INVALID_CREDENTIALS');
  });

  it('when no token or an admin token is sent, then UNAUTHENTICATED or TOKEN_INVALID', async () => {
    const vars = { current: CUSTOMER_PASSWORD, next: 'a-brand-new-password' };
    expect(gqlCode(await app.graphql(CHANGE_PASSWORD, vars))).toBe('UNAUTHENTICATED');
    expect(gqlCode(await app.graphql(CHANGE_PASSWORD, vars, { token: adminToken }))).toBe('TOKEN_INVALID');
  });
});
