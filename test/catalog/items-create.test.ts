/**
 * POST /admin/api/items (contract §4.4): creation through the real server, every input rule with
 * the snake_case field it must name, the admin token rules, body format errors, and the promise
 * that item, SKUs and images are written in one transaction.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, gqlCode, loginAsAdmin, loginAsCustomer, makeAdmin, makeCustomer } from '../helpers/accounts.ts';
import { errorFields, ISO_UTC, loadItem, makeCategory, restItemOf } from '../helpers/catalog.ts';
import {
  CREATE_ITEM,
  catalogCounts,
  failImageInserts,
  ITEMS_PATH,
  itemBody,
  itemInput,
  postItem,
  signAdminToken,
  without,
} from '../helpers/catalog-admin.ts';
import { expectDocumentedResponse } from '../helpers/openapi.ts';
import { type ApiResponse, startTestApp, type TestApp } from '../helpers/test-app.ts';

let app: TestApp;
let adminToken: string;
let categoryId: number;

beforeAll(async () => {
  app = await startTestApp({ LOGIN_IP_PER_MINUTE: '1000' });
  adminToken = await loginAsAdmin(app);
  categoryId = (await makeCategory(app, { name: 'Shoes' })).id;
});
afterAll(() => app.close());

/** Asserts a 400 VALIDATION_FAILED whose `errors` name exactly `fields` (any order), each with a message. */
function expectFieldErrors(res: ApiResponse, fields: Array<string | RegExp>) {
  expectProblem(res, 400, 'VALIDATION_FAILED');
  const got = errorFields(res.body.errors);
  expect(got, res.text).toHaveLength(fields.length);
  expect(got, res.text).toEqual(
    expect.arrayContaining(fields.map((f) => (typeof f === 'string' ? f : expect.stringMatching(f)))),
  );
  for (const e of res.body.errors) expect(typeof e.message === 'string' && e.message.length > 0).toBe(true);
}

/** Posts `body` and asserts it wrote nothing. */
async function postExpectingNoRows(
  body: unknown,
  opts: { token?: string | undefined; headers?: Record<string, string> } = {},
) {
  const before = await catalogCounts(app);
  const res = await postItem(app, 'token' in opts ? opts.token : adminToken, body, opts.headers);
  expect(await catalogCounts(app)).toEqual(before);
  return res;
}

describe('POST /admin/api/items: success', () => {
  it('when a valid item is posted, then 201 with the item, its Location, and the very body a later GET returns', async () => {
    const res = await postItem(app, adminToken, itemBody(categoryId));
    expect(res.status, res.text).toBe(201);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const id = res.body.id;
    expect(Number.isInteger(id) && id > 0).toBe(true);
    expect(res.headers.get('location')).toBe(`/api/v1/items/${id}`);

    expect(res.body).toEqual({
      id,
      name: 'Trail boot',
      description: '',
      category_id: categoryId,
      category: { id: categoryId, name: 'Shoes' },
      price: 19.9,
      stock: 40,
      skus: [
        {
          id: expect.any(Number),
          sku_code: 'BOOT-RED-42',
          specs: { color: 'red', size: '42' },
          price: 21.5,
          stock: 10,
        },
        // No price given: the item's price.
        { id: expect.any(Number), sku_code: 'BOOT-RED-43', specs: { color: 'red', size: '43' }, price: 19.9, stock: 3 },
      ],
      images: [
        { id: expect.any(Number), url: 'https://cdn.example.com/boot.jpg', sort_order: 0 },
        { id: expect.any(Number), url: 'https://cdn.example.com/boot-side.jpg', sort_order: 5 },
      ],
      // Contract §12.1: public unless told otherwise, no schedule, a handle made from the name.
      status: 'active',
      publish_at: null,
      unpublish_at: null,
      handle: expect.stringMatching(/^trail-boot(-\d+)?$/),
      version: 1,
      created_at: expect.stringMatching(ISO_UTC),
      updated_at: expect.stringMatching(ISO_UTC),
    });
    expect(res.body).toEqual(restItemOf(await loadItem(app, id)));

    const read = await app.request(res.headers.get('location')!);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(res.body);
  });

  it('when an item is created, then the 201 is the response /openapi.json documents', async () => {
    const res = await postItem(
      app,
      adminToken,
      itemBody(categoryId, { price: 12.5, skus: [{ sku_code: 'DOC', price: 3.25 }] }),
    );
    expect(res.status, res.text).toBe(201);
    await expectDocumentedResponse(app, 'POST', ITEMS_PATH, res);
  });

  it("when the item has the contract's example price 19.9, then /openapi.json still accepts the 201", async () => {
    // Contract §4's own example. A `multipleOf: 0.01` money schema rejects it in float-based
    // validators (19.9 / 0.01 = 1989.9999999999998), so clients validating with it would refuse it.
    const res = await postItem(app, adminToken, itemBody(categoryId, { price: 19.9, skus: [] }));
    expect(res.status, res.text).toBe(201);
    await expectDocumentedResponse(app, 'POST', ITEMS_PATH, res);
  });

  it('when SKU price and stock and image sort orders are left out, then SKUs take the item price and stock 0, images their index', async () => {
    const res = await postItem(
      app,
      adminToken,
      itemBody(categoryId, {
        price: 12.5,
        skus: [{}, { sku_code: 'PLAIN', specs: {} }, { sku_code: 'OWN', price: '3.00', stock: 7 }],
        images: [
          'https://cdn.example.com/1.jpg',
          { url: 'https://cdn.example.com/2.jpg' },
          'http://cdn.example.com/3.jpg',
        ],
      }),
    );
    expect(res.status, res.text).toBe(201);
    expect(res.body.skus.map(({ id: _id, ...s }: { id: number }) => s)).toEqual([
      { sku_code: null, specs: {}, price: 12.5, stock: 0 },
      { sku_code: 'PLAIN', specs: {}, price: 12.5, stock: 0 },
      { sku_code: 'OWN', specs: {}, price: 3, stock: 7 },
    ]);
    expect(res.body.images.map((i: { url: string; sort_order: number }) => [i.url, i.sort_order])).toEqual([
      ['https://cdn.example.com/1.jpg', 0],
      ['https://cdn.example.com/2.jpg', 1],
      ['http://cdn.example.com/3.jpg', 2],
    ]);
    expect(res.body).toEqual(restItemOf(await loadItem(app, res.body.id)));
  });

  it('when the price is the decimal string "19.90", then it is stored exactly and answered as the number 19.9', async () => {
    const res = await postItem(app, adminToken, itemBody(categoryId, { price: '19.90', skus: [{ price: '0.05' }] }));
    expect(res.status, res.text).toBe(201);
    expect(res.body.price).toBe(19.9);
    expect(res.body.skus[0].price).toBe(0.05);
    const stored = await loadItem(app, res.body.id);
    expect(stored.price.toFixed(2)).toBe('19.90');
    expect(stored.skus[0]?.price.toFixed(2)).toBe('0.05');
  });

  it('when the price is 0 and skus and images are empty, then the item is created with none of them', async () => {
    const res = await postItem(app, adminToken, itemBody(categoryId, { price: 0, stock: 0, skus: [], images: [] }));
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ price: 0, stock: 0, skus: [], images: [] });
  });

  it('when every field is at its upper limit, then it is accepted and stored exactly', async () => {
    const longUrl = `https://cdn.example.com/${'a'.repeat(2048 - 'https://cdn.example.com/'.length)}`;
    expect(longUrl).toHaveLength(2048);
    const specs = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`key${i}`, `value${i}`]));
    const body = itemBody(categoryId, {
      name: 'N'.repeat(200),
      price: 99999999.99,
      stock: 2147483647,
      skus: Array.from({ length: 100 }, (_, i) => ({
        sku_code: `${String(i).padStart(3, '0')}${'c'.repeat(61)}`,
        specs: i === 0 ? specs : {},
        price: '99999999.99',
        stock: 2147483647,
      })),
      images: [longUrl, ...Array.from({ length: 19 }, (_, i) => `https://cdn.example.com/${i}.jpg`)],
    });
    const res = await postItem(app, adminToken, body);
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ name: 'N'.repeat(200), price: 99999999.99, stock: 2147483647 });
    expect(res.body.skus).toHaveLength(100);
    expect(res.body.skus[0]).toMatchObject({ sku_code: `000${'c'.repeat(61)}`, specs, price: 99999999.99 });
    expect(res.body.images).toHaveLength(20);
    expect(res.body.images[0].url).toBe(longUrl);
    expect((await loadItem(app, res.body.id)).price.toFixed(2)).toBe('99999999.99');
  });

  it('when the name has spaces around it, then they do not count toward its length and are not stored', async () => {
    const res = await postItem(app, adminToken, itemBody(categoryId, { name: `  ${'x'.repeat(200)}  ` }));
    expect(res.status, res.text).toBe(201);
    expect(res.body.name).toBe('x'.repeat(200));
  });

  it('when the body carries server-owned or unknown fields, then they are ignored', async () => {
    const res = await postItem(app, adminToken, {
      ...itemBody(categoryId, {
        skus: [{ id: 999_001, item_id: 999_002, sku_code: 'X' }],
        images: [{ id: 999_003, url: 'https://cdn.example.com/x.jpg', item_id: 999_004 }],
      }),
      id: 999_000,
      created_at: '2000-01-01T00:00:00.000Z',
      updated_at: '2000-01-01T00:00:00.000Z',
      category: { id: 999_005, name: 'Injected' },
      version: 99,
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.id).not.toBe(999_000);
    expect(res.body.skus[0].id).not.toBe(999_001);
    expect(res.body.images[0].id).not.toBe(999_003);
    expect(res.body.category).toEqual({ id: categoryId, name: 'Shoes' });
    expect(res.body.version).toBe(1);
    expect(Date.now() - Date.parse(res.body.created_at)).toBeLessThan(60_000);
    expect(Date.now() - Date.parse(res.body.updated_at)).toBeLessThan(60_000);
    expect(await app.db.prisma.item.findUnique({ where: { id: 999_000 } })).toBeNull();
  });

  it('when specs keys are camelCase, snake_case or CJK, then they are kept exactly as sent', async () => {
    const specs = { sizeEU: '42', shoe_width: 'wide', 颜色: '红色' };
    const res = await postItem(app, adminToken, itemBody(categoryId, { skus: [{ sku_code: 'SPECS', specs }] }));
    expect(res.status, res.text).toBe(201);
    expect(res.body.skus[0].specs).toEqual(specs);
  });

  it('when several SKUs have no sku_code, then they are not duplicates of each other', async () => {
    const res = await postItem(app, adminToken, itemBody(categoryId, { skus: [{}, { stock: 1 }, { sku_code: null }] }));
    expect(res.status, res.text).toBe(201);
    expect(res.body.skus.map((s: { sku_code: string | null }) => s.sku_code)).toEqual([null, null, null]);
  });

  it('when the name is 200 CJK characters or 200 emoji, then it is accepted: the limit counts characters', async () => {
    for (const name of ['靴'.repeat(200), '👟'.repeat(200)]) {
      const res = await postItem(app, adminToken, itemBody(categoryId, { name }));
      expect(res.status, `${name.slice(0, 4)}…: ${res.text}`).toBe(201);
      expect(res.body.name).toBe(name);
    }
  });

  it('when fields are sent in camelCase, then they are unknown fields and the snake_case ones count as missing', async () => {
    const { category_id: _c, ...body } = itemBody(categoryId);
    expectFieldErrors(await postExpectingNoRows({ ...body, categoryId }), ['category_id']);
  });

  it('when Content-Type names a charset, then the body is accepted', async () => {
    const res = await app.request(ITEMS_PATH, {
      method: 'POST',
      rawBody: JSON.stringify(itemBody(categoryId, { name: 'Charset boot' })),
      contentType: 'application/json; charset=utf-8',
      token: adminToken,
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.name).toBe('Charset boot');
  });
});

describe('POST /admin/api/items: validation', () => {
  it.each(['name', 'category_id', 'price', 'stock', 'skus', 'images'])(
    'when %s is missing, then 400 VALIDATION_FAILED names it and nothing is written',
    async (field) => {
      expectFieldErrors(await postExpectingNoRows(without(itemBody(categoryId), field)), [field]);
    },
  );

  const IMAGE_0 = /^images\[0\](\.url)?$/;
  const cases: Array<[string, Record<string, unknown>, Array<string | RegExp>]> = [
    ['name is empty', { name: '' }, ['name']],
    ['name is only whitespace', { name: ' \t \n ' }, ['name']],
    ['name has 201 characters', { name: 'n'.repeat(201) }, ['name']],
    ['name is not a string', { name: 42 }, ['name']],
    ['category_id names no category', { category_id: 999_999 }, ['category_id']],
    ['category_id is a fraction', { category_id: 1.5 }, ['category_id']],
    ['category_id is a string', { category_id: '1' }, ['category_id']],
    ['category_id is zero', { category_id: 0 }, ['category_id']],
    ['category_id is past the integer range', { category_id: 2147483648 }, ['category_id']],
    ['price is negative', { price: -0.01 }, ['price']],
    ['price is above 99999999.99', { price: 100000000 }, ['price']],
    ['price is a string above 99999999.99', { price: '100000000.00' }, ['price']],
    ['price is huge', { price: 1e21 }, ['price']],
    ['price has 3 fractional digits (19.999)', { price: 19.999 }, ['price']],
    ['price is the string "19.999"', { price: '19.999' }, ['price']],
    ['price is a float artefact (0.1 + 0.2)', { price: 0.1 + 0.2 }, ['price']],
    ['price is a non-numeric string', { price: 'nineteen' }, ['price']],
    ['price is an empty string', { price: '' }, ['price']],
    ['price is a boolean', { price: true }, ['price']],
    ['price is null', { price: null }, ['price']],
    ['stock is -1', { stock: -1 }, ['stock']],
    ['stock is 1.5', { stock: 1.5 }, ['stock']],
    ['stock is 2147483648', { stock: 2147483648 }, ['stock']],
    ['stock is a string', { stock: '5' }, ['stock']],
    ['skus is a string', { skus: 'BOOT' }, ['skus']],
    ['skus is an object', { skus: { sku_code: 'A' } }, ['skus']],
    ['skus has 101 entries', { skus: Array.from({ length: 101 }, () => ({})) }, ['skus']],
    ['a sku_code repeats', { skus: [{ sku_code: 'A' }, { sku_code: 'A' }] }, ['skus[1].sku_code']],
    [
      'a sku_code repeats further down',
      { skus: [{ sku_code: 'A' }, { sku_code: 'B' }, { sku_code: 'A' }] },
      ['skus[2].sku_code'],
    ],
    ['a sku_code has 65 characters', { skus: [{ sku_code: 'c'.repeat(65) }] }, ['skus[0].sku_code']],
    [
      'specs has 21 pairs',
      { skus: [{ specs: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])) }] },
      ['skus[0].specs'],
    ],
    ['specs has a non-string value', { skus: [{ specs: { color: 1 } }] }, [/^skus\[0\]\.specs(\.color)?$/]],
    ['specs is an array', { skus: [{ specs: ['red'] }] }, ['skus[0].specs']],
    ['a SKU price has 3 fractional digits', { skus: [{ price: 19.999 }] }, ['skus[0].price']],
    ['a SKU price is negative', { skus: [{}, { price: -1 }] }, ['skus[1].price']],
    ['a SKU stock is negative', { skus: [{ stock: -1 }] }, ['skus[0].stock']],
    ['a SKU stock is a fraction', { skus: [{ stock: 0.5 }] }, ['skus[0].stock']],
    ['a SKU stock is 2147483648', { skus: [{ stock: 2147483648 }] }, ['skus[0].stock']],
    // The path names the key as sent, never a snake_cased copy of it.
    [
      'a specs value under a camelCase key is not a string',
      { skus: [{ specs: { sizeEU: 42 } }] },
      [/^skus\[0\]\.specs(\.sizeEU)?$/],
    ],
    ['a SKU is not an object', { skus: ['A'] }, ['skus[0]']],
    [
      'images has 21 entries',
      { images: Array.from({ length: 21 }, (_, i) => `https://cdn.example.com/${i}.jpg`) },
      ['images'],
    ],
    ['images is a string', { images: 'https://cdn.example.com/a.jpg' }, ['images']],
    ['an image URL is ftp://x', { images: ['ftp://x'] }, [IMAGE_0]],
    ['an image URL is javascript:alert(1)', { images: ['javascript:alert(1)'] }, [IMAGE_0]],
    ['an image URL is relative', { images: ['/boot.jpg'] }, [IMAGE_0]],
    ['an image URL has no host', { images: ['http://'] }, [IMAGE_0]],
    ['an image URL has 2049 characters', { images: [`https://cdn.example.com/${'a'.repeat(2049 - 24)}`] }, [IMAGE_0]],
    ['an image object has no url', { images: [{ sort_order: 1 }] }, [IMAGE_0]],
    ['an image object has a data: url', { images: [{ url: 'data:image/png;base64,AAAA' }] }, ['images[0].url']],
    [
      'an image sort_order is a fraction',
      { images: [{ url: 'https://cdn.example.com/a.jpg', sort_order: 1.5 }] },
      ['images[0].sort_order'],
    ],
    ['an image is a number', { images: [42] }, [IMAGE_0]],
  ];

  it.each(cases)(
    'when %s, then 400 VALIDATION_FAILED names that field and nothing is written',
    async (_label, overrides, fields) => {
      expectFieldErrors(await postExpectingNoRows(itemBody(categoryId, overrides)), fields);
    },
  );

  it('when a validation fails, then the 400 is the documented problem shape', async () => {
    const res = await postItem(app, adminToken, itemBody(categoryId, { price: 19.999 }));
    expectProblem(res, 400, 'VALIDATION_FAILED');
    await expectDocumentedResponse(app, 'POST', ITEMS_PATH, res);
  });

  it('when one body breaks many rules at once, then every broken field is listed', async () => {
    const res = await postExpectingNoRows({
      name: '   ',
      category_id: 'three',
      price: '12.345',
      stock: -5,
      skus: [{ sku_code: 'x'.repeat(65), specs: 'red', price: -1, stock: 1.5 }, { price: true }],
      images: ['ftp://x', { sort_order: 1 }],
    });
    expectFieldErrors(res, [
      'name',
      'category_id',
      'price',
      'stock',
      'skus[0].sku_code',
      'skus[0].specs',
      'skus[0].price',
      'skus[0].stock',
      'skus[1].price',
      IMAGE_0,
      /^images\[1\](\.url)?$/,
    ]);
  });

  it('when every field is missing, then all six are listed', async () => {
    expectFieldErrors(await postExpectingNoRows({}), ['name', 'category_id', 'price', 'stock', 'skus', 'images']);
  });

  it('when a duplicate sku_code comes with another SKU error, then both are listed', async () => {
    // Contract §2: `errors` lists every problem found, not only the first.
    const res = await postExpectingNoRows(
      itemBody(categoryId, { skus: [{ sku_code: 'A' }, { sku_code: 'A' }, { sku_code: 'C', price: 19.999 }] }),
    );
    expectFieldErrors(res, ['skus[1].sku_code', 'skus[2].price']);
  });

  it('when the JSON body is not an object, then 400 VALIDATION_FAILED and nothing is written', async () => {
    for (const body of [[itemBody(categoryId)], 'item', 42, null]) {
      const res = await postExpectingNoRows(body);
      expectProblem(res, 400, 'VALIDATION_FAILED');
    }
  });
});

describe('POST /admin/api/items: authentication', () => {
  it('when no token is sent, then 401 UNAUTHENTICATED with WWW-Authenticate realm="admin" and nothing is written', async () => {
    const res = await postExpectingNoRows(itemBody(categoryId), { token: undefined });
    expectProblem(res, 401, 'UNAUTHENTICATED');
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="admin"');
  });

  it('when no token is sent with an invalid body, then still 401, as GraphQL answers: an anonymous caller learns nothing about the rules', async () => {
    // Contract §5: REST and GraphQL can never disagree on validation or auth. GraphQL checks the
    // admin scope before the resolver validates, so the same request there is UNAUTHENTICATED.
    const gql = await app.graphql(CREATE_ITEM, { input: itemInput(categoryId, { price: -1, categoryId: 999_999 }) });
    expect(gqlCode(gql)).toBe('UNAUTHENTICATED');
    const res = await postExpectingNoRows(itemBody(categoryId, { price: -1, category_id: 999_999 }), {
      token: undefined,
    });
    expectProblem(res, 401, 'UNAUTHENTICATED');
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="admin"');
  });

  it('when a customer token is sent, then 401 TOKEN_INVALID (another system) and nothing is written', async () => {
    const customer = await makeCustomer(app);
    const token = await loginAsCustomer(app, customer.username!);
    const res = await postExpectingNoRows(itemBody(categoryId), { token });
    expectProblem(res, 401, 'TOKEN_INVALID');
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="admin", error="invalid_token"');
  });

  it('when the token is not a JWT, then 401 TOKEN_INVALID', async () => {
    expectProblem(await postExpectingNoRows(itemBody(categoryId), { token: 'not-a-jwt' }), 401, 'TOKEN_INVALID');
  });

  it('when the admin token expired more than the 30 s skew ago, then 401 TOKEN_EXPIRED and nothing is written', async () => {
    const admin = await app.db.prisma.admin.findFirstOrThrow({ where: { username: 'root' } });
    const now = Math.floor(Date.now() / 1000);
    // Baseline: the same hand-made token, still valid, is accepted.
    const valid = await signAdminToken({ sub: String(admin.id), iat: now - 10, exp: now + 3590 }, app);
    expect((await postItem(app, valid, itemBody(categoryId, { name: 'Baseline' }))).status).toBe(201);

    const expired = await signAdminToken({ sub: String(admin.id), iat: now - 3700, exp: now - 100 });
    const res = await postExpectingNoRows(itemBody(categoryId), { token: expired });
    expectProblem(res, 401, 'TOKEN_EXPIRED');
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="admin", error="invalid_token"');
  });

  it('when the admin token expired within the 30 s skew, then it is still accepted', async () => {
    const admin = await app.db.prisma.admin.findFirstOrThrow({ where: { username: 'root' } });
    const now = Math.floor(Date.now() / 1000);
    const justExpired = await signAdminToken({ sub: String(admin.id), iat: now - 3600, exp: now - 10 }, app);
    expect((await postItem(app, justExpired, itemBody(categoryId, { name: 'Skew' }))).status).toBe(201);
  });

  it('when the admin has been disabled since logging in, then 403 ACCOUNT_DISABLED and nothing is written', async () => {
    const admin = await makeAdmin(app, { password: 'soon-disabled-pw' });
    const token = await loginAsAdmin(app, { username: admin.username, password: 'soon-disabled-pw' });
    expect((await postItem(app, token, itemBody(categoryId, { name: 'Before disabling' }))).status).toBe(201);
    await app.db.prisma.admin.update({ where: { id: admin.id }, data: { disabled: true } });
    expectProblem(await postExpectingNoRows(itemBody(categoryId), { token }), 403, 'ACCOUNT_DISABLED');
  });
});

describe('POST /admin/api/items: body format', () => {
  it('when the body is sent as text/plain, then 415 UNSUPPORTED_MEDIA_TYPE and nothing is written', async () => {
    const before = await catalogCounts(app);
    const res = await app.request(ITEMS_PATH, {
      method: 'POST',
      rawBody: JSON.stringify(itemBody(categoryId)),
      contentType: 'text/plain',
      token: adminToken,
    });
    expectProblem(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect(await catalogCounts(app)).toEqual(before);
  });

  it('when the body is not valid JSON, then 400 MALFORMED_JSON', async () => {
    const res = await app.request(ITEMS_PATH, {
      method: 'POST',
      rawBody: '{"name": "Trail boot", "price": 19.9,',
      contentType: 'application/json',
      token: adminToken,
    });
    expectProblem(res, 400, 'MALFORMED_JSON');
  });

  it('when the body is larger than 100 KiB, then 413 PAYLOAD_TOO_LARGE', async () => {
    const res = await postExpectingNoRows(itemBody(categoryId, { name: 'x'.repeat(101 * 1024) }));
    expectProblem(res, 413, 'PAYLOAD_TOO_LARGE');
  });
});

describe('/admin/api/items: other methods', () => {
  it('when PUT or DELETE is used, then 405 METHOD_NOT_ALLOWED with Allow naming GET and POST', async () => {
    for (const method of ['PUT', 'DELETE']) {
      const res = await app.request(ITEMS_PATH, { method, token: adminToken });
      expectProblem(res, 405, 'METHOD_NOT_ALLOWED');
      expect(res.headers.get('allow')).toMatch(/\bGET\b.*\bPOST\b|\bPOST\b.*\bGET\b/);
    }
  });
});

describe('POST /admin/api/items: one transaction', () => {
  it('when writing an image fails after the item and its SKUs were written, then 500 INTERNAL with no details and no rows are left', async () => {
    const remove = await failImageInserts(app, 'boom');
    try {
      const before = await catalogCounts(app);
      const body = itemBody(categoryId, {
        name: 'Half-written boot',
        skus: [{ sku_code: 'HALF-1' }, { sku_code: 'HALF-2' }],
        images: ['https://cdn.example.com/fine.jpg', 'https://cdn.example.com/boom.jpg'],
      });
      const res = await postItem(app, adminToken, body);
      expectProblem(res, 500, 'INTERNAL');
      expect(res.body.errors).toBeUndefined();
      expect(res.text).not.toMatch(/boom|forced failure|test_fail|item_images|trigger|prisma|insert|\bat .+:\d+:\d+/i);
      expect(await catalogCounts(app)).toEqual(before);
      expect(await app.db.prisma.item.count({ where: { name: 'Half-written boot' } })).toBe(0);
    } finally {
      await remove();
    }
  });

  it('when the same kind of body is posted without the failure, then it succeeds (the failure was the only problem)', async () => {
    const res = await postItem(
      app,
      adminToken,
      itemBody(categoryId, {
        name: 'Whole boot',
        skus: [{ sku_code: 'W-1' }, { sku_code: 'W-2' }],
        images: ['https://cdn.example.com/boom.jpg'],
      }),
    );
    expect(res.status, res.text).toBe(201);
    expect(res.body.skus).toHaveLength(2);
    expect(res.body.images).toHaveLength(1);
  });
});
