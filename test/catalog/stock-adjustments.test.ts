/**
 * Stock adjustments for an order system (contract §12.3), REST and GraphQL through the real server:
 * all or nothing, INSUFFICIENT_STOCK naming each short adjustment, a required Idempotency-Key whose
 * retries never count twice (racing ones neither), roles, audit entries, the item's own stock and
 * version, the public reads, and parallel adjustments that never lose one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, gqlCode, loginAsAdmin, makeAdmin } from '../helpers/accounts.ts';
import { errorFields, makeCategory, makeItem } from '../helpers/catalog.ts';
import { documentOf } from '../helpers/openapi.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { TEST_DB } from '../helpers/test-database.ts';
import { auditEntries, createApiKeyAs } from '../helpers/trust.ts';

let app: TestApp;
let owner: string;
let categoryId: number;

beforeAll(async () => {
  app = await startTestApp({
    LOGIN_IP_PER_MINUTE: '1000',
    // The parallel test's writes of one SKU queue behind its row lock; on a busy machine the last ones
    // would wait for a connection longer than the default 5 s and answer 503 (§11: a correct refusal
    // that changes nothing, but not what this file measures).
    DATABASE_STATEMENT_TIMEOUT: '30000',
  });
  owner = await loginAsAdmin(app);
  categoryId = (await makeCategory(app, { name: 'Stocked' })).id;
});
afterAll(() => app?.close());

let keySequence = 0;
/** A key no other test uses. */
const newKey = (label = 'stock') => `${label}-${++keySequence}`;

/** An item with SKUs of the given stocks; the item's own stock is their total unless given. */
async function stockedItem(skuStocks: number[], itemStock?: number) {
  const item = await makeItem(app, {
    categoryId,
    stock: itemStock ?? skuStocks.reduce((a, b) => a + b, 0),
    skus: skuStocks.map((stock, i) => ({ skuCode: `S${i}`, specs: { size: String(40 + i) }, price: '12.50', stock })),
  });
  return { id: item.id, skus: item.skus.map((s) => s.id) };
}

/** An item's stock, version and its SKUs' stocks by id order, as stored. */
async function stored(itemId: number) {
  const item = await app.db.prisma.item.findUniqueOrThrow({
    where: { id: itemId },
    select: { stock: true, version: true, skus: { select: { stock: true }, orderBy: { id: 'asc' } } },
  });
  return { stock: item.stock, version: item.version, skus: item.skus.map((s) => s.stock) };
}

type Adjustment = { sku_id: number; delta: number };

/** POST /admin/api/stock-adjustments (REST names) with `key` as the Idempotency-Key (none: left out). */
const adjustRest = (
  adjustments: unknown,
  key: string | undefined,
  opts: { token?: string; allowNegative?: boolean } = {},
) =>
  app.request('/admin/api/stock-adjustments', {
    token: opts.token ?? owner,
    body: { adjustments, ...(opts.allowNegative !== undefined ? { allow_negative: opts.allowNegative } : {}) },
    headers: key === undefined ? {} : { 'Idempotency-Key': key },
  });

const ADJUST_STOCK = /* GraphQL */ `
  mutation ($adjustments: [StockAdjustmentInput!]!, $key: String!, $allowNegative: Boolean) {
    adjustStock(adjustments: $adjustments, idempotencyKey: $key, allowNegative: $allowNegative) {
      id skuCode specs price stock
    }
  }`;

const adjustGraphql = (
  adjustments: Array<{ skuId: number; delta: number }>,
  key: string,
  opts: { token?: string; allowNegative?: boolean } = {},
) => app.graphql(ADJUST_STOCK, { adjustments, key, allowNegative: opts.allowNegative }, { token: opts.token ?? owner });

const stockAudit = async (itemId: number) => auditEntries(app, owner, { action: 'item.stock', targetId: itemId });

describe('POST /admin/api/stock-adjustments', () => {
  it('when SKUs of two items are adjusted, then 200 with the SKUs in the order asked, each item’s stock moves by its SKUs’ sum and its version by one', async () => {
    const boot = await stockedItem([10, 4]);
    const sock = await stockedItem([7]);
    const before = [await stored(boot.id), await stored(sock.id)];
    const adjustments: Adjustment[] = [
      { sku_id: sock.skus[0]!, delta: -2 },
      { sku_id: boot.skus[1]!, delta: -4 },
      { sku_id: boot.skus[0]!, delta: 5 },
    ];
    const res = await adjustRest(adjustments, newKey());
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toEqual({
      skus: [
        { id: sock.skus[0], sku_code: 'S0', specs: { size: '40' }, price: 12.5, stock: 5 },
        { id: boot.skus[1], sku_code: 'S1', specs: { size: '41' }, price: 12.5, stock: 0 },
        { id: boot.skus[0], sku_code: 'S0', specs: { size: '40' }, price: 12.5, stock: 15 },
      ],
    });
    expect(await stored(boot.id)).toEqual({ stock: 15, version: before[0]!.version + 1, skus: [15, 0] });
    expect(await stored(sock.id)).toEqual({ stock: 5, version: before[1]!.version + 1, skus: [5] });
  });

  it('when an item was read before an adjustment, then the public reads show the new stock at once', async () => {
    const item = await stockedItem([3]);
    const read = async () => (await app.request(`/api/v1/items/${item.id}`)).body;
    expect((await read()).stock).toBe(3);
    expect((await read()).skus[0].stock).toBe(3); // now cached
    const res = await adjustRest([{ sku_id: item.skus[0]!, delta: -3 }], newKey());
    expect(res.status, res.text).toBe(200);
    const after = await read();
    expect([after.stock, after.skus[0].stock]).toEqual([0, 0]);
    // The in-stock filter reads the same stock.
    const list = await app.request(`/api/v1/items?category_id=${categoryId}&in_stock=true&limit=100`);
    expect(list.body.items.map((i: { id: number }) => i.id)).not.toContain(item.id);
  });

  it('when one SKU among good ones would go below 0, then 409 INSUFFICIENT_STOCK naming it with the stock available, and nothing changes', async () => {
    const item = await stockedItem([5, 2, 9]);
    const before = await stored(item.id);
    const entries = (await stockAudit(item.id)).length;
    const res = await adjustRest(
      [
        { sku_id: item.skus[0]!, delta: -5 },
        { sku_id: item.skus[1]!, delta: -3 },
        { sku_id: item.skus[2]!, delta: -10 },
      ],
      newKey(),
    );
    expectProblem(res, 409, 'INSUFFICIENT_STOCK');
    expect(res.body.errors).toEqual([
      { field: 'adjustments[1].delta', message: `would take the stock of SKU ${item.skus[1]} below 0: 2 available` },
      { field: 'adjustments[2].delta', message: `would take the stock of SKU ${item.skus[2]} below 0: 9 available` },
    ]);
    expect(await stored(item.id)).toEqual(before);
    expect(await stockAudit(item.id)).toHaveLength(entries);
  });

  it('when allow_negative is true, then a SKU and its item may go below 0', async () => {
    const item = await stockedItem([1]);
    const res = await adjustRest([{ sku_id: item.skus[0]!, delta: -4 }], newKey(), { allowNegative: true });
    expect(res.status, res.text).toBe(200);
    expect(res.body.skus[0].stock).toBe(-3);
    expect((await stored(item.id)).stock).toBe(-3);
  });

  it('when the item’s own stock is smaller than its SKUs’ total, then it stops at 0 without allow_negative', async () => {
    const item = await stockedItem([6], 2);
    const res = await adjustRest([{ sku_id: item.skus[0]!, delta: -5 }], newKey());
    expect(res.status, res.text).toBe(200);
    expect(await stored(item.id)).toMatchObject({ stock: 0, skus: [1] });
  });

  it('when the Idempotency-Key is missing, then 400 VALIDATION_FAILED on Idempotency-Key, with the body’s problems too', async () => {
    const item = await stockedItem([5]);
    const before = await stored(item.id);
    const missing = await adjustRest([{ sku_id: item.skus[0]!, delta: -1 }], undefined);
    expectProblem(missing, 400, 'VALIDATION_FAILED');
    expect(missing.body.errors).toEqual([{ field: 'Idempotency-Key', message: 'is required' }]);
    const both = await adjustRest([{ sku_id: item.skus[0]!, delta: 0 }], '');
    expectProblem(both, 400, 'VALIDATION_FAILED');
    expect(errorFields(both.body.errors).sort()).toEqual(['Idempotency-Key', 'adjustments[0].delta']);
    expect(await stored(item.id)).toEqual(before);
  });

  it('when the body breaks the rules, then 400 VALIDATION_FAILED naming every problem in REST names', async () => {
    const item = await stockedItem([5, 5]);
    const [a, b] = item.skus as [number, number];
    const cases: Array<[unknown, string[]]> = [
      [[], ['adjustments']],
      [undefined, ['adjustments']],
      ['many', ['adjustments']],
      [[{ sku_id: a, delta: 1.5 }], ['adjustments[0].delta']],
      [Array.from({ length: 101 }, (_, i) => ({ sku_id: i + 1, delta: 1 })), ['adjustments']],
      [
        [
          { sku_id: a, delta: 0 },
          { sku_id: 0, delta: -1 },
          { sku_id: b, delta: 2147483648 },
          { sku_id: a, delta: 1 },
          'x',
        ],
        [
          'adjustments[0].delta',
          'adjustments[1].sku_id',
          'adjustments[2].delta',
          'adjustments[3].sku_id',
          'adjustments[4]',
        ],
      ],
    ];
    for (const [adjustments, fields] of cases) {
      const res = await adjustRest(adjustments, newKey());
      expectProblem(res, 400, 'VALIDATION_FAILED');
      expect(errorFields(res.body.errors).sort(), res.text).toEqual(fields);
    }
    const repeated = await adjustRest(
      [
        { sku_id: a, delta: 1 },
        { sku_id: a, delta: 1 },
      ],
      newKey(),
    );
    expect(repeated.body.errors[0].message).toMatch(/entry 0 has the same one/);
  });

  it('when a SKU does not exist, then 400 VALIDATION_FAILED on its adjustments[i].sku_id and nothing changes', async () => {
    const item = await stockedItem([5]);
    const before = await stored(item.id);
    const res = await adjustRest(
      [
        { sku_id: item.skus[0]!, delta: -1 },
        { sku_id: 2_000_000_000, delta: -1 },
      ],
      newKey(),
    );
    expectProblem(res, 400, 'VALIDATION_FAILED');
    expect(res.body.errors).toEqual([{ field: 'adjustments[1].sku_id', message: 'is not an existing SKU' }]);
    expect(await stored(item.id)).toEqual(before);
  });

  it('when a stock would leave the column’s range, then 400 VALIDATION_FAILED on that delta', async () => {
    const item = await stockedItem([2_000_000_000]);
    const res = await adjustRest([{ sku_id: item.skus[0]!, delta: 200_000_000 }], newKey());
    expectProblem(res, 400, 'VALIDATION_FAILED');
    expect(errorFields(res.body.errors)).toEqual(['adjustments[0].delta']);
  });
});

describe('the documentation', () => {
  it('when the route is documented, then Idempotency-Key is a required header, not a body field, and 409 shows both codes', async () => {
    const op = (await documentOf(app)).paths['/admin/api/stock-adjustments'].post;
    expect(op.parameters).toEqual([
      expect.objectContaining({
        in: 'header',
        name: 'Idempotency-Key',
        required: true,
        example: 'docs-example-stock-1',
      }),
    ]);
    const body = op.requestBody.content['application/json'].schema;
    expect(Object.keys(body.properties).sort()).toEqual(['adjustments', 'allow_negative']);
    expect(body.required).toEqual(['adjustments']);
    expect(body.properties.adjustments.items.required.sort()).toEqual(['delta', 'sku_id']);
    expect(Object.keys(op.responses['409'].content['application/problem+json'].examples).sort()).toEqual([
      'IDEMPOTENCY_CONFLICT',
      'INSUFFICIENT_STOCK',
    ]);
    const missing = op.responses['400'].content['application/problem+json'].examples.VALIDATION_FAILED.value.errors;
    expect(missing.map((e: { field: string }) => e.field)).toContain('Idempotency-Key');
  });
});

describe('Idempotency-Key', () => {
  it('when a request is retried with the same key and body, then the first answer comes back word for word and the stock moved once', async () => {
    const item = await stockedItem([10]);
    const key = newKey();
    const body = [{ sku_id: item.skus[0]!, delta: -3 }];
    const first = await adjustRest(body, key);
    expect(first.status, first.text).toBe(200);
    // Something else moves the stock meanwhile: the replay still answers what the first request did.
    expect((await adjustRest([{ sku_id: item.skus[0]!, delta: -1 }], newKey())).status).toBe(200);
    for (let i = 0; i < 2; i++) {
      const again = await adjustRest(body, key, { allowNegative: false });
      expect(again.status, again.text).toBe(200);
      expect(again.text).toBe(first.text);
    }
    const state = await stored(item.id);
    expect(state.skus).toEqual([6]);
    expect(await stockAudit(item.id)).toHaveLength(2);
    // GraphQL shares the key: the same request there is the same request.
    const replayed = await adjustGraphql([{ skuId: item.skus[0]!, delta: -3 }], key);
    expect(replayed.body).toEqual({
      data: { adjustStock: [{ id: item.skus[0], skuCode: 'S0', specs: { size: '40' }, price: 12.5, stock: 7 }] },
    });
    expect(await stored(item.id)).toEqual(state);
  });

  it('when the same key comes with another body, then 409 IDEMPOTENCY_CONFLICT and nothing changes', async () => {
    const item = await stockedItem([10]);
    const key = newKey();
    expect((await adjustRest([{ sku_id: item.skus[0]!, delta: -1 }], key)).status).toBe(200);
    const before = await stored(item.id);
    for (const [adjustments, allowNegative] of [
      [[{ sku_id: item.skus[0]!, delta: -2 }], false],
      [[{ sku_id: item.skus[0]!, delta: -1 }], true],
    ] as const) {
      expectProblem(await adjustRest(adjustments, key, { allowNegative }), 409, 'IDEMPOTENCY_CONFLICT');
    }
    expect(await stored(item.id)).toEqual(before);
  });

  it('when a key was used to create an item, then it cannot adjust stock (another request: 409)', async () => {
    const item = await stockedItem([10]);
    const key = newKey('shared');
    const created = await app.request('/admin/api/items', {
      token: owner,
      headers: { 'Idempotency-Key': key },
      body: { name: 'Keyed', category_id: categoryId, price: 1, stock: 1, skus: [], images: [] },
    });
    expect(created.status, created.text).toBe(201);
    expectProblem(await adjustRest([{ sku_id: item.skus[0]!, delta: 1 }], key), 409, 'IDEMPOTENCY_CONFLICT');
  });

  it('when a refused request is sent again after a restock, then its key was not remembered and it applies', async () => {
    const item = await stockedItem([1]);
    const key = newKey();
    const body = [{ sku_id: item.skus[0]!, delta: -2 }];
    expectProblem(await adjustRest(body, key), 409, 'INSUFFICIENT_STOCK');
    expect((await adjustRest([{ sku_id: item.skus[0]!, delta: 5 }], newKey())).status).toBe(200);
    const retried = await adjustRest(body, key);
    expect(retried.status, retried.text).toBe(200);
    expect(retried.body.skus[0].stock).toBe(4);
  });

  it('when retries with one key race each other, then one applies and every answer is the same', async () => {
    const item = await stockedItem([50]);
    const key = newKey('race');
    const body = [{ sku_id: item.skus[0]!, delta: -7 }];
    const answers = await Promise.all(Array.from({ length: 8 }, () => adjustRest(body, key)));
    for (const res of answers) {
      expect(res.status, res.text).toBe(200);
      expect(res.text).toBe(answers[0]!.text);
    }
    expect((await stored(item.id)).skus).toEqual([43]);
    expect(await stockAudit(item.id)).toHaveLength(1);
  });
});

describe('adjustStock (GraphQL)', () => {
  it('when adjusted over GraphQL, then it answers the SKUs and a short one is INSUFFICIENT_STOCK with extensions.errors', async () => {
    const item = await stockedItem([4]);
    const ok = await adjustGraphql([{ skuId: item.skus[0]!, delta: -1 }], newKey());
    expect(ok.body.errors, ok.text).toBeUndefined();
    expect(ok.body.data.adjustStock).toEqual([
      { id: item.skus[0], skuCode: 'S0', specs: { size: '40' }, price: 12.5, stock: 3 },
    ]);
    const short = await adjustGraphql([{ skuId: item.skus[0]!, delta: -4 }], newKey());
    expect(gqlCode(short)).toBe('INSUFFICIENT_STOCK');
    expect(short.body.errors[0].extensions.errors).toEqual([
      { field: 'adjustments[0].delta', message: `would take the stock of SKU ${item.skus[0]} below 0: 3 available` },
    ]);
    const unknown = await adjustGraphql([{ skuId: 2_000_000_000, delta: 1 }], newKey());
    expect(gqlCode(unknown)).toBe('VALIDATION_FAILED');
    expect(unknown.body.errors[0].extensions.errors).toEqual([
      { field: 'adjustments[0].skuId', message: 'is not an existing SKU' },
    ]);
    const emptyKey = await adjustGraphql([{ skuId: item.skus[0]!, delta: 1 }], '');
    expect(emptyKey.body.errors[0].extensions.errors).toEqual([
      { field: 'idempotencyKey', message: 'must not be empty' },
    ]);
    expect((await stored(item.id)).skus).toEqual([3]);
  });
});

describe('roles and audit', () => {
  it('when a viewer or support admin adjusts, then 403 FORBIDDEN before the body is looked at; a catalog_manager API key adjusts', async () => {
    const item = await stockedItem([5]);
    for (const role of ['viewer', 'support'] as const) {
      await makeAdmin(app, { username: `stock-${role}`, password: `${role}-password-1`, role });
      const token = await loginAsAdmin(app, { username: `stock-${role}`, password: `${role}-password-1` });
      expectProblem(await adjustRest('not a list', undefined, { token }), 403, 'FORBIDDEN');
      expectProblem(await adjustRest([{ sku_id: item.skus[0]!, delta: -1 }], newKey(), { token }), 403, 'FORBIDDEN');
      expect(gqlCode(await adjustGraphql([{ skuId: item.skus[0]!, delta: -1 }], newKey(), { token }))).toBe(
        'FORBIDDEN',
      );
    }
    expectProblem(await adjustRest([], undefined, { token: '' }), 401, 'UNAUTHENTICATED');
    expect((await stored(item.id)).skus).toEqual([5]);

    const key = await createApiKeyAs(app, owner, { name: 'Orders', role: 'catalog_manager' });
    const res = await adjustRest([{ sku_id: item.skus[0]!, delta: -2 }], newKey(), { token: key.secret });
    expect(res.status, res.text).toBe(200);
    const [entry] = await stockAudit(item.id);
    expect(entry).toMatchObject({ actor: { type: 'api_key', id: key.id, name: 'Orders' }, action: 'item.stock' });
  });

  it('when one request adjusts SKUs of two items, then each item has one item.stock entry with its SKUs’ and its own stock before and after', async () => {
    const boot = await stockedItem([8, 3]);
    const sock = await stockedItem([2]);
    const res = await adjustRest(
      [
        { sku_id: boot.skus[1]!, delta: 2 },
        { sku_id: sock.skus[0]!, delta: -2 },
        { sku_id: boot.skus[0]!, delta: -1 },
      ],
      newKey(),
    );
    expect(res.status, res.text).toBe(200);
    const [bootEntry] = await stockAudit(boot.id);
    const [sockEntry] = await stockAudit(sock.id);
    expect(bootEntry).toMatchObject({
      actor: { type: 'admin' },
      target: { type: 'item', id: boot.id },
      requestId: res.headers.get('x-request-id'),
      changes: {
        stock: [11, 12],
        skus: [
          [
            { id: boot.skus[0], stock: 8 },
            { id: boot.skus[1], stock: 3 },
          ],
          [
            { id: boot.skus[0], stock: 7 },
            { id: boot.skus[1], stock: 5 },
          ],
        ],
      },
    });
    expect(sockEntry!.changes).toEqual({
      stock: [2, 0],
      skus: [[{ id: sock.skus[0], stock: 2 }], [{ id: sock.skus[0], stock: 0 }]],
    });
  });
});

describe('parallel adjustments', () => {
  // PostgreSQL runs them truly at once; the embedded database one at a time, so fewer there.
  const requests = TEST_DB === 'postgres' ? 200 : 40;

  it(`when ${requests} take 1 each from a stock of ${requests / 2} at once, then exactly ${requests / 2} succeed and the stock ends at 0`, async () => {
    const item = await stockedItem([requests / 2]);
    const before = await stored(item.id);
    const answers = await Promise.all(
      Array.from({ length: requests }, (_, i) => adjustRest([{ sku_id: item.skus[0]!, delta: -1 }], `parallel-${i}`)),
    );
    const statuses = answers.map((r) => r.status);
    const odd = answers.filter((r) => r.status !== 200 && r.status !== 409).map((r) => r.text);
    expect(odd, odd.slice(0, 3).join('\n')).toEqual([]);
    expect(statuses.filter((s) => s === 200)).toHaveLength(requests / 2);
    expect(
      statuses.filter((s) => s !== 200).every((s) => s === 409),
      statuses.join(','),
    ).toBe(true);
    expect(await stored(item.id)).toEqual({ stock: 0, version: before.version + requests / 2, skus: [0] });
    // Every success saw a distinct stock: none was lost or counted twice.
    const seen = answers.filter((r) => r.status === 200).map((r) => r.body.skus[0].stock);
    expect(new Set(seen).size).toBe(requests / 2);
  }, 60_000);

  it('when adjustments sharing SKUs in opposite orders run at once, then none deadlocks and every one applies', async () => {
    const a = await stockedItem([100]);
    const b = await stockedItem([100]);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        adjustRest(
          i % 2
            ? [
                { sku_id: a.skus[0]!, delta: -1 },
                { sku_id: b.skus[0]!, delta: -1 },
              ]
            : [
                { sku_id: b.skus[0]!, delta: -1 },
                { sku_id: a.skus[0]!, delta: -1 },
              ],
          `crossed-${i}`,
        ),
      ),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect([(await stored(a.id)).skus, (await stored(b.id)).skus]).toEqual([[80], [80]]);
  }, 60_000);
});
