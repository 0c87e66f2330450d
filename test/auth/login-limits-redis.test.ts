/**
 * REDIS_URL mode: two app instances (each with its own database, as two processes would have their
 * own connections) share the login counters through Redis. Uses REDIS_TEST_URL, else the local
 * default; skipped only when no URL was given and nothing answers there.
 */
import { randomInt } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CUSTOMER_PASSWORD, customerLogin, expectProblem, makeCustomer, uniqueEmail } from '../helpers/accounts.ts';
import { closedPortUrl } from '../helpers/fake-wechat.ts';
import { REDIS_URL, redisAvailable } from '../helpers/redis.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

describe.skipIf(!redisAvailable)('login limits shared through Redis', () => {
  let one: TestApp;
  let two: TestApp;
  let redis: Redis;
  const env = { REDIS_URL, TRUST_PROXY: 'loopback', LOGIN_IP_PER_MINUTE: '1000' };

  beforeAll(async () => {
    [one, two] = await Promise.all([startTestApp(env), startTestApp(env)]);
    redis = new Redis(REDIS_URL);
  });
  afterAll(async () => {
    await Promise.all([one?.close(), two?.close()]);
    redis?.disconnect();
  });

  const ip = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

  it('when failures are spread over two instances, then the sixth attempt is refused by either', async () => {
    const username = uniqueEmail('shared');
    const from = { 'x-forwarded-for': ip() };
    for (const app of [one, two, one, two, one]) {
      expectProblem(await customerLogin(app, username, 'wrong', from), 401, 'INVALID_CREDENTIALS');
    }
    for (const app of [one, two]) {
      const res = await customerLogin(app, username, 'wrong', from);
      expectProblem(res, 429, 'RATE_LIMITED');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    }
  });

  it('when a customer is locked out through one instance, then the right password is refused by the other too', async () => {
    const customer = await makeCustomer(two, { username: uniqueEmail('locked') });
    const from = { 'x-forwarded-for': ip() };
    for (let i = 0; i < 5; i++)
      expectProblem(await customerLogin(one, customer.username, 'wrong', from), 401, 'INVALID_CREDENTIALS');
    expectProblem(await customerLogin(two, customer.username, CUSTOMER_PASSWORD, from), 429, 'RATE_LIMITED');
  });

  it('when counters are stored, then Redis holds them under hashed keys, never the username in clear', async () => {
    const username = uniqueEmail('privacy');
    await customerLogin(one, username, 'wrong', { 'x-forwarded-for': ip() });
    const keys = await redis.keys('shop:login:*');
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.some((k) => k.includes(username) || k.includes(username.split('@')[0]!))).toBe(false);
    // Every counter expires (-1 would be a key without a TTL). The Redis is shared with the other
    // project's run of this file: a key listed may expire before it is asked about (-2, gone).
    for (const k of keys) expect(await redis.pttl(k)).not.toBe(-1);
  });
});

describe('login limits when Redis is down', () => {
  it('when REDIS_URL points at nothing, then the service still starts and counts failures in memory', async () => {
    const port = new URL(await closedPortUrl()).port;
    const app = await startTestApp({ REDIS_URL: `redis://127.0.0.1:${port}`, LOGIN_IP_PER_MINUTE: '1000' });
    try {
      const customer = await makeCustomer(app);
      expect((await customerLogin(app, customer.username, CUSTOMER_PASSWORD)).status).toBe(200);
      for (let i = 0; i < 5; i++)
        expectProblem(await customerLogin(app, customer.username, 'wrong'), 401, 'INVALID_CREDENTIALS');
      expectProblem(await customerLogin(app, customer.username, CUSTOMER_PASSWORD), 429, 'RATE_LIMITED');
    } finally {
      await app.close();
    }
  });
});
