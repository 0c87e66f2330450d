import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminLogin, expectProblem, gqlCode, loginAsAdmin, makeAdmin, withoutRequestId } from '../helpers/accounts.ts';
import { expectDocumentedResponse } from '../helpers/openapi.ts';
import { startTestApp, TEST_ADMIN, type TestApp } from '../helpers/test-app.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ LOGIN_IP_PER_MINUTE: '1000' });
});
afterAll(() => app.close());

describe('POST /admin/api/auth/login', () => {
  it('when the bootstrap admin logs in, then 200 with an admin token and the admin, in the contract shape', async () => {
    const res = await adminLogin(app, TEST_ADMIN.username, TEST_ADMIN.password);
    expect(res.status).toBe(200);
    const admin = await app.db.prisma.admin.findUniqueOrThrow({ where: { username: TEST_ADMIN.username } });
    expect(res.body).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 3600,
      admin: { id: admin.id, username: 'root', role: 'owner' },
    });
    expect(res.headers.get('cache-control')).toBe('no-store');
    await expectDocumentedResponse(app, 'POST', '/admin/api/auth/login', res);
    expect(decodeProtectedHeader(res.body.access_token)).toEqual({ alg: 'HS256', typ: 'admin+jwt' });
    const claims = decodeJwt(res.body.access_token);
    expect(Object.keys(claims).sort()).toEqual(['aud', 'exp', 'iat', 'iss', 'jti', 'sid', 'sub']);
    expect(claims.sub).toBe(String(admin.id));
    expect(claims.exp! - claims.iat!).toBe(3600);
    // The two systems never share issuer or audience.
    const customerClaims = decodeJwt(
      await app.services.tokens.customer.issue({ sub: '1', sid: claims.sid as string }).then((t) => t.token),
    );
    expect(claims.iss).not.toBe(customerClaims.iss);
    expect(claims.aud).not.toBe(customerClaims.aud);
  });

  it('when the token is used on GraphQL `adminMe`, then it names the admin', async () => {
    const token = await loginAsAdmin(app);
    const res = await app.graphql('{ adminMe { id username role } }', {}, { token });
    expect(res.body.data.adminMe).toMatchObject({ username: 'root', role: 'owner' });
  });

  it('when the admin is unknown or the password wrong, then the very same 401 with realm="admin"', async () => {
    const answers = [
      await adminLogin(app, 'nobody-here', 'whatever-password'),
      await adminLogin(app, TEST_ADMIN.username, 'wrong'),
    ] as const;
    for (const res of answers) {
      expectProblem(res, 401, 'INVALID_CREDENTIALS');
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="admin"');
    }
    expect(withoutRequestId(answers[0].body)).toEqual(withoutRequestId(answers[1].body));
  });

  it('when the username is free-form (not an e-mail), then it is accepted; its case matters', async () => {
    const admin = await makeAdmin(app, { username: 'Ops Team', password: 'ops-password-1' });
    const res = await adminLogin(app, ' Ops Team ', 'ops-password-1');
    expect(res.status).toBe(200);
    expect(res.body.admin).toEqual({ id: admin.id, username: 'Ops Team', role: 'owner' });
    expectProblem(await adminLogin(app, 'ops team', 'ops-password-1'), 401, 'INVALID_CREDENTIALS');
  });

  it('when fields are missing or out of range, then 400 VALIDATION_FAILED names every one', async () => {
    const cases: Array<[unknown, string[]]> = [
      [{}, ['username', 'password']],
      [{ username: 'ab', password: '' }, ['username', 'password']],
      [{ username: 'x'.repeat(65), password: 'p'.repeat(1025) }, ['username', 'password']],
      [{ username: ['root'], password: 1 }, ['username', 'password']],
    ];
    for (const [body, fields] of cases) {
      const res = await app.request('/admin/api/auth/login', { body });
      expectProblem(res, 400, 'VALIDATION_FAILED');
      expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(fields);
    }
  });

  it('when the admin is disabled, then the right password gets 403 and a wrong one 401', async () => {
    const admin = await makeAdmin(app, { password: 'disabled-admin-pw', disabled: true });
    expectProblem(await adminLogin(app, admin.username, 'wrong-password'), 401, 'INVALID_CREDENTIALS');
    expectProblem(await adminLogin(app, admin.username, 'disabled-admin-pw'), 403, 'ACCOUNT_DISABLED');
  });

  it('when called over GraphQL, then adminLogin returns the same data', async () => {
    const res = await app.graphql(
      'mutation ($u: String!, $p: String!) { adminLogin(username: $u, password: $p) { accessToken tokenType expiresIn admin { username role } } }',
      { u: TEST_ADMIN.username, p: TEST_ADMIN.password },
    );
    expect(res.body.data.adminLogin).toEqual({
      accessToken: expect.any(String),
      tokenType: 'Bearer',
      expiresIn: 3600,
      admin: { username: 'root', role: 'owner' },
    });
    const bad = await app.graphql('mutation { adminLogin(username: "root", password: "nope") { accessToken } }');
    expect(gqlCode(bad)).toBe('INVALID_CREDENTIALS');
  });
});
