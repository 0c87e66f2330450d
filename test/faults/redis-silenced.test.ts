/**
 * Contract §7.3 for Redis: when Redis stops answering (connections open, no bytes back — a TCP proxy
 * that stops forwarding), logins keep answering within 2 s, counted in this process's memory; once
 * Redis answers again the counters are shared through it again, without a restart. Uses
 * REDIS_TEST_URL, else the local default; skipped only when no URL was given and nothing answers.
 */
import { randomInt } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CUSTOMER_PASSWORD, customerLogin, expectProblem, makeCustomer, uniqueEmail } from '../helpers/accounts.ts';
import { REDIS_URL, redisAvailable } from '../helpers/redis.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';
import { type ApiResponse, startTestApp, type TestApp } from '../helpers/test-app.ts';

const LOGIN_BOUND_MS = 2000;

describe.skipIf(!redisAvailable)('login limits when Redis stops answering', () => {
  let proxy: TcpProxy;
  let viaProxy: TestApp;
  let direct: TestApp;
  // One failure locks a username (per IP), so one request shows whether a counter is shared.
  const env = { TRUST_PROXY: 'loopback', LOGIN_IP_PER_MINUTE: '1000', LOGIN_MAX_FAILURES: '1' };
  const from = () => ({ 'x-forwarded-for': `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}` });

  /** A login on `app`, with how long it took. */
  async function timedLogin(app: TestApp, username: string, password: string, headers: Record<string, string>) {
    const started = performance.now();
    const res: ApiResponse = await customerLogin(app, username, password, headers);
    return { res, ms: performance.now() - started };
  }

  beforeAll(async () => {
    const target = new URL(REDIS_URL);
    proxy = await startTcpProxy(target.hostname, Number(target.port || 6379));
    const proxied = new URL(REDIS_URL);
    proxied.port = String(proxy.port);
    [viaProxy, direct] = await Promise.all([
      startTestApp({ ...env, REDIS_URL: proxied.toString() }),
      startTestApp({ ...env, REDIS_URL }),
    ]);
  });
  afterEach(() => proxy.restore());
  afterAll(async () => {
    await Promise.all([viaProxy?.close(), direct?.close()]);
    await proxy?.close();
  });

  it('when Redis is silenced, then every login answers within 2 s and failures are still counted in memory', async () => {
    const customer = await makeCustomer(viaProxy);
    const stranger = uniqueEmail('silenced');
    const ip = from();
    // A service that has served logins already: the bound below is about Redis, not a cold start.
    await customerLogin(viaProxy, uniqueEmail('warm-up'), 'wrong-password', from());
    proxy.silence();
    const wrong = await timedLogin(viaProxy, uniqueEmail('first'), 'wrong-password', from());
    expectProblem(wrong.res, 401, 'INVALID_CREDENTIALS');
    const right = await timedLogin(viaProxy, customer.username!, CUSTOMER_PASSWORD, from());
    expect(right.res.status, right.res.text).toBe(200);
    const failed = await timedLogin(viaProxy, stranger, 'wrong-password', ip);
    expectProblem(failed.res, 401, 'INVALID_CREDENTIALS');
    const refused = await timedLogin(viaProxy, stranger, 'wrong-password', ip);
    expectProblem(refused.res, 429, 'RATE_LIMITED');
    const concurrent = await Promise.all(
      Array.from({ length: 4 }, () => timedLogin(viaProxy, customer.username!, CUSTOMER_PASSWORD, from())),
    );
    for (const { res } of concurrent) expect(res.status, res.text).toBe(200);
    const all = [wrong, right, failed, refused, ...concurrent];
    for (const { ms } of all) expect(ms).toBeLessThan(LOGIN_BOUND_MS);
    console.info(`logins while Redis is silenced: ${all.map((a) => Math.round(a.ms)).join(', ')} ms`);
  });

  it('when Redis answers again, then counters are shared through it again within seconds', async () => {
    proxy.silence();
    // A login while silenced, so the client has noticed the outage before Redis is back.
    expectProblem(await customerLogin(viaProxy, uniqueEmail('before'), 'wrong', from()), 401, 'INVALID_CREDENTIALS');
    proxy.restore();
    const restored = performance.now();
    // Shared again when a failure through the proxied instance locks the username on the other one.
    let sharedAfterMs = -1;
    while (performance.now() - restored < 10_000) {
      const username = uniqueEmail('shared');
      const ip = from();
      expectProblem(await customerLogin(viaProxy, username, 'wrong', ip), 401, 'INVALID_CREDENTIALS');
      if ((await customerLogin(direct, username, 'wrong', ip)).status === 429) {
        sharedAfterMs = performance.now() - restored;
        break;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(sharedAfterMs).toBeGreaterThanOrEqual(0);
    // And the other way round.
    const username = uniqueEmail('back');
    const ip = from();
    expectProblem(await customerLogin(direct, username, 'wrong', ip), 401, 'INVALID_CREDENTIALS');
    expectProblem(await customerLogin(viaProxy, username, 'wrong', ip), 429, 'RATE_LIMITED');
    console.info(`Redis counters shared again ${Math.round(sharedAfterMs)} ms after restore`);
  });
});
