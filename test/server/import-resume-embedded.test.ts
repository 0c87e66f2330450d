/**
 * Contract §13.2 "durable and single" on the embedded database: "the same guarantees hold for the
 * single process". `npm start` on a DATA_DIR runs an import and is killed (SIGKILL) once some batches
 * have committed; started again on the same data, it resumes the import from its last committed batch
 * by itself, at once (not when the killed process's lease ends), and the import ends with every item,
 * SKU and audit entry exactly once.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.ts';
import { freshRequest } from '../helpers/fresh-connection.ts';
import { type ServiceProcess, startService } from '../helpers/service-process.ts';
import { migratedDataDir, TEST_DB } from '../helpers/test-database.ts';
import { twoSkuItemsFile } from '../transfer/import-helpers.ts';

const ADMIN = { username: 'embedded-root', password: 'embedded-root-password' };
const ITEMS = 250;

describe.skipIf(TEST_DB !== 'pglite')('an import on the embedded database, its process killed', () => {
  it('when the process is killed mid-import and started again, then the import resumes by itself and ends with every item exactly once', {
    timeout: 240_000,
  }, async () => {
    const dataDir = await migratedDataDir('shop-import-resume-');
    const env = {
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      SEED_DEMO: 'false',
      // Longer than the test may take: the killed process's slice must be taken up as the service
      // starts again (the data directory is its alone), not when its lease ends.
      JOB_LEASE_SECONDS: '600',
      JOB_MAINTENANCE_SECONDS: '1',
      ADMIN_USERNAME: ADMIN.username,
      ADMIN_PASSWORD: ADMIN.password,
    };
    const login = async (service: ServiceProcess) =>
      (await freshRequest(`${service.url}/admin/api/auth/login`, 'POST', ADMIN)).body.access_token as string;
    const status = async (service: ServiceProcess, token: string, id: number) =>
      (
        await freshRequest(`${service.url}/admin/api/imports/${id}`, 'GET', undefined, {
          authorization: `Bearer ${token}`,
        })
      ).body as { status: string; rows_done: number; items: Record<string, number> };

    const first = await startService(env);
    let id: number;
    let committed: number;
    try {
      const token = await login(first);
      const file = twoSkuItemsFile(ITEMS, {
        handle: 'embed',
        name: 'Embedded',
        category: 'Outdoor > Embedded',
        sku: 'E',
      });
      const res = await fetch(`${first.url}/admin/api/imports`, {
        method: 'POST',
        body: file,
        headers: { 'content-type': 'text/csv', authorization: `Bearer ${token}`, connection: 'close' },
      });
      expect(res.status).toBe(202);
      id = ((await res.json()) as { id: number }).id;
      // Killed once some batches have committed, and before the last.
      for (;;) {
        const now = await status(first, token, id);
        expect(now.status, 'the import ended before the kill: make the file longer').not.toBe('succeeded');
        if (now.rows_done > 0) {
          committed = now.rows_done;
          break;
        }
        await sleep(20);
      }
      first.child.kill('SIGKILL');
      expect(await first.stop()).toBe(null);
    } finally {
      await first.stop();
    }

    const second = await startService(env);
    try {
      const token = await login(second);
      let done: Awaited<ReturnType<typeof status>> | undefined;
      for (const until = Date.now() + 180_000; Date.now() < until; await sleep(250)) {
        done = await status(second, token, id);
        // What committed before the kill stayed committed.
        expect(done.rows_done).toBeGreaterThanOrEqual(committed);
        if (!['queued', 'running'].includes(done.status)) break;
      }
      expect(done).toMatchObject({
        status: 'succeeded',
        rows_done: ITEMS * 2,
        items: { created: ITEMS, updated: 0, unchanged: 0, failed: 0 },
      });
    } finally {
      expect(await second.stop()).toBe(0);
    }

    // The data as the next start finds it: every item, SKU and audit entry once.
    const db = await openDatabase({ kind: 'pglite', dataDir, role: 'test' });
    try {
      const count = async (sql: string) => Number((await db.sql.query<{ n: number }>(sql))[0]!.n);
      expect(await count(`SELECT count(*)::int AS n FROM items WHERE handle LIKE 'embed-%'`)).toBe(ITEMS);
      expect(await count(`SELECT count(DISTINCT sku_code)::int AS n FROM skus WHERE sku_code LIKE 'E-%'`)).toBe(
        ITEMS * 2,
      );
      expect(await count(`SELECT count(*)::int AS n FROM skus WHERE sku_code LIKE 'E-%'`)).toBe(ITEMS * 2);
      expect(
        await count(`SELECT count(*)::int AS n FROM audit_log WHERE request_id = '${id}' AND action = 'item.create'`),
      ).toBe(ITEMS);
      expect(
        await count(
          `SELECT count(*)::int AS n FROM events WHERE type = 'item.created' AND data::text LIKE '%"embed-%'`,
        ),
      ).toBe(ITEMS);
    } finally {
      await db.close();
    }
  });
});
