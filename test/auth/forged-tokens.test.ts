/**
 * Every way of forging or misusing a token ends in 401 TOKEN_INVALID, on REST (refresh) and GraphQL
 * (me, adminMe, admin mutations) alike. Forgeries start from a real token's claims, so the only thing
 * wrong with each is the one thing under test.
 */

import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { base64url, decodeJwt, exportJWK, generateSecret, type JWTPayload, jwtVerify, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, gqlCode, loginAsAdmin, loginAsCustomer, makeCustomer, refresh } from '../helpers/accounts.ts';
import { BASE_ENV, startTestApp, type TestApp } from '../helpers/test-app.ts';

const CUSTOMER_SECRET = BASE_ENV.CUSTOMER_JWT_SECRET;
const ADMIN_SECRET = BASE_ENV.ADMIN_JWT_SECRET;
const CUSTOMER = { iss: 'shop-service:customer', aud: 'shop-storefront', typ: 'customer+jwt' };
const ADMIN = { iss: 'shop-service:admin', aud: 'shop-admin', typ: 'admin+jwt' };

let app: TestApp;
let customerToken: string;
let adminToken: string;
let claims: JWTPayload;

beforeAll(async () => {
  app = await startTestApp({ LOGIN_IP_PER_MINUTE: '1000' });
  const customer = await makeCustomer(app);
  customerToken = await loginAsCustomer(app, customer.username!);
  adminToken = await loginAsAdmin(app);
  claims = decodeJwt(customerToken);
});
afterAll(() => app.close());

const key = (secret: string) => new TextEncoder().encode(secret);

/** Signs `payload` (default: the real customer token's claims) with the given header and secret. */
function sign(
  opts: { payload?: JWTPayload; header?: Record<string, unknown>; secret?: string | CryptoKey; alg?: string } = {},
) {
  const alg = opts.alg ?? 'HS256';
  const secret = opts.secret ?? CUSTOMER_SECRET;
  return new SignJWT({ ...(opts.payload ?? claims) })
    .setProtectedHeader({ alg, typ: CUSTOMER.typ, ...opts.header })
    .sign(typeof secret === 'string' ? key(secret) : secret);
}

const b64 = (o: object) => base64url.encode(JSON.stringify(o));

/** Asserts that `token` is refused as TOKEN_INVALID by refresh (REST) and by `me` (GraphQL). */
async function expectRefusedAsCustomerToken(token: string) {
  const res = await refresh(app, token);
  expectProblem(res, 401, 'TOKEN_INVALID');
  expect(res.headers.get('www-authenticate')).toBe('Bearer realm="customer", error="invalid_token"');
  const me = await app.graphql('{ me { id } }', {}, { token });
  expect(gqlCode(me)).toBe('TOKEN_INVALID');
  expect(me.body.data.me).toBeNull();
}

describe('forged customer tokens', () => {
  it('when the real token is used, then it works (the baseline every forgery departs from)', async () => {
    const me = await app.graphql('{ me { id } }', {}, { token: customerToken });
    expect(me.body.data.me.id).toBe(Number(claims.sub));
    // A token re-signed from the same claims with the right key is, byte for byte, the real one.
    expect(await sign()).toBe(customerToken);
  });

  it('when the header says alg "none" and the signature is empty, then 401 TOKEN_INVALID', async () => {
    const [, payload] = customerToken.split('.');
    await expectRefusedAsCustomerToken(`${b64({ alg: 'none', typ: CUSTOMER.typ })}.${payload}.`);
    await expectRefusedAsCustomerToken(`${b64({ alg: 'none', typ: CUSTOMER.typ })}.${payload}`);
  });

  it('when it is signed with an unknown secret, then 401 TOKEN_INVALID', async () => {
    await expectRefusedAsCustomerToken(await sign({ secret: 'an-attackers-secret-of-sufficient-length-1234' }));
  });

  it("when it is signed with the admin system's secret, then 401 TOKEN_INVALID", async () => {
    await expectRefusedAsCustomerToken(await sign({ secret: ADMIN_SECRET }));
  });

  it("when iss or aud are the admin system's or swapped, then 401 TOKEN_INVALID even with the right secret", async () => {
    await expectRefusedAsCustomerToken(await sign({ payload: { ...claims, iss: ADMIN.iss, aud: ADMIN.aud } }));
    await expectRefusedAsCustomerToken(await sign({ payload: { ...claims, iss: CUSTOMER.aud, aud: CUSTOMER.iss } }));
    await expectRefusedAsCustomerToken(await sign({ payload: { ...claims, aud: 'someone-else' } }));
    await expectRefusedAsCustomerToken(await sign({ payload: { ...claims, iss: 'https://evil.example' } }));
  });

  it("when typ is missing or another system's, then 401 TOKEN_INVALID", async () => {
    await expectRefusedAsCustomerToken(await sign({ header: { typ: ADMIN.typ } }));
    await expectRefusedAsCustomerToken(await sign({ header: { typ: 'JWT' } }));
  });

  it('when the payload is tampered with after signing, then 401 TOKEN_INVALID', async () => {
    const [header, , signature] = customerToken.split('.');
    const other = await makeCustomer(app);
    await expectRefusedAsCustomerToken(`${header}.${b64({ ...claims, sub: String(other.id) })}.${signature}`);
    await expectRefusedAsCustomerToken(`${header}.${b64({ ...claims, exp: Number(claims.exp) + 86400 })}.${signature}`);
  });

  it('when another algorithm is used with the right secret (HS512, HS384), then 401 TOKEN_INVALID', async () => {
    await expectRefusedAsCustomerToken(await sign({ alg: 'HS512' }));
    await expectRefusedAsCustomerToken(await sign({ alg: 'HS384' }));
  });

  it('when a required claim is missing or malformed, then 401 TOKEN_INVALID', async () => {
    for (const drop of ['sid', 'jti', 'sub', 'exp', 'iat']) {
      const payload = { ...claims };
      delete payload[drop];
      await expectRefusedAsCustomerToken(await sign({ payload }));
    }
    await expectRefusedAsCustomerToken(await sign({ payload: { ...claims, sid: 'not-a-uuid' } }));
    await expectRefusedAsCustomerToken(await sign({ payload: { ...claims, sub: 'alice' } }));
    await expectRefusedAsCustomerToken(await sign({ payload: { ...claims, sub: '99999999999' } }));
  });

  it('when the token is not a JWT at all, then 401 TOKEN_INVALID', async () => {
    for (const junk of [
      'abc',
      'a.b.c',
      `${customerToken}x`,
      'e30.e30.',
      customerToken.split('.').slice(0, 2).join('.'),
    ]) {
      await expectRefusedAsCustomerToken(junk);
    }
  });

  it('when a header embeds its own key (jwk) or points at one (jku, x5u, kid), then no key is taken from it and nothing is fetched', async () => {
    let fetched = 0;
    const keyServer = createServer((_req, res) => {
      fetched++;
      res.end('{}');
    });
    keyServer.listen(0, '127.0.0.1');
    await once(keyServer, 'listening');
    const keyUrl = `http://127.0.0.1:${(keyServer.address() as AddressInfo).port}/jwks.json`;
    try {
      const attackerKey = await generateSecret('HS256', { extractable: true });
      const jwk = await exportJWK(attackerKey);
      await expectRefusedAsCustomerToken(await sign({ secret: attackerKey, header: { jwk } }));
      await expectRefusedAsCustomerToken(await sign({ secret: attackerKey, header: { jku: keyUrl, kid: 'attacker' } }));
      await expectRefusedAsCustomerToken(await sign({ secret: attackerKey, header: { x5u: keyUrl } }));
      // Signed with the configured key, the same headers change nothing: the key never comes from the token.
      const withHeaders = await sign({ header: { kid: 'whatever', jku: keyUrl } });
      expect((await app.graphql('{ me { id } }', {}, { token: withHeaders })).body.data.me.id).toBe(Number(claims.sub));
      expect(fetched).toBe(0);
    } finally {
      keyServer.close();
    }
  });

  it('when the session id is unknown or belongs to another customer, then 401 TOKEN_INVALID', async () => {
    await expectRefusedAsCustomerToken(await sign({ payload: { ...claims, sid: crypto.randomUUID() } }));
    const other = await makeCustomer(app);
    await expectRefusedAsCustomerToken(await sign({ payload: { ...claims, sub: String(other.id) } }));
  });
});

describe('tokens of the other system', () => {
  it('when an admin token is presented to refresh or `me`, then 401 TOKEN_INVALID', async () => {
    await expectRefusedAsCustomerToken(adminToken);
  });

  it('when a customer token is presented to admin fields, then 401 TOKEN_INVALID with realm="admin" and nothing happens', async () => {
    const adminMe = await app.graphql('{ adminMe { id } }', {}, { token: customerToken });
    expect(gqlCode(adminMe)).toBe('TOKEN_INVALID');
    expect(adminMe.body.data.adminMe).toBeNull();
    const before = await app.db.prisma.customer.count();
    const create = await app.graphql(
      'mutation { createCustomer(input: { username: "sneaky@example.com", password: "password-123" }) { id } }',
      {},
      { token: customerToken },
    );
    expect(gqlCode(create)).toBe('TOKEN_INVALID');
    expect(await app.db.prisma.customer.count()).toBe(before);
  });

  it("when both systems are configured with the same secret, then each still refuses the other's tokens (iss/aud/typ)", async () => {
    const shared = await startTestApp({
      CUSTOMER_JWT_SECRET: CUSTOMER_SECRET,
      ADMIN_JWT_SECRET: CUSTOMER_SECRET,
      LOGIN_IP_PER_MINUTE: '1000',
    });
    try {
      const customer = await makeCustomer(shared);
      const cToken = await loginAsCustomer(shared, customer.username!);
      const aToken = await loginAsAdmin(shared);
      expect(gqlCode(await shared.graphql('{ adminMe { id } }', {}, { token: cToken }))).toBe('TOKEN_INVALID');
      expect(gqlCode(await shared.graphql('{ me { id } }', {}, { token: aToken }))).toBe('TOKEN_INVALID');
      expectProblem(await refresh(shared, aToken), 401, 'TOKEN_INVALID');
      // A token that claims the admin issuer/audience but keeps the customer typ is refused too.
      const mixed = await new SignJWT({ sid: decodeJwt(aToken).sid })
        .setProtectedHeader({ alg: 'HS256', typ: CUSTOMER.typ })
        .setIssuer(ADMIN.iss)
        .setAudience(ADMIN.aud)
        .setSubject(decodeJwt(aToken).sub!)
        .setJti(crypto.randomUUID())
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(key(CUSTOMER_SECRET));
      expect(gqlCode(await shared.graphql('{ adminMe { id } }', {}, { token: mixed }))).toBe('TOKEN_INVALID');
    } finally {
      await shared.close();
    }
  });
});

describe('the Authorization header', () => {
  it('when it is missing, not Bearer, or empty, then 401 UNAUTHENTICATED with a realm and no error attribute', async () => {
    for (const authorization of [undefined, `Basic ${btoa('root:root-password-for-tests')}`, 'Bearer', 'Bearer   ']) {
      const res = await app.request('/api/v1/auth/refresh', {
        method: 'POST',
        headers: authorization ? { authorization } : {},
      });
      expectProblem(res, 401, 'UNAUTHENTICATED');
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="customer"');
    }
    const gql = await app.graphql('{ adminMe { id } }');
    expect(gqlCode(gql)).toBe('UNAUTHENTICATED');
  });

  it('when the scheme is written in another case, then the token is still read', async () => {
    const res = await app.graphql('{ me { id } }', {}, { headers: { authorization: `bearer ${customerToken}` } });
    expect(res.body.data.me.id).toBe(Number(claims.sub));
  });
});

describe('secret rotation', () => {
  it('when the service runs with a comma-separated secret list, then it signs with the first and accepts tokens of each', async () => {
    const newSecret = 'the-next-customer-secret-0123456789abcdef';
    const rotatedApp = await startTestApp({
      CUSTOMER_JWT_SECRET: `${newSecret},${CUSTOMER_SECRET}`,
      LOGIN_IP_PER_MINUTE: '1000',
    });
    try {
      const customer = await makeCustomer(rotatedApp);
      const fresh = await loginAsCustomer(rotatedApp, customer.username!);
      await expect(jwtVerify(fresh, key(newSecret))).resolves.toBeTruthy();
      // A token of the same session signed with the older secret (issued before the rotation).
      const c = decodeJwt(fresh);
      const old = await new SignJWT({ sid: c.sid })
        .setProtectedHeader({ alg: 'HS256', typ: CUSTOMER.typ })
        .setIssuer(CUSTOMER.iss)
        .setAudience(CUSTOMER.aud)
        .setSubject(c.sub!)
        .setJti(c.jti!)
        .setIssuedAt(c.iat!)
        .setExpirationTime(c.exp!)
        .sign(key(CUSTOMER_SECRET));
      expect(old).not.toBe(fresh);
      expect((await rotatedApp.graphql('{ me { id } }', {}, { token: old })).body.data.me.id).toBe(customer.id);
    } finally {
      await rotatedApp.close();
    }
  });
});
