/**
 * Brute-force limits of contract §3.1 / §3.4, in memory (the default). The app trusts the loopback
 * proxy, so each test picks its client IPs with X-Forwarded-For and counts never leak between tests.
 */
import { randomInt } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminLogin,
  CUSTOMER_PASSWORD,
  customerLogin,
  expectProblem,
  gqlCode,
  makeAdmin,
  makeCustomer,
  uniqueEmail,
  withoutRequestId,
} from '../helpers/accounts.ts';
import { expectDocumentedResponse } from '../helpers/openapi.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

const WINDOW = 2; // LOGIN_FAILURE_WINDOW, seconds
const PER_USERNAME = 8; // LOGIN_USERNAME_MAX_FAILURES_PER_HOUR

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({
    TRUST_PROXY: 'loopback',
    LOGIN_FAILURE_WINDOW: String(WINDOW),
    LOGIN_USERNAME_MAX_FAILURES_PER_HOUR: String(PER_USERNAME),
    LOGIN_IP_PER_MINUTE: '1000',
  });
});
afterAll(() => app.close());

const randomIp = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
const from = (ip: string) => ({ 'x-forwarded-for': ip });

async function failTimes(n: number, username: string, ip: string, login = customerLogin) {
  for (let i = 0; i < n; i++)
    expectProblem(await login(app, username, `wrong-${i}`, from(ip)), 401, 'INVALID_CREDENTIALS');
}

describe('failed logins per username and client IP', () => {
  it('when 5 wrong passwords came from one IP, then 429 with Retry-After even for the right password, until the window passes', async () => {
    const customer = await makeCustomer(app);
    const ip = randomIp();
    await failTimes(5, customer.username!, ip);
    const locked = await customerLogin(app, customer.username, CUSTOMER_PASSWORD, from(ip));
    expectProblem(locked, 429, 'RATE_LIMITED');
    const retryAfter = Number(locked.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(WINDOW);
    await expectDocumentedResponse(app, 'POST', '/api/v1/auth/login', locked);

    await sleep(retryAfter * 1000 + 200);
    expect((await customerLogin(app, customer.username, CUSTOMER_PASSWORD, from(ip))).status).toBe(200);
  });

  it('when a username is locked for one IP, then the same username from another IP still logs in', async () => {
    const customer = await makeCustomer(app);
    await failTimes(5, customer.username!, randomIp());
    expect((await customerLogin(app, customer.username, CUSTOMER_PASSWORD, from(randomIp()))).status).toBe(200);
  });

  it('when a login succeeds, then the earlier failures from that IP are forgotten', async () => {
    const customer = await makeCustomer(app);
    const ip = randomIp();
    // 3 + 3 failures: over the per-IP limit of 5 if the success had not cleared them, under the per-username one.
    await failTimes(3, customer.username!, ip);
    expect((await customerLogin(app, customer.username, CUSTOMER_PASSWORD, from(ip))).status).toBe(200);
    await failTimes(3, customer.username!, ip);
    expect((await customerLogin(app, customer.username, CUSTOMER_PASSWORD, from(ip))).status).toBe(200);
  });

  it('when the username does not exist, then the lockout looks exactly the same (no account enumeration)', async () => {
    const customer = await makeCustomer(app);
    const ip = randomIp();
    const ghost = uniqueEmail('ghost');
    await failTimes(5, customer.username!, ip);
    await failTimes(5, ghost, ip);
    const [real, fake] = [
      await customerLogin(app, customer.username, 'x', from(ip)),
      await customerLogin(app, ghost, 'x', from(ip)),
    ];
    expectProblem(real, 429, 'RATE_LIMITED');
    expectProblem(fake, 429, 'RATE_LIMITED');
    const strip = (b: Record<string, unknown>) => ({ ...withoutRequestId(b), detail: undefined });
    expect(strip(real.body)).toEqual(strip(fake.body));
  });

  it('when the username fails too often across many IPs within the hour, then it is locked from every IP', async () => {
    const customer = await makeCustomer(app);
    for (let i = 0; i < PER_USERNAME / 2; i++) await failTimes(2, customer.username!, randomIp());
    const res = await customerLogin(app, customer.username, CUSTOMER_PASSWORD, from(randomIp()));
    expectProblem(res, 429, 'RATE_LIMITED');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(WINDOW);
  });

  it('when GraphQL is used instead of REST, then the same counters apply and extensions carry retryAfter', async () => {
    const customer = await makeCustomer(app);
    const ip = randomIp();
    await failTimes(5, customer.username!, ip);
    const res = await app.graphql(
      'mutation ($u: String!, $p: String!) { login(username: $u, password: $p) { accessToken } }',
      { u: customer.username, p: CUSTOMER_PASSWORD },
      { headers: from(ip) },
    );
    expect(gqlCode(res)).toBe('RATE_LIMITED');
    expect(res.body.errors[0].extensions.retryAfter).toBeGreaterThanOrEqual(1);
  });
});

describe('admin login limits', () => {
  it('when an admin name fails 5 times from one IP, then it is locked, and customer logins from that IP are unaffected', async () => {
    const admin = await makeAdmin(app, { password: 'admin-password-xyz' });
    const ip = randomIp();
    await failTimes(5, admin.username, ip, adminLogin);
    expectProblem(await adminLogin(app, admin.username, 'admin-password-xyz', from(ip)), 429, 'RATE_LIMITED');
    const customer = await makeCustomer(app);
    expect((await customerLogin(app, customer.username, CUSTOMER_PASSWORD, from(ip))).status).toBe(200);
  });
});

describe('attempts per client IP', () => {
  it('when an IP exceeds LOGIN_IP_PER_MINUTE attempts, then 429 whatever the username or password', async () => {
    const limited = await startTestApp({ LOGIN_IP_PER_MINUTE: '3' });
    try {
      const customer = await makeCustomer(limited);
      expect((await customerLogin(limited, customer.username, CUSTOMER_PASSWORD)).status).toBe(200);
      expectProblem(await customerLogin(limited, uniqueEmail(), 'x'), 401, 'INVALID_CREDENTIALS');
      expect((await customerLogin(limited, customer.username, CUSTOMER_PASSWORD)).status).toBe(200);
      const res = await customerLogin(limited, customer.username, CUSTOMER_PASSWORD);
      expectProblem(res, 429, 'RATE_LIMITED');
      expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    } finally {
      await limited.close();
    }
  });
});

describe('password hashing under load', () => {
  it('when many logins arrive at once with a single hashing slot, then every one is served in turn', async () => {
    const oneSlot = await startTestApp({
      LOGIN_MAX_CONCURRENT_HASHES: '1',
      LOGIN_IP_PER_MINUTE: '1000',
      TRUST_PROXY: 'loopback',
    });
    try {
      const customer = await makeCustomer(oneSlot);
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          customerLogin(oneSlot, customer.username, i % 2 ? CUSTOMER_PASSWORD : 'wrong', from(randomIp())),
        ),
      );
      expect(answers.map((r) => r.status)).toEqual([401, 200, 401, 200, 401, 200, 401, 200]);
      expect(oneSlot.services.passwordHashing.running).toBe(0);
    } finally {
      await oneSlot.close();
    }
  });
});
