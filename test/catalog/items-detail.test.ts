import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, loginAsAdmin } from '../helpers/accounts.ts';
import { ISO_UTC, makeCategory, makeItem, restItemOf, type StoredItem } from '../helpers/catalog.ts';
import { expectDefined } from '../helpers/expect-defined.ts';
import { expectDocumentedResponse } from '../helpers/openapi.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

let app: TestApp;
let parent: { id: number; name: string };
let child: { id: number; name: string };
let lamp: StoredItem;
let bare: StoredItem;

beforeAll(async () => {
  // Rows are deleted behind the service's back here; the cache (tested in catalog-cache.test.ts) only
  // promises to see writes made through the service, so this file reads the database every time.
  app = await startTestApp({ CATALOG_CACHE_MB: '0' });
  parent = await makeCategory(app, { name: 'Outdoor' });
  child = await makeCategory(app, { name: '照明', parentId: parent.id, sortOrder: 5 });
  lamp = await makeItem(app, {
    categoryId: child.id,
    name: '超亮头灯 Pro',
    price: '99999999.99',
    stock: 0,
    createdAt: '2025-02-03T04:05:06.789Z',
    skus: [
      { skuCode: 'LAMP-Z', specs: { 颜色: '红', lumens: '900' }, price: '0.10', stock: 3 },
      { skuCode: 'LAMP-A', specs: {}, price: '19.90', stock: 0 },
      { skuCode: null, price: '0.00', stock: 7 },
    ],
    images: [
      { url: 'https://cdn.example.com/lamp-side.jpg', sortOrder: 1 },
      { url: 'http://cdn.example.com/lamp-front.jpg', sortOrder: 0 },
    ],
  });
  bare = await makeItem(app, { categoryId: parent.id, name: 'Bare item', price: '5', stock: 2147483647 });
});
afterAll(() => app.close());

const getItem = (id: number | string, opts: { token?: string; headers?: Record<string, string> } = {}) =>
  app.request(`/api/v1/items/${id}`, opts);

describe('GET /api/v1/items/{id}', () => {
  it('when the item exists, then 200 with exactly the contract Item shape', async () => {
    const res = await getItem(lamp.id);
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const [z, a, noCode] = lamp.skus;
    const [front, side] = lamp.images;
    expectDefined(z);
    expectDefined(a);
    expectDefined(noCode);
    expectDefined(front);
    expectDefined(side);
    expect(res.body).toEqual({
      id: lamp.id,
      name: '超亮头灯 Pro',
      description: '',
      category_id: child.id,
      // The item's own (sub-)category, id and name only.
      category: { id: child.id, name: '照明' },
      price: 99999999.99,
      stock: 0,
      // By id: the insertion order, not the codes' alphabetical order.
      skus: [
        { id: z.id, sku_code: 'LAMP-Z', specs: { 颜色: '红', lumens: '900' }, price: 0.1, stock: 3 },
        { id: a.id, sku_code: 'LAMP-A', specs: {}, price: 19.9, stock: 0 },
        { id: noCode.id, sku_code: null, specs: {}, price: 0, stock: 7 },
      ],
      images: [
        { id: front.id, url: 'http://cdn.example.com/lamp-front.jpg', sort_order: 0 },
        { id: side.id, url: 'https://cdn.example.com/lamp-side.jpg', sort_order: 1 },
      ],
      status: 'active',
      publish_at: null,
      unpublish_at: null,
      handle: lamp.handle,
      version: 1,
      created_at: '2025-02-03T04:05:06.789Z',
      updated_at: lamp.updatedAt.toISOString(),
    });
    expect(z.id).toBeLessThan(a.id);
    expect(side.id).toBeLessThan(front.id);
    expect(res.body.updated_at).toMatch(ISO_UTC);
    expect(res.text).toMatch(/"price":99999999\.99[,}]/);
    await expectDocumentedResponse(app, 'GET', '/api/v1/items/{id}', res);
  });

  it('when the item has no SKUs or images, then both are empty arrays and a whole price is a plain number', async () => {
    const res = await getItem(bare.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(restItemOf(bare));
    expect(res.body).toMatchObject({
      price: 5,
      stock: 2147483647,
      skus: [],
      images: [],
      category: { id: parent.id, name: 'Outdoor' },
    });
  });

  it('when the id is unknown, then 404 NOT_FOUND as problem+json', async () => {
    const res = await getItem(bare.id + 1000);
    expectProblem(res, 404, 'NOT_FOUND');
    expect(typeof res.body.detail).toBe('string');
    await expectDocumentedResponse(app, 'GET', '/api/v1/items/{id}', res);
    expectProblem(await getItem(2147483647), 404, 'NOT_FOUND');
  });

  it('when the id is malformed, then 404 NOT_FOUND too (never 400 or 500)', async () => {
    for (const id of ['abc', '1.5', '-1', '0', '99999999999999', '2147483648', '1e3', '0x1', '%20', `${lamp.id}abc`]) {
      const res = await getItem(id);
      expectProblem(res, 404, 'NOT_FOUND');
      expect(res.body.errors, id).toBeUndefined();
    }
  });

  it('when the item was deleted, then 404 NOT_FOUND', async () => {
    const doomed = await makeItem(app, {
      categoryId: parent.id,
      name: 'Doomed',
      skus: [{ skuCode: 'D' }],
      images: ['https://cdn.example.com/d.jpg'],
    });
    expect((await getItem(doomed.id)).status).toBe(200);
    await app.db.prisma.item.delete({ where: { id: doomed.id } });
    await app.catalogNotificationsHeard();
    expectProblem(await getItem(doomed.id), 404, 'NOT_FOUND');

    const alsoDoomed = await makeItem(app, { categoryId: parent.id, name: 'Also doomed' });
    const del = await app.graphql(
      'mutation ($id: Int!) { deleteItem(id: $id) }',
      { id: alsoDoomed.id },
      { token: await loginAsAdmin(app) },
    );
    expect(del.body, del.text).toEqual({ data: { deleteItem: true } });
    expectProblem(await getItem(alsoDoomed.id), 404, 'NOT_FOUND');
  });

  it('when an Authorization header is sent, then it is ignored (public read)', async () => {
    const anonymous = await getItem(lamp.id);
    for (const authorization of ['Bearer not-a-jwt', 'Basic Zm9vOmJhcg==', `Bearer ${await loginAsAdmin(app)}`]) {
      const res = await getItem(lamp.id, { headers: { authorization } });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual(anonymous.body);
    }
  });

  it('when HEAD is used, then it answers like GET without a body', async () => {
    const res = await fetch(`${app.url}/api/v1/items/${lamp.id}`, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.text()).toBe('');
    const missing = await fetch(`${app.url}/api/v1/items/${bare.id + 1000}`, { method: 'HEAD' });
    expect(missing.status).toBe(404);
    expect(await missing.text()).toBe('');
  });

  it('when another method is used, then 405 METHOD_NOT_ALLOWED with Allow', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const res = await app.request(`/api/v1/items/${lamp.id}`, {
        method,
        ...(method === 'DELETE' ? {} : { body: {} }),
      });
      expectProblem(res, 405, 'METHOD_NOT_ALLOWED');
      expect(res.headers.get('allow'), method).toBe('GET, HEAD');
    }
    const list = await app.request('/api/v1/items', { method: 'POST', body: { name: 'x' } });
    expectProblem(list, 405, 'METHOD_NOT_ALLOWED');
    expect(list.headers.get('allow')).toBe('GET, HEAD');
    // Nothing was written.
    expect(await app.db.prisma.item.count({ where: { name: 'x' } })).toBe(0);
    expect((await app.request(`/api/v1/items/${lamp.id}`)).body).toEqual(restItemOf(lamp));
  });
});
