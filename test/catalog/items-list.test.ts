import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, loginAsAdmin, loginAsCustomer, makeCustomer } from '../helpers/accounts.ts';
import {
  errorFields,
  ISO_UTC,
  idsNewestFirst,
  loadItem,
  makeBulkItems,
  makeCategory,
  makeItem,
  restItemOf,
  type StoredItem,
} from '../helpers/catalog.ts';
import { expectDocumentedResponse } from '../helpers/openapi.ts';
import { type ApiResponse, startTestApp, type TestApp } from '../helpers/test-app.ts';

let app: TestApp;

/** GET /api/v1/items with these query parameters (URL-encoded, so `%`, `\` and CJK arrive as typed). */
const listItems = (
  params: Record<string, string | number> = {},
  opts: { token?: string; headers?: Record<string, string> } = {},
) => {
  const query = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString();
  return app.request(`/api/v1/items${query ? `?${query}` : ''}`, opts);
};

const namesOf = (res: ApiResponse) => res.body.items.map((i: { name: string }) => i.name);
const idsOf = (res: ApiResponse) => res.body.items.map((i: { id: number }) => i.id);
const noon = (day: number) => new Date(Date.UTC(2024, 2, day, 12)).toISOString();

// A category tree four levels deep and items whose names exercise the keyword rules. The items are
// dated in March 2024 (one per day), so every list below is fully ordered; items other tests add
// are newer and never contain these keywords.
let outdoor: { id: number };
let footwear: { id: number };
let trailShoes: { id: number };
let waterproof: { id: number };
let lighting: { id: number };
let home: { id: number };
let textiles: { id: number };
let emptyShelf: { id: number };
const fixture = new Map<string, StoredItem>();

beforeAll(async () => {
  app = await startTestApp();
  outdoor = await makeCategory(app, { name: 'Outdoor' });
  footwear = await makeCategory(app, { name: 'Footwear', parentId: outdoor.id });
  trailShoes = await makeCategory(app, { name: 'Trail shoes', parentId: footwear.id });
  waterproof = await makeCategory(app, { name: 'Waterproof', parentId: trailShoes.id });
  lighting = await makeCategory(app, { name: 'Lighting', parentId: outdoor.id });
  home = await makeCategory(app, { name: 'Home' });
  textiles = await makeCategory(app, { name: 'Textiles', parentId: home.id });
  emptyShelf = await makeCategory(app, { name: 'Empty shelf', parentId: home.id });
  const rows: Array<[string, { id: number }]> = [
    ['Camp stove', outdoor],
    ['Road shoe', footwear],
    ['Trail boot', trailShoes],
    ['Gore hiker', waterproof],
    ['超亮头灯 Pro', lighting],
    ['Trail blanket', textiles],
    ['100% cotton', textiles],
    ['a%b widget', home],
    ['axxb widget', home],
    ['snake_case mug', home],
    ['plain mug', textiles],
    ['back\\slash tee', textiles],
  ];
  for (const [i, [name, category]] of rows.entries()) {
    fixture.set(
      name,
      await makeItem(app, {
        name,
        categoryId: category.id,
        createdAt: noon(i + 1),
        price: `${i + 1}.50`,
        skus: [{ skuCode: `SKU-${i}`, specs: { size: 'M' } }],
        images: [`https://cdn.example.com/${i}.jpg`],
      }),
    );
  }
});
afterAll(() => app.close());

describe('GET /api/v1/items — shape and defaults', () => {
  it('when items exist, then each one has exactly the contract Item shape, money as exact JSON numbers', async () => {
    const shoes = await makeCategory(app, { name: 'Shoes' });
    const boot = await makeItem(app, {
      categoryId: shoes.id,
      name: 'Shape check',
      price: '19.90',
      stock: 40,
      createdAt: '2030-01-02T00:00:00.000Z',
      skus: [
        { skuCode: 'BOOT-RED-42', specs: { color: 'red', size: '42' }, price: '19.90', stock: 10 },
        { skuCode: null, price: '0.10', stock: 0 },
        { skuCode: 'A-MAX', specs: { 颜色: '黑色' }, price: '99999999.99', stock: 2147483647 },
      ],
      // Inserted out of order: the response sorts by sort_order, then id.
      images: [
        { url: 'https://cdn.example.com/boot-b.jpg', sortOrder: 2 },
        { url: 'https://cdn.example.com/boot-a.jpg', sortOrder: 0 },
        { url: 'https://cdn.example.com/boot-c.jpg', sortOrder: 1 },
        { url: 'https://cdn.example.com/boot-a2.jpg', sortOrder: 0 },
      ],
    });
    const max = await makeItem(app, {
      categoryId: shoes.id,
      name: 'Max price',
      price: '99999999.99',
      createdAt: '2030-01-01T00:00:00.000Z',
    });
    const dime = await makeItem(app, {
      categoryId: shoes.id,
      name: 'Dime',
      price: '0.10',
      createdAt: '2029-12-31T00:00:00.000Z',
    });

    const res = await listItems({ category_id: shoes.id });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const [bootSku1, bootSku2, bootSku3] = boot.skus.map((s) => s.id).sort((a, b) => a - b);
    const imageId = (url: string) => boot.images.find((i) => i.url === url)!.id;
    expect(res.body).toEqual({
      items: [
        {
          id: boot.id,
          name: 'Shape check',
          description: '',
          category_id: shoes.id,
          category: { id: shoes.id, name: 'Shoes' },
          price: 19.9,
          stock: 40,
          skus: [
            { id: bootSku1, sku_code: 'BOOT-RED-42', specs: { color: 'red', size: '42' }, price: 19.9, stock: 10 },
            { id: bootSku2, sku_code: null, specs: {}, price: 0.1, stock: 0 },
            { id: bootSku3, sku_code: 'A-MAX', specs: { 颜色: '黑色' }, price: 99999999.99, stock: 2147483647 },
          ],
          images: [
            {
              id: imageId('https://cdn.example.com/boot-a.jpg'),
              url: 'https://cdn.example.com/boot-a.jpg',
              sort_order: 0,
            },
            {
              id: imageId('https://cdn.example.com/boot-a2.jpg'),
              url: 'https://cdn.example.com/boot-a2.jpg',
              sort_order: 0,
            },
            {
              id: imageId('https://cdn.example.com/boot-c.jpg'),
              url: 'https://cdn.example.com/boot-c.jpg',
              sort_order: 1,
            },
            {
              id: imageId('https://cdn.example.com/boot-b.jpg'),
              url: 'https://cdn.example.com/boot-b.jpg',
              sort_order: 2,
            },
          ],
          // Contract §12.1: a row written without the service is active, unscheduled, with the database's handle.
          status: 'active',
          publish_at: null,
          unpublish_at: null,
          handle: boot.handle,
          version: 1,
          created_at: '2030-01-02T00:00:00.000Z',
          updated_at: boot.updatedAt.toISOString(),
        },
        { ...restItemOf(max), price: 99999999.99, skus: [], images: [] },
        { ...restItemOf(dime), price: 0.1, skus: [], images: [] },
      ],
      page: 1,
      limit: 20,
      total: 3,
      total_pages: 1,
    });
    expect(res.body.items[0].updated_at).toMatch(ISO_UTC);
    // Exact decimals on the wire: no float noise, no strings.
    expect(res.text).toMatch(/"price":99999999\.99[,}]/);
    expect(res.text).toMatch(/"price":0\.1[,}]/);
    expect(res.text).toMatch(/"price":19\.9[,}]/);
    await expectDocumentedResponse(app, 'GET', '/api/v1/items', res);
  });

  it('when no parameters are given, then page 1 of 20, newest first, with total and total_pages', async () => {
    const bulk = await makeCategory(app, { name: 'Bulk' });
    await makeBulkItems(app, bulk.id, 105);
    const all = await idsNewestFirst(app);
    expect(all.length).toBeGreaterThan(100);

    const res = await listItems();
    expect(res.status, res.text).toBe(200);
    expect({ ...res.body, items: undefined }).toEqual({
      items: undefined,
      page: 1,
      limit: 20,
      total: all.length,
      total_pages: Math.ceil(all.length / 20),
    });
    expect(idsOf(res)).toEqual(all.slice(0, 20));

    const page2 = await listItems({ page: 2 });
    expect(page2.body).toMatchObject({ page: 2, limit: 20, total: all.length });
    expect(idsOf(page2)).toEqual(all.slice(20, 40));
    await expectDocumentedResponse(app, 'GET', '/api/v1/items', res);
  });

  it('when limit is 100 or 1, then pages hold that many and total_pages follows', async () => {
    const all = await idsNewestFirst(app);
    const hundred = await listItems({ limit: 100 });
    expect(hundred.status, hundred.text).toBe(200);
    expect(hundred.body).toMatchObject({
      page: 1,
      limit: 100,
      total: all.length,
      total_pages: Math.ceil(all.length / 100),
    });
    expect(idsOf(hundred)).toEqual(all.slice(0, 100));
    const rest = await listItems({ limit: 100, page: 2 });
    expect(idsOf(rest)).toEqual(all.slice(100, 200));

    const one = await listItems({ limit: 1, page: 3 });
    expect(one.body).toMatchObject({ page: 3, limit: 1, total: all.length, total_pages: all.length });
    expect(idsOf(one)).toEqual([all[2]]);
  });

  it('when the page is past the end, then 200 with no items and the right total and total_pages', async () => {
    const res = await listItems({ category_id: home.id, limit: 3, page: 4 });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ items: [], page: 4, limit: 3, total: 7, total_pages: 3 });
    await expectDocumentedResponse(app, 'GET', '/api/v1/items', res);

    const lastFull = await listItems({ category_id: home.id, limit: 3, page: 3 });
    expect(namesOf(lastFull)).toEqual(['Trail blanket']);

    // The largest page number accepted must not overflow the offset computation.
    const far = await listItems({ page: 2147483647, limit: 100 });
    expect(far.status, far.text).toBe(200);
    expect(far.body).toMatchObject({ items: [], page: 2147483647, limit: 100 });
  });
});

describe('GET /api/v1/items — validation', () => {
  it('when a parameter is out of range or of the wrong type, then 400 VALIDATION_FAILED naming it', async () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ page: '0' }, 'page'],
      [{ page: '-1' }, 'page'],
      [{ page: 'abc' }, 'page'],
      [{ page: '1.5' }, 'page'],
      [{ limit: '0' }, 'limit'],
      [{ limit: '101' }, 'limit'],
      [{ limit: '-1' }, 'limit'],
      [{ limit: 'ten' }, 'limit'],
      [{ category_id: '0' }, 'category_id'],
      [{ category_id: '-3' }, 'category_id'],
      [{ category_id: 'x' }, 'category_id'],
      [{ category_id: '2.5' }, 'category_id'],
      [{ keyword: 'k'.repeat(101) }, 'keyword'],
      [{ keyword: `  ${'头'.repeat(101)}  ` }, 'keyword'],
    ];
    for (const [params, field] of cases) {
      const res = await listItems(params);
      expectProblem(res, 400, 'VALIDATION_FAILED');
      expect(errorFields(res.body.errors), JSON.stringify(params)).toEqual([field]);
      expect(res.body.errors[0].message).toEqual(expect.any(String));
    }
    await expectDocumentedResponse(app, 'GET', '/api/v1/items', await listItems({ limit: 101 }));
  });

  it('when several parameters are bad at once, then errors lists every one of them', async () => {
    const res = await listItems({ page: '0', limit: '101', category_id: 'x', keyword: 'k'.repeat(101) });
    expectProblem(res, 400, 'VALIDATION_FAILED');
    expect(errorFields(res.body.errors).sort()).toEqual(['category_id', 'keyword', 'limit', 'page']);

    const two = await listItems({ page: 'abc', limit: '-1', category_id: '3', keyword: 'ok' });
    expectProblem(two, 400, 'VALIDATION_FAILED');
    expect(errorFields(two.body.errors).sort()).toEqual(['limit', 'page']);
  });

  it('when the keyword is 100 characters after trimming, then it is accepted', async () => {
    const res = await listItems({ keyword: `   ${'k'.repeat(100)}   ` });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ items: [], total: 0 });
  });
});

describe('GET /api/v1/items — category filter', () => {
  it('when category_id is given, then the category and all its descendants match, newest first', async () => {
    const res = await listItems({ category_id: outdoor.id });
    expect(res.status, res.text).toBe(200);
    const expected = ['超亮头灯 Pro', 'Gore hiker', 'Trail boot', 'Road shoe', 'Camp stove'];
    expect(res.body).toEqual({
      items: expected.map((name) => restItemOf(fixture.get(name)!)),
      page: 1,
      limit: 20,
      total: 5,
      total_pages: 1,
    });
    expect(namesOf(await listItems({ category_id: footwear.id }))).toEqual(['Gore hiker', 'Trail boot', 'Road shoe']);
    expect(namesOf(await listItems({ category_id: trailShoes.id }))).toEqual(['Gore hiker', 'Trail boot']);
    expect(namesOf(await listItems({ category_id: waterproof.id }))).toEqual(['Gore hiker']);
    expect(namesOf(await listItems({ category_id: lighting.id }))).toEqual(['超亮头灯 Pro']);
    expect(namesOf(await listItems({ category_id: textiles.id }))).toEqual([
      'back\\slash tee',
      'plain mug',
      '100% cotton',
      'Trail blanket',
    ]);
  });

  it('when the category is unknown or has no items, then an empty list with total 0', async () => {
    const unknown = await listItems({ category_id: 2147483647 });
    expect(unknown.status, unknown.text).toBe(200);
    expect(unknown.body).toEqual({ items: [], page: 1, limit: 20, total: 0, total_pages: 0 });
    await expectDocumentedResponse(app, 'GET', '/api/v1/items', unknown);
    const empty = await listItems({ category_id: emptyShelf.id });
    expect(empty.body).toEqual({ items: [], page: 1, limit: 20, total: 0, total_pages: 0 });
  });

  it('when a sub-category is given, then items of its parent and siblings are not included', async () => {
    const res = await listItems({ category_id: lighting.id, limit: 100 });
    expect(res.body.items.every((i: { category_id: number }) => i.category_id === lighting.id)).toBe(true);
    expect(res.body.total).toBe(1);
  });
});

describe('GET /api/v1/items — keyword filter', () => {
  const search = async (keyword: string, extra: Record<string, string | number> = {}) => {
    const res = await listItems({ keyword, limit: 100, ...extra });
    expect(res.status, `${JSON.stringify(keyword)}: ${res.text}`).toBe(200);
    return res;
  };

  it('when the keyword differs in case, then it still matches as a substring of the name (and, as a word, the category path)', async () => {
    for (const keyword of ['TRAIL', 'trail', 'tRaIl', '  Trail  ']) {
      const res = await search(keyword);
      // Names starting with the keyword first; Gore hiker's category path holds the word (contract §9.1).
      expect(namesOf(res), keyword).toEqual(['Trail blanket', 'Trail boot', 'Gore hiker']);
      expect(res.body.total).toBe(3);
    }
    // Not a word of anything: the revision-1 substring rule alone.
    expect(namesOf(await search('ail'))).toEqual(['Trail blanket', 'Trail boot']);
    // Shape check has a SKU coded BOOT-RED-42: a word found in SKU codes ranks below one in the name.
    expect(namesOf(await search('BOOT'))).toEqual(['Trail boot', 'Shape check']);
    expect(namesOf(await search('il bo'))).toEqual(['Trail boot']);
  });

  it('when the keyword is CJK text, then it matches inside a mixed name', async () => {
    const res = await search('头灯');
    expect(res.body.items).toEqual([restItemOf(fixture.get('超亮头灯 Pro')!)]);
    expect(namesOf(await search('超亮头灯 pro'))).toEqual(['超亮头灯 Pro']);
    expect(namesOf(await search('灯头'))).toEqual([]);
  });

  it('when the keyword holds % or _, then they are literal characters, not wildcards', async () => {
    expect(namesOf(await search('%'))).toEqual(['a%b widget', '100% cotton']);
    expect(namesOf(await search('100%'))).toEqual(['100% cotton']);
    // Its substring first; then an item with both words `a` and `b…` (SKU codes A-MAX and BOOT-RED-42).
    expect(namesOf(await search('a%b'))).toEqual(['a%b widget', 'Shape check']);
    expect(namesOf(await search('_'))).toEqual(['snake_case mug']);
    expect(namesOf(await search('e_c'))).toEqual(['snake_case mug']);
    // Not a substring of any name, but both words are in `plain mug`'s name (`_` separates words).
    expect(namesOf(await search('plain_mug'))).toEqual(['plain mug']);
    expect(namesOf(await search('%%'))).toEqual([]);
    expect(namesOf(await search('_%'))).toEqual([]);
  });

  it('when the keyword holds a backslash or quotes, then they are literal text too', async () => {
    expect(namesOf(await search('\\'))).toEqual(['back\\slash tee']);
    expect(namesOf(await search('k\\s'))).toEqual(['back\\slash tee']);
    expect(namesOf(await search('\\%'))).toEqual([]);
    expect(namesOf(await search('\\_'))).toEqual([]);
    expect(namesOf(await search("o'brien"))).toEqual([]);
    expect(namesOf(await search('"; DROP TABLE items; --'))).toEqual([]);
    expect((await search('mug')).body.total).toBe(2);
  });

  it('when the keyword is empty or only whitespace, then there is no keyword filter', async () => {
    const unfiltered = await listItems({ category_id: home.id });
    expect(unfiltered.body.total).toBe(7);
    for (const keyword of ['', '   ', ' \t ']) {
      const res = await listItems({ category_id: home.id, keyword });
      expect(res.status, res.text).toBe(200);
      expect(res.body, JSON.stringify(keyword)).toEqual(unfiltered.body);
    }
  });

  it('when category_id and keyword are combined, then both must match', async () => {
    expect(namesOf(await search('trail', { category_id: home.id }))).toEqual(['Trail blanket']);
    expect(namesOf(await search('trail', { category_id: outdoor.id }))).toEqual(['Trail boot', 'Gore hiker']);
    expect(namesOf(await search('TRAIL', { category_id: trailShoes.id }))).toEqual(['Trail boot', 'Gore hiker']);
    expect(namesOf(await search('头灯', { category_id: outdoor.id }))).toEqual(['超亮头灯 Pro']);
    expect(namesOf(await search('头灯', { category_id: footwear.id }))).toEqual([]);
    expect(namesOf(await search('%', { category_id: textiles.id }))).toEqual(['100% cotton']);
    const paged = await listItems({ category_id: home.id, keyword: 'w', limit: 1, page: 2, sort: 'newest' });
    // 'w' matches both widgets; the newest is on page 1.
    expect(paged.body).toMatchObject({ page: 2, limit: 1, total: 2, total_pages: 2 });
    expect(namesOf(paged)).toEqual(['a%b widget']);
  });
});

describe('GET /api/v1/items — order', () => {
  it('when items have different and equal created_at, then newest first and the higher id first on a tie', async () => {
    const cat = await makeCategory(app, { name: 'Order check' });
    const a = await makeItem(app, { categoryId: cat.id, name: 'Order A', createdAt: '2024-01-01T00:00:00.000Z' });
    const b = await makeItem(app, { categoryId: cat.id, name: 'Order B', createdAt: '2025-06-01T00:00:00.000Z' });
    const c = await makeItem(app, { categoryId: cat.id, name: 'Order C', createdAt: '2025-06-01T00:00:00.000Z' });
    const d = await makeItem(app, { categoryId: cat.id, name: 'Order D', createdAt: '2023-01-01T00:00:00.000Z' });
    const e = await makeItem(app, { categoryId: cat.id, name: 'Order E', createdAt: '2025-06-01T00:00:00.001Z' });
    const expected = [e, c, b, a, d].map((i) => i.id);

    const res = await listItems({ category_id: cat.id });
    expect(idsOf(res)).toEqual(expected);
    expect(res.body.items.map((i: { created_at: string }) => i.created_at)).toEqual([
      '2025-06-01T00:00:00.001Z',
      '2025-06-01T00:00:00.000Z',
      '2025-06-01T00:00:00.000Z',
      '2024-01-01T00:00:00.000Z',
      '2023-01-01T00:00:00.000Z',
    ]);

    // Paging walks the same order without gaps or repeats.
    const pages = [];
    for (let page = 1; page <= 3; page++) {
      const p = await listItems({ category_id: cat.id, limit: 2, page });
      expect(p.body).toMatchObject({ page, limit: 2, total: 5, total_pages: 3 });
      pages.push(...idsOf(p));
    }
    expect(pages).toEqual(expected);
  });
});

describe('GET /api/v1/items — public read', () => {
  it('when any Authorization header is sent (garbage, admin or customer token), then it is ignored', async () => {
    const anonymous = await listItems({ category_id: outdoor.id });
    expect(anonymous.status).toBe(200);
    const customer = await makeCustomer(app);
    const headers: Array<Record<string, string>> = [
      { authorization: 'Bearer not-a-jwt' },
      { authorization: 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.' },
      { authorization: 'Basic Zm9vOmJhcg==' },
      { authorization: 'garbage' },
      { authorization: `Bearer ${await loginAsAdmin(app)}` },
      { authorization: `Bearer ${await loginAsCustomer(app, customer.username!)}` },
    ];
    for (const h of headers) {
      const res = await listItems({ category_id: outdoor.id }, { headers: h });
      expect(res.status, `${h.authorization}: ${res.text}`).toBe(200);
      expect(res.body).toEqual(anonymous.body);
      expect(res.headers.get('www-authenticate')).toBeNull();
    }
  });
});

describe('deleted items', () => {
  it('when an item row is deleted, then it vanishes from the list and its detail is 404', async () => {
    const cat = await makeCategory(app, { name: 'Doomed rows' });
    const keep = await makeItem(app, {
      categoryId: cat.id,
      name: 'Keeper lamp',
      createdAt: '2024-05-01T00:00:00.000Z',
    });
    const gone = await makeItem(app, {
      categoryId: cat.id,
      name: 'Doomed lamp',
      createdAt: '2024-05-02T00:00:00.000Z',
      skus: [{ skuCode: 'DOOMED' }],
      images: ['https://cdn.example.com/doomed.jpg'],
    });
    expect(idsOf(await listItems({ category_id: cat.id }))).toEqual([gone.id, keep.id]);

    await app.db.prisma.item.delete({ where: { id: gone.id } });
    await app.catalogNotificationsHeard();
    const after = await listItems({ category_id: cat.id });
    expect(after.body).toMatchObject({ total: 1, total_pages: 1 });
    expect(idsOf(after)).toEqual([keep.id]);
    // Keeper lamp still matches by its category's name; the deleted one is gone.
    expect(namesOf(await listItems({ keyword: 'doomed' }))).toEqual(['Keeper lamp']);
    expectProblem(await app.request(`/api/v1/items/${gone.id}`), 404, 'NOT_FOUND');
  });

  it('when an admin deletes an item through GraphQL deleteItem, then it vanishes from every read', async () => {
    const cat = await makeCategory(app, { name: 'Doomed by admin' });
    const keep = await makeItem(app, {
      categoryId: cat.id,
      name: 'Keeper chair',
      createdAt: '2024-05-01T00:00:00.000Z',
    });
    const gone = await makeItem(app, {
      categoryId: cat.id,
      name: 'Condemned chair',
      createdAt: '2024-05-02T00:00:00.000Z',
      skus: [{ skuCode: 'CONDEMNED', price: '3.00' }],
      images: ['https://cdn.example.com/condemned.jpg'],
    });
    const token = await loginAsAdmin(app);
    const del = await app.graphql('mutation ($id: Int!) { deleteItem(id: $id) }', { id: gone.id }, { token });
    expect(del.body, del.text).toEqual({ data: { deleteItem: true } });

    const after = await listItems({ category_id: cat.id });
    expect(after.body).toMatchObject({ total: 1, total_pages: 1 });
    expect(idsOf(after)).toEqual([keep.id]);
    expect(namesOf(await listItems({ keyword: 'condemned' }))).toEqual([]);
    expectProblem(await app.request(`/api/v1/items/${gone.id}`), 404, 'NOT_FOUND');
    const gql = await app.graphql('query ($id: Int!) { item(id: $id) { id } }', { id: gone.id });
    expect(gql.body).toEqual({ data: { item: null } });
    // The kept item is untouched.
    expect((await app.request(`/api/v1/items/${keep.id}`)).body).toEqual(restItemOf(await loadItem(app, keep.id)));
  });
});
