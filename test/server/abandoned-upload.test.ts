/**
 * An import whose upload never finished: the file is staged as it arrives, before the import is
 * queued, so a serving process killed mid-upload leaves an import `queued` that no job would ever run.
 * The background work ends it `failed` once its upload has been silent for IMPORT_UPLOAD_ABANDONED_AFTER
 * (src/transfer/abandoned-uploads.ts) — and leaves alone an upload that is slow but alive.
 */
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childrenOf, isBackgroundProcess } from '../helpers/cluster-processes.ts';
import { freshRequest, workersListening } from '../helpers/fresh-connection.ts';
import { type ServiceProcess, startService } from '../helpers/service-process.ts';
import { createTestDatabase, TEST_DB, type TestDatabase } from '../helpers/test-database.ts';

const ADMIN = { username: 'upload-root', password: 'upload-root-password' };
const HEADER = 'handle,name,category,price\n';
const rows = (from: number, count: number, prefix: string) =>
  Array.from({ length: count }, (_, i) => `${prefix}-${from + i},Upload ${from + i},Outdoor,5\n`).join('');

describe.skipIf(TEST_DB !== 'postgres')('uploads that never finish (WORKERS=1)', () => {
  let database: TestDatabase;
  let service: ServiceProcess;
  let db: pg.Client;
  let token: string;

  /** POST /admin/api/imports, chunked; the request, to write to and end (or not). */
  const upload = () => {
    const req = http.request(`${service.url}/admin/api/imports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'text/csv', connection: 'close' },
    });
    const answer = new Promise<{ status: number; body: string } | Error>((resolve) => {
      req.on('response', (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', resolve);
    });
    return { req, answer };
  };
  const importState = async (id: number) =>
    (
      await freshRequest(`${service.url}/admin/api/imports/${id}`, 'GET', undefined, {
        authorization: `Bearer ${token}`,
      })
    ).body as { status: string; errors: Array<{ row: number; message: string }> };
  const newestImport = async () =>
    (await db.query<{ id: number }>('SELECT id FROM imports ORDER BY id DESC LIMIT 1')).rows[0]?.id;
  const stagedRows = async (id: number) =>
    Number((await db.query('SELECT count(*) FROM import_rows WHERE import_id = $1', [id])).rows[0].count);

  beforeAll(async () => {
    database = await createTestDatabase();
    service = await startService({
      DATABASE_URL: database.url!,
      WORKERS: '1',
      ADMIN_USERNAME: ADMIN.username,
      ADMIN_PASSWORD: ADMIN.password,
      IMPORT_UPLOAD_ABANDONED_AFTER: '2',
    });
    await workersListening(service, 1);
    token = (await freshRequest(`${service.url}/admin/api/auth/login`, 'POST', ADMIN)).body.access_token;
    db = new pg.Client({ connectionString: database.url! });
    await db.connect();
  }, 120_000);
  afterAll(async () => {
    await db?.end();
    await service?.stop();
    await database?.drop();
  });

  it('when the serving worker dies mid-upload, then the import ends failed naming the first row that did not arrive, its staged rows gone', async () => {
    const { req, answer } = upload();
    req.write(HEADER + rows(0, 1500, 'cut'));
    let id: number | undefined;
    await expect
      .poll(async () => (id = await newestImport()) !== undefined && (await stagedRows(id)) >= 1000, {
        timeout: 20_000,
      })
      .toBe(true);
    const worker = childrenOf(service.pid).find((pid) => !isBackgroundProcess(pid))!;
    process.kill(worker, 'SIGKILL');
    expect(await answer).toBeInstanceOf(Error);
    await expect.poll(async () => (await importState(id!)).status, { timeout: 20_000 }).toBe('failed');
    const { errors } = await importState(id!);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.row).toBeGreaterThan(1000);
    expect(errors[0]!.message).toMatch(/the upload stopped here/);
    expect(await stagedRows(id!)).toBe(0);
    expect(Number((await db.query("SELECT count(*) FROM items WHERE handle LIKE 'cut-%'")).rows[0].count)).toBe(0);
  }, 60_000);

  it('when an upload is slow but alive for longer than IMPORT_UPLOAD_ABANDONED_AFTER, then it is left to finish and its import succeeds', async () => {
    await workersListening(service, 1);
    const { req, answer } = upload();
    req.write(HEADER);
    // 5 s of a row every 250 ms: longer than the 2 s of silence allowed, never silent that long.
    for (let i = 0; i < 20; i++) {
      req.write(rows(i, 1, 'slow'));
      await sleep(250);
    }
    req.end();
    const done = await answer;
    expect(done).not.toBeInstanceOf(Error);
    const { status, body } = done as { status: number; body: string };
    expect(status, body).toBe(202);
    const id = (JSON.parse(body) as { id: number }).id;
    await expect.poll(async () => (await importState(id)).status, { timeout: 20_000 }).toBe('succeeded');
  }, 60_000);
});
