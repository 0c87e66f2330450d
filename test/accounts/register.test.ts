/**
 * Contract §8.1 sign-up: POST /api/v1/auth/register and GraphQL `register` — 201 with the login body,
 * the rules of createCustomer (a taken username is VALIDATION_FAILED on `username`), and the per-IP
 * quota REGISTER_IP_PER_HOUR.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customerLogin, expectProblem, gqlCode, uniqueEmail } from '../helpers/accounts.ts';
import { errorFields } from '../helpers/catalog.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ LOGIN_IP_PER_MINUTE: '1000', REGISTER_IP_PER_HOUR: '1000' });
});
afterAll(() => app.close());

const register = (target: TestApp, body: unknown) => target.request('/api/v1/auth/register', { body });

const REGISTER = /* GraphQL */ `
  mutation ($input: RegisterInput!) {
    register(input: $input) { accessToken tokenType expiresIn isNewUser user { id username nickname avatarUrl } }
  }`;

const customerCount = () => app.db.prisma.customer.count();

describe('POST /api/v1/auth/register', () => {
  it('when a new e-mail signs up, then 201 with the login body, a working token and a usable password', async () => {
    const email = uniqueEmail('New');
    const res = await register(app, {
      username: `  ${email.toUpperCase()} `,
      password: 'sign-up-password',
      nickname: ' Neo ',
    });
    expect(res.status, res.text).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 7200,
      user: { id: expect.any(Number), username: email.toLowerCase(), nickname: 'Neo', avatar_url: null },
    });
    const me = await app.request('/api/v1/me', { token: res.body.access_token });
    expect(me.status).toBe(200);
    expect(me.body).toEqual(res.body.user);
    const login = await customerLogin(app, email, 'sign-up-password');
    expect(login.status).toBe(200);
    expect(login.body.user).toEqual(res.body.user);
    const stored = await app.db.prisma.customer.findUniqueOrThrow({ where: { id: res.body.user.id } });
    expect(stored.passwordHash).toMatch(/^\$argon2id\$/);
    expect(await app.db.prisma.customerSession.count({ where: { customerId: stored.id } })).toBe(2);
  });

  it('when the nickname is left out, then it is null', async () => {
    const res = await register(app, { username: uniqueEmail(), password: 'sign-up-password' });
    expect(res.status, res.text).toBe(201);
    expect(res.body.user.nickname).toBeNull();
  });

  it('when GraphQL register is used, then it answers the same user and a token (isNewUser is for wxLogin only)', async () => {
    const email = uniqueEmail('gql');
    const res = await app.graphql(REGISTER, {
      input: { username: email, password: 'sign-up-password', nickname: 'G' },
    });
    expect(res.body.errors).toBeUndefined();
    const auth = res.body.data.register;
    expect(auth).toMatchObject({ tokenType: 'Bearer', expiresIn: 7200, isNewUser: null });
    expect(auth.user).toEqual({ id: expect.any(Number), username: email, nickname: 'G', avatarUrl: null });
    const me = await app.request('/api/v1/me', { token: auth.accessToken });
    expect(me.body).toEqual({ id: auth.user.id, username: email, nickname: 'G', avatar_url: null });
  });

  it('when the username is taken (in any case), then 400 VALIDATION_FAILED on username and nothing is created', async () => {
    const email = uniqueEmail('Taken');
    expect((await register(app, { username: email, password: 'sign-up-password' })).status).toBe(201);
    const before = await customerCount();
    const res = await register(app, { username: email.toUpperCase(), password: 'another-password' });
    expectProblem(res, 400, 'VALIDATION_FAILED');
    expect(res.body.errors).toEqual([{ field: 'username', message: 'is already taken' }]);
    const gql = await app.graphql(REGISTER, { input: { username: email, password: 'another-password' } });
    expect(gqlCode(gql)).toBe('VALIDATION_FAILED');
    expect(errorFields(gql.body.errors[0].extensions.errors)).toEqual(['username']);
    expect(await customerCount()).toBe(before);
  });

  const invalid: Array<[what: string, body: unknown, fields: string[]]> = [
    ['everything is missing', {}, ['password', 'username']],
    ['the username is not an e-mail address', { username: 'not-an-email', password: 'sign-up-password' }, ['username']],
    [
      'the username is longer than 254',
      { username: `${'a'.repeat(250)}@example.com`, password: 'sign-up-password' },
      ['username'],
    ],
    ['the password has 7 characters', { username: 'short@example.com', password: '1234567' }, ['password']],
    ['the password has 1025 characters', { username: 'long@example.com', password: 'p'.repeat(1025) }, ['password']],
    ['the password is a number', { username: 'num@example.com', password: 12345678 }, ['password']],
    [
      'the nickname has 65 characters',
      { username: 'nick@example.com', password: 'sign-up-password', nickname: 'n'.repeat(65) },
      ['nickname'],
    ],
    [
      'the nickname is blank',
      { username: 'blank@example.com', password: 'sign-up-password', nickname: '   ' },
      ['nickname'],
    ],
    [
      'the nickname holds U+0000',
      { username: 'nul@example.com', password: 'sign-up-password', nickname: 'a\u0000b' },
      ['nickname'],
    ],
  ];
  for (const [what, body, fields] of invalid) {
    it(`when ${what}, then 400 VALIDATION_FAILED naming ${fields.join(', ')} and nothing is created`, async () => {
      const before = await customerCount();
      const res = await register(app, body);
      expectProblem(res, 400, 'VALIDATION_FAILED');
      expect(errorFields(res.body.errors).sort()).toEqual(fields);
      expect(await customerCount()).toBe(before);
    });
  }

  it('when the nickname has exactly 64 characters and the password 8, then the sign-up is accepted', async () => {
    const res = await register(app, { username: uniqueEmail(), password: '12345678', nickname: '名'.repeat(64) });
    expect(res.status, res.text).toBe(201);
    expect(res.body.user.nickname).toBe('名'.repeat(64));
  });

  it('when the body is not a JSON object or not JSON, then 400', async () => {
    expectProblem(await register(app, ['x']), 400, 'VALIDATION_FAILED');
    expectProblem(
      await app.request('/api/v1/auth/register', { method: 'POST', rawBody: '{', contentType: 'application/json' }),
      400,
      'MALFORMED_JSON',
    );
    expectProblem(
      await app.request('/api/v1/auth/register', { method: 'POST', rawBody: 'a=b', contentType: 'text/plain' }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
  });

  it('when GET is used on the path, then 405 with Allow: POST', async () => {
    const res = await app.request('/api/v1/auth/register');
    expectProblem(res, 405, 'METHOD_NOT_ALLOWED');
    expect(res.headers.get('allow')).toBe('POST');
  });
});

describe('REGISTER_IP_PER_HOUR', () => {
  it('when one IP signs up more than the limit, then 429 RATE_LIMITED with Retry-After, REST and GraphQL alike', async () => {
    const limited = await startTestApp({ REGISTER_IP_PER_HOUR: '3' });
    try {
      const first = await register(limited, { username: uniqueEmail(), password: 'sign-up-password' });
      expect(first.status).toBe(201);
      // Invalid bodies are refused before they are counted.
      expectProblem(await register(limited, { username: 'bad', password: 'x' }), 400, 'VALIDATION_FAILED');
      // A taken username is counted: the quota also limits probing which addresses have accounts.
      const taken = await register(limited, { username: first.body.user.username, password: 'sign-up-password' });
      expectProblem(taken, 400, 'VALIDATION_FAILED');
      const gql = await limited.graphql(REGISTER, { input: { username: uniqueEmail(), password: 'sign-up-password' } });
      expect(gql.body.errors).toBeUndefined();
      const before = await limited.db.prisma.customer.count();
      const res = await register(limited, { username: uniqueEmail(), password: 'sign-up-password' });
      expectProblem(res, 429, 'RATE_LIMITED');
      const retryAfter = Number(res.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(3000);
      expect(retryAfter).toBeLessThanOrEqual(3600);
      const gqlLimited = await limited.graphql(REGISTER, {
        input: { username: uniqueEmail(), password: 'sign-up-password' },
      });
      expect(gqlCode(gqlLimited)).toBe('RATE_LIMITED');
      expect(await limited.db.prisma.customer.count()).toBe(before);
      // Logins are counted separately.
      expect((await customerLogin(limited, first.body.user.username, 'sign-up-password')).status).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it('when REGISTER_IP_PER_HOUR is not set, then the default is 20', () => {
    expect(app.config.login.registerIpPerHour).toBe(1000);
    return startTestApp().then(async (defaults) => {
      expect(defaults.config.login.registerIpPerHour).toBe(20);
      await defaults.close();
    });
  });
});
