/**
 * Contract §11: an idle keep-alive connection stays open HTTP_KEEP_ALIVE_TIMEOUT (65 s by default),
 * longer than common load balancers' 60 s idle timeout, so the service never closes a connection a
 * client or proxy is about to reuse. (Node's own default, 5 s, closed it just as a client reused it:
 * an intermittent `fetch failed`, a 502 behind a load balancer.)
 */
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

/** One GET on `agent`: its status and whether it went out on a connection used before. */
function get(agent: http.Agent, url: string): Promise<{ status?: number; reused: boolean }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode, reused: req.reusedSocket }));
    });
    req.on('error', reject);
  });
}

describe('idle keep-alive connections', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close());

  it('when a keep-alive connection has been idle 7 s, then the next request reuses it without error', {
    timeout: 30_000,
  }, async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      expect(await get(agent, `${app.url}/healthz`)).toEqual({ status: 200, reused: false });
      await sleep(7_000);
      expect(await get(agent, `${app.url}/api/v1/categories`)).toEqual({ status: 200, reused: true });
    } finally {
      agent.destroy();
    }
  });

  it('when HTTP_KEEP_ALIVE_TIMEOUT is not set, then it is 65 s; it must be whole milliseconds of at least 1000', () => {
    expect(loadConfig({}).keepAliveTimeoutMs).toBe(65_000);
    expect(loadConfig({ HTTP_KEEP_ALIVE_TIMEOUT: '75000' }).keepAliveTimeoutMs).toBe(75_000);
    expect(() => loadConfig({ HTTP_KEEP_ALIVE_TIMEOUT: '500' })).toThrow(
      /HTTP_KEEP_ALIVE_TIMEOUT: must be at least 1000/,
    );
    expect(() => loadConfig({ HTTP_KEEP_ALIVE_TIMEOUT: '6s' })).toThrow(/HTTP_KEEP_ALIVE_TIMEOUT/);
  });
});
