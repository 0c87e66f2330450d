/**
 * Contract §12 with WORKERS=2 on PostgreSQL, through what `npm start` runs: a version expected by two
 * writes is won by one, parallel stock adjustments never lose one, and a scheduled publish is seen
 * by every worker within 1 s of its time. Each request comes on a fresh connection, so the kernel
 * spreads them over both workers as it would a real client's.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshRequest, workersListening } from '../helpers/fresh-connection.ts';
import { type ServiceProcess, startService } from '../helpers/service-process.ts';
import { createTestDatabase, TEST_DB, type TestDatabase } from '../helpers/test-database.ts';

const ADMIN = { username: 'lifecycle-root', password: 'lifecycle-root-password' };

const call = freshRequest;

describe.skipIf(TEST_DB !== 'postgres')('the catalogue lifecycle with WORKERS=2', () => {
  let database: TestDatabase;
  let service: ServiceProcess;
  let auth: Record<string, string>;
  let categoryId: number;

  beforeAll(async () => {
    database = await createTestDatabase();
    service = await startService({
      DATABASE_URL: database.url!,
      WORKERS: '2',
      LOG_LEVEL: 'info',
      ADMIN_USERNAME: ADMIN.username,
      ADMIN_PASSWORD: ADMIN.password,
    });
    await workersListening(service, 2);
    const login = await call(`${service.url}/admin/api/auth/login`, 'POST', ADMIN);
    auth = { authorization: `Bearer ${login.body.access_token}` };
    const category = await call(
      `${service.url}/graphql`,
      'POST',
      { query: 'mutation { createCategory(input: { name: "Lifecycle" }) { id } }' },
      auth,
    );
    categoryId = category.body.data.createCategory.id;
  }, 90_000);
  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  const createItem = async (extra: Record<string, unknown> = {}) => {
    const res = await call(
      `${service.url}/admin/api/items`,
      'POST',
      {
        name: 'Lifecycle boot',
        category_id: categoryId,
        price: 10,
        stock: 50,
        skus: [{ sku_code: `LC-${Date.now()}`, stock: 50 }],
        images: [],
        ...extra,
      },
      auth,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  };

  it('when two PATCHes expect the same version, then exactly one succeeds and the other is 409 VERSION_CONFLICT', async () => {
    const item = await createItem();
    const answers = await Promise.all(
      ['First', 'Second'].map((name) =>
        call(`${service.url}/admin/api/items/${item.id}`, 'PATCH', { name }, { ...auth, 'if-match': '"v1"' }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    expect(answers.find((a) => a.status === 409)!.body.code).toBe('VERSION_CONFLICT');
  }, 60_000);

  it('when 80 adjustments of -1 arrive at once on a stock of 50, then exactly 50 succeed and the stock ends at 0', async () => {
    const item = await createItem();
    const skuId = item.skus[0].id;
    const answers = await Promise.all(
      Array.from({ length: 80 }, (_, i) =>
        call(
          `${service.url}/admin/api/stock-adjustments`,
          'POST',
          { adjustments: [{ sku_id: skuId, delta: -1 }] },
          { ...auth, 'idempotency-key': `lifecycle-${i}` },
        ),
      ),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(50);
    expect(statuses.filter((s) => s === 409)).toHaveLength(30);
    const after = await call(`${service.url}/admin/api/items/${item.id}`, 'GET', undefined, auth);
    expect(after.body.skus[0].stock).toBe(0);
  }, 60_000);

  it('when a publish time passes, then both workers show the item within 1 s, without any write', async () => {
    const publishAt = Date.now() + 2_000;
    const item = await createItem({ publish_at: new Date(publishAt).toISOString() });
    const detail = () => call(`${service.url}/api/v1/items/${item.id}`, 'GET');
    expect((await detail()).status).toBe(404);
    while (Date.now() < publishAt + 1_000) await sleep(50);
    // From then on every request, whichever worker takes it, shows the item.
    const later = await Promise.all(Array.from({ length: 12 }, detail));
    expect(later.map((a) => a.status)).toEqual(Array(12).fill(200));
  }, 60_000);
});
