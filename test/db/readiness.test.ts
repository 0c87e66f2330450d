/**
 * `/readyz` under load: a probe must not queue behind the requests that keep the pool busy (a load
 * balancer would take a busy instance out of rotation). A statement that just succeeded — and none
 * failed since — is evidence enough; only without it does the probe send `SELECT 1`.
 * Needs a pool, so it runs on PostgreSQL only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { TEST_DB } from '../helpers/test-database.ts';

describe.runIf(TEST_DB === 'postgres')('readiness with a busy pool', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({}, { poolSize: 1 });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('when every pooled connection is busy, then /readyz still answers 200 at once from the latest success', async () => {
    expect((await app.request('/api/v1/categories')).status).toBe(200);
    // The pool's one connection is taken for 3 s (longer than the probe's own 2 s limit).
    // A probe queued behind it would give up after 2 s and answer 503.
    const busy = app.db.sql.query('SELECT pg_sleep(3)');
    const ready = await app.request('/readyz');
    await busy;
    expect(ready.status).toBe(200);
  });
});
