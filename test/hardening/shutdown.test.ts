/**
 * Contract §7.4: SIGTERM under load. 64 keep-alive connections keep reading the list while the real
 * service (the `npm start` bundle) is told to stop: `/readyz` turns 503 at once, every later answer
 * says `Connection: close`, no request that was sent on an open connection is reset or fails, and
 * the process exits 0.
 */

import { mkdtempSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService } from '../helpers/service-process.ts';
import { startTestApp } from '../helpers/test-app.ts';
import { createTestDatabase, TEST_DB, type TestDatabase } from '../helpers/test-database.ts';

let database: TestDatabase | undefined;
let env: Record<string, string>;
beforeAll(async () => {
  env = { DATA_DIR: mkdtempSync(join(tmpdir(), 'shop-shutdown-')), LOG_LEVEL: 'info' };
  if (TEST_DB === 'postgres') {
    database = await createTestDatabase();
    env.DATABASE_URL = database.url!;
  }
});
afterAll(async () => {
  await database?.drop();
});

interface Outcome {
  status?: number;
  connectionClose?: boolean;
  error?: string;
  afterStop: boolean;
}

/** One GET on `agent`; resolves with what came back, or the error code of a failed request. */
function get(agent: http.Agent, url: string, afterStop: () => boolean): Promise<Outcome> {
  const sentAfterStop = afterStop();
  return new Promise((resolve) => {
    const req = http.get(url, { agent }, (res) => {
      res.resume();
      res.on('end', () =>
        resolve({
          status: res.statusCode,
          connectionClose: res.headers.connection === 'close',
          afterStop: sentAfterStop,
        }),
      );
    });
    req.on('error', (err: NodeJS.ErrnoException) =>
      resolve({ error: `${err.code ?? err.message} at ${new Date().toISOString()}`, afterStop: sentAfterStop }),
    );
  });
}

describe('SIGTERM under load', () => {
  it('when 64 keep-alive connections load the list, then they drain without a reset and the process exits 0', {
    timeout: 90_000,
  }, async () => {
    const service = await startService(env);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
    let stopped = false;
    const outcomes: Outcome[] = [];

    // Each client reads pages until the server says `Connection: close` after the stop; it then
    // leaves rather than open a new connection (which a stopped server rightly refuses).
    const served = new Array<number>(64).fill(0);
    const client = async (n: number): Promise<Outcome> => {
      for (let i = 0; ; i++) {
        const outcome = await get(
          agent,
          `${service.url}/api/v1/items?page=${((n + i) % 3) + 1}&limit=10`,
          () => stopped,
        );
        outcomes.push(outcome);
        served[n] = (served[n] ?? 0) + 1;
        if (outcome.error || (stopped && outcome.connectionClose)) return outcome;
      }
    };
    const readiness: Outcome[] = [];
    const probeAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const probe = async () => {
      for (;;) {
        const outcome = await get(probeAgent, `${service.url}/readyz`, () => stopped);
        readiness.push(outcome);
        if (outcome.error || (stopped && outcome.connectionClose)) return;
        await sleep(50);
      }
    };

    const clients = Array.from({ length: 64 }, (_, n) => client(n));
    const probing = probe();
    // Every connection accepted and served at least twice before the stop. (A connection still in
    // the kernel's accept queue when the listener closes is reset by the kernel: it was never accepted.)
    while (served.some((n) => n < 2)) await sleep(50);
    const before = outcomes.length;
    stopped = true;
    const exit = service.stop();
    const started = Date.now();
    const [lasts] = await Promise.all([Promise.all(clients), probing]);
    const code = await exit;
    agent.destroy();
    probeAgent.destroy();

    expect(before, 'the load ran before the stop').toBeGreaterThan(64);
    const failures = outcomes.filter((o) => o.error || o.status !== 200);
    expect(failures, JSON.stringify(failures.slice(0, 5))).toEqual([]);
    // Every connection ended the way a keep-alive client is told to leave: a 200 saying `Connection: close`.
    expect(lasts.every((o) => o.status === 200 && o.connectionClose && o.afterStop)).toBe(true);
    // The probe's connection was told to close: by a 503 once the worker's drain had begun, or on the 200
    // answering a probe that reached it just before (the test's flag is set before SIGTERM arrives).
    expect(readiness.at(-1)).toMatchObject({ connectionClose: true });
    expect([200, 503]).toContain(readiness.at(-1)?.status);
    expect(readiness.filter((o) => !o.afterStop).every((o) => o.status === 200 || o.connectionClose)).toBe(true);
    expect(readiness.filter((o) => o.error)).toEqual([]);
    expect(code).toBe(0);
    expect(Date.now() - started).toBeLessThan(15_000);
    // Nothing went wrong inside (the probe's own 503s are its answer, not a failure).
    const errors = service
      .output()
      .split('\n')
      .filter((l) => /"level":(50|60)/.test(l) && !l.includes('"path":"/readyz"'));
    expect(errors).toEqual([]);
  });
});

/**
 * Clients that, told `Connection: close`, simply connect again — as keep-alive pools and load
 * balancers do. Their reconnection must meet a socket that no longer listens (ECONNREFUSED: it never
 * reached the service, and goes elsewhere), never one still queued in a listening socket that the
 * kernel resets when the last copy of it closes (contract §7.4, §11: with workers too).
 */
const topologies = TEST_DB === 'postgres' ? ['1', '2'] : [undefined];
describe.each(topologies)('SIGTERM under reconnecting keep-alive clients (WORKERS=%s)', (workers) => {
  it('when 64 keep-alive loops reconnect after each `Connection: close`, then no request that reached the service is reset', {
    timeout: 90_000,
  }, async () => {
    const service = await startService({ ...env, ...(workers ? { WORKERS: workers } : {}) });
    if (workers === '2') {
      await expect.poll(() => service.output().match(/shop service listening/g)?.length, { timeout: 20_000 }).toBe(2);
    }
    const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
    let stopped = false;
    const outcomes: Outcome[] = [];
    const served = new Array<number>(64).fill(0);
    const client = async (n: number): Promise<void> => {
      for (let i = 0; ; i++) {
        const outcome = await get(
          agent,
          `${service.url}/api/v1/items?page=${((n + i) % 3) + 1}&limit=10`,
          () => stopped,
        );
        outcomes.push(outcome);
        served[n] = (served[n] ?? 0) + 1;
        // Refused: nothing listens any more, the client is done. Anything else: go on (a closed
        // keep-alive connection makes the agent open a new one).
        if (outcome.error) return;
      }
    };
    const clients = Array.from({ length: 64 }, (_, n) => client(n));
    while (served.some((n) => n < 2)) await sleep(50);
    stopped = true;
    const code = await service.stop();
    await Promise.all(clients);
    agent.destroy();

    const refused = outcomes.filter((o) => o.error?.startsWith('ECONNREFUSED'));
    const failed = outcomes.filter((o) => !o.error?.startsWith('ECONNREFUSED') && (o.error || o.status !== 200));
    expect(failed, JSON.stringify(failed.slice(0, 5))).toEqual([]);
    expect(refused, 'every client ended by finding the socket closed').toHaveLength(64);
    expect(outcomes.filter((o) => o.afterStop && o.connectionClose).length).toBeGreaterThanOrEqual(64);
    expect(code).toBe(0);
  });
});

describe('readiness during a stop', () => {
  it('when a stop has begun, then /readyz answers 503 SERVICE_UNAVAILABLE (balancers drain) while /healthz stays 200', async () => {
    let stopping = false;
    const app = await startTestApp({}, { isShuttingDown: () => stopping });
    try {
      expect((await app.request('/readyz')).status).toBe(200);
      stopping = true;
      const ready = await app.request('/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503 });
      expect((await app.request('/healthz')).status).toBe(200);
    } finally {
      await app.close();
    }
  });
});
