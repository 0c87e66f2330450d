import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CUSTOMER_PASSWORD,
  customerLogin,
  expectProblem,
  gqlCode,
  makeCustomer,
  uniqueEmail,
  withoutRequestId,
} from '../helpers/accounts.ts';
import { expectDocumentedResponse } from '../helpers/openapi.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ LOGIN_IP_PER_MINUTE: '1000' });
});
afterAll(() => app.close());

const LOGIN_GQL = /* GraphQL */ `
  mutation ($username: String!, $password: String!) {
    login(username: $username, password: $password) {
      accessToken tokenType expiresIn isNewUser user { id username nickname avatarUrl }
    }
  }`;

describe('POST /api/v1/auth/login', () => {
  it('when the e-mail and password are right, then 200 with a customer token and the user, in the contract shape', async () => {
    const customer = await makeCustomer(app, { nickname: 'Alice' });
    const res = await customerLogin(app, customer.username, CUSTOMER_PASSWORD);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 7200,
      user: { id: customer.id, username: customer.username, nickname: 'Alice', avatar_url: null },
    });
    expect(res.headers.get('cache-control')).toBe('no-store');
    await expectDocumentedResponse(app, 'POST', '/api/v1/auth/login', res);

    expect(decodeProtectedHeader(res.body.access_token)).toEqual({ alg: 'HS256', typ: 'customer+jwt' });
    const claims = decodeJwt(res.body.access_token);
    // Exactly the contract's claims: no personal data.
    expect(Object.keys(claims).sort()).toEqual(['aud', 'exp', 'iat', 'iss', 'jti', 'sid', 'sub']);
    expect(claims.sub).toBe(String(customer.id));
    expect(claims.exp! - claims.iat!).toBe(7200);
    const session = await app.db.prisma.customerSession.findUniqueOrThrow({ where: { id: claims.sid as string } });
    expect(session).toMatchObject({ customerId: customer.id, currentJti: claims.jti, revokedAt: null });
  });

  it('when the username differs in case and surrounding spaces, then it is the same account', async () => {
    const customer = await makeCustomer(app, { username: uniqueEmail('mixed') });
    const res = await customerLogin(app, `  ${customer.username!.toUpperCase()}\t`, CUSTOMER_PASSWORD);
    expect(res.status).toBe(200);
    expect(res.body.user.id).toBe(customer.id);
  });

  it('when the token is used on GraphQL `me`, then it names the customer', async () => {
    const customer = await makeCustomer(app, { nickname: '小明' });
    const { body } = await customerLogin(app, customer.username, CUSTOMER_PASSWORD);
    const me = await app.graphql('{ me { id username nickname avatarUrl } }', {}, { token: body.access_token });
    expect(me.body).toEqual({
      data: { me: { id: customer.id, username: customer.username, nickname: '小明', avatarUrl: null } },
    });
  });

  it('when the user is unknown, the password is wrong, or the account has no password, then the very same 401', async () => {
    const withPassword = await makeCustomer(app);
    const withoutPassword = await makeCustomer(app, { password: null });
    const answers = [
      await customerLogin(app, uniqueEmail('nobody'), CUSTOMER_PASSWORD),
      await customerLogin(app, withPassword.username, 'wrong password'),
      await customerLogin(app, withoutPassword.username, CUSTOMER_PASSWORD),
    ];
    for (const res of answers) {
      expectProblem(res, 401, 'INVALID_CREDENTIALS');
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="customer"');
    }
    const [first, ...rest] = answers.map((r) => withoutRequestId(r.body));
    for (const body of rest) expect(body).toEqual(first);
    expect(new Set(answers.map((r) => [...r.headers.keys()].sort().join()))).toHaveProperty('size', 1);
  });

  it('when fields are missing, of the wrong type or out of range, then 400 VALIDATION_FAILED names every one', async () => {
    const cases: Array<[unknown, string[]]> = [
      [{}, ['username', 'password']],
      [{ username: 'not-an-email', password: '' }, ['username', 'password']],
      [{ username: `${'a'.repeat(250)}@example.com`, password: 'x'.repeat(1025) }, ['username', 'password']],
      [{ username: 42, password: true }, ['username', 'password']],
      [{ username: 'ok@example.com' }, ['password']],
    ];
    for (const [body, fields] of cases) {
      const res = await app.request('/api/v1/auth/login', { body });
      expectProblem(res, 400, 'VALIDATION_FAILED');
      expect(
        res.body.errors.map((e: { field: string }) => e.field),
        JSON.stringify(body),
      ).toEqual(fields);
      await expectDocumentedResponse(app, 'POST', '/api/v1/auth/login', res);
    }
    const noBody = await app.request('/api/v1/auth/login', { method: 'POST' });
    expect(noBody.body.errors.map((e: { field: string }) => e.field)).toEqual(['username', 'password']);
  });

  it('when the account is disabled, then the right password gets 403 ACCOUNT_DISABLED and a wrong one the usual 401', async () => {
    const customer = await makeCustomer(app, { disabled: true });
    expectProblem(await customerLogin(app, customer.username, 'wrong password'), 401, 'INVALID_CREDENTIALS');
    const res = await customerLogin(app, customer.username, CUSTOMER_PASSWORD);
    expectProblem(res, 403, 'ACCOUNT_DISABLED');
    expect(await app.db.prisma.customerSession.count({ where: { customerId: customer.id } })).toBe(0);
  });

  it('when the body has unknown fields, then they are ignored', async () => {
    const customer = await makeCustomer(app);
    const res = await customerLogin(app, customer.username, CUSTOMER_PASSWORD);
    const withExtra = await app.request('/api/v1/auth/login', {
      body: { username: customer.username, password: CUSTOMER_PASSWORD, id: 999, disabled: false, role: 'admin' },
    });
    expect(withExtra.status).toBe(200);
    expect(withExtra.body.user).toEqual(res.body.user);
  });
});

describe('GraphQL login', () => {
  it('when called like the REST route, then it returns the same data in camelCase (isNewUser null)', async () => {
    const customer = await makeCustomer(app, { nickname: 'Gql' });
    const res = await app.graphql(LOGIN_GQL, { username: customer.username, password: CUSTOMER_PASSWORD });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.login).toEqual({
      accessToken: expect.any(String),
      tokenType: 'Bearer',
      expiresIn: 7200,
      isNewUser: null,
      user: { id: customer.id, username: customer.username, nickname: 'Gql', avatarUrl: null },
    });
  });

  it('when the password is wrong or the input invalid, then extensions.code says so and lists every field', async () => {
    const customer = await makeCustomer(app);
    const wrong = await app.graphql(LOGIN_GQL, { username: customer.username, password: 'nope' });
    expect(gqlCode(wrong)).toBe('INVALID_CREDENTIALS');
    expect(wrong.body.data).toBeNull();
    const invalid = await app.graphql(LOGIN_GQL, { username: 'x', password: '' });
    expect(gqlCode(invalid)).toBe('VALIDATION_FAILED');
    expect(invalid.body.errors[0].extensions.errors.map((e: { field: string }) => e.field)).toEqual([
      'username',
      'password',
    ]);
  });
});
