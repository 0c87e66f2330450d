/**
 * The admin catalogue mutations of contract §5 over GraphQL: updateItem (partial, replacing SKU and
 * image sets, validation, NOT_FOUND), deleteItem (the item vanishes from every read), the category
 * tree rules, and the admin guard on every one of these mutations.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gqlCode, loginAsAdmin, loginAsCustomer, makeAdmin, makeCustomer } from '../helpers/accounts.ts';
import { loadItem, makeCategory, makeItem } from '../helpers/catalog.ts';
import {
  CREATE_CATEGORY,
  CREATE_ITEM,
  catalogCounts,
  DELETE_CATEGORY,
  DELETE_ITEM,
  failImageInserts,
  gqlErrorFields,
  ITEM_QUERY,
  itemBody,
  itemInput,
  postItem,
  signAdminToken,
  UPDATE_CATEGORY,
  UPDATE_ITEM,
} from '../helpers/catalog-admin.ts';
import { type ApiResponse, startTestApp, type TestApp } from '../helpers/test-app.ts';

let app: TestApp;
let adminToken: string;
let customerToken: string;
let shoes: { id: number };
let bags: { id: number };

beforeAll(async () => {
  app = await startTestApp({ LOGIN_IP_PER_MINUTE: '1000' });
  adminToken = await loginAsAdmin(app);
  const customer = await makeCustomer(app);
  customerToken = await loginAsCustomer(app, customer.username!);
  shoes = await makeCategory(app, { name: 'Shoes' });
  bags = await makeCategory(app, { name: 'Bags', sortOrder: 1 });
});
afterAll(() => app.close());

/** Runs an admin GraphQL operation with the admin token. */
const asAdmin = (query: string, variables: Record<string, unknown>) =>
  app.graphql(query, variables, { token: adminToken });

/** Asserts a GraphQL error with `code` and no data for the mutation. */
function expectGqlError(res: ApiResponse, code: string, field: string) {
  expect(gqlCode(res), res.text).toBe(code);
  expect(res.body.data?.[field] ?? null).toBeNull();
}

/** Creates an item through GraphQL (so it looks like one an admin made) and returns it as answered. */
async function createItem(overrides: Record<string, unknown> = {}) {
  const res = await asAdmin(CREATE_ITEM, { input: itemInput(shoes.id, overrides) });
  expect(res.body.errors, res.text).toBeUndefined();
  return res.body.data.createItem;
}

const readItem = async (id: number) => (await app.graphql(ITEM_QUERY, { id })).body.data.item;

describe('createItem over GraphQL', () => {
  it('when input rules are broken, then VALIDATION_FAILED lists every field with camelCase paths', async () => {
    const before = await catalogCounts(app);
    const res = await asAdmin(CREATE_ITEM, {
      input: itemInput(shoes.id, {
        name: ' ',
        skus: [{ skuCode: 'A' }, { skuCode: 'A' }, { price: '1.001', specs: { size: 1 } }],
        images: [{ url: 'ftp://x' }, { url: 'https://cdn.example.com/a.jpg', sortOrder: -1 }],
      }),
    });
    expectGqlError(res, 'VALIDATION_FAILED', 'createItem');
    expect(gqlErrorFields(res)).toEqual(
      expect.arrayContaining([
        'name',
        'skus[1].skuCode',
        'skus[2].price',
        expect.stringMatching(/^skus\[2\]\.specs/),
        'images[0].url',
      ]),
    );
    expect(await catalogCounts(app)).toEqual(before);
  });

  it('when the category does not exist, then VALIDATION_FAILED on categoryId', async () => {
    const res = await asAdmin(CREATE_ITEM, { input: itemInput(999_999) });
    expectGqlError(res, 'VALIDATION_FAILED', 'createItem');
    expect(gqlErrorFields(res)).toEqual(['categoryId']);
  });

  it('when a required input field is missing, then VALIDATION_FAILED, not INTERNAL', async () => {
    // Contract §2: a missing field is 400 VALIDATION_FAILED; GraphQL reports it before any resolver runs.
    const { name: _dropped, ...input } = itemInput(shoes.id);
    const before = await catalogCounts(app);
    const res = await asAdmin(CREATE_ITEM, { input });
    expectGqlError(res, 'VALIDATION_FAILED', 'createItem');
    expect(await catalogCounts(app)).toEqual(before);
  });
});

describe('updateItem', () => {
  it('when only the name is given, then only the name changes and every other field is kept', async () => {
    const before = await createItem();
    const res = await asAdmin(UPDATE_ITEM, { id: before.id, input: { name: 'Renamed boot' } });
    expect(res.body.errors, res.text).toBeUndefined();
    const after = res.body.data.updateItem;
    expect(after).toEqual({
      ...before,
      name: 'Renamed boot',
      version: before.version + 1,
      updatedAt: expect.any(String),
    });
    expect(Date.parse(after.updatedAt)).toBeGreaterThanOrEqual(Date.parse(before.updatedAt));
    expect(await readItem(before.id)).toEqual(after);
    const rest = await app.request(`/api/v1/items/${before.id}`);
    expect(rest.body.name).toBe('Renamed boot');
  });

  it('when the price changes, then SKUs keep their own prices', async () => {
    const before = await createItem();
    const res = await asAdmin(UPDATE_ITEM, { id: before.id, input: { price: '30.00' } });
    expect(res.body.errors, res.text).toBeUndefined();
    const after = res.body.data.updateItem;
    expect(after.price).toBe(30);
    expect(after.skus).toEqual(before.skus);
    expect(after.images).toEqual(before.images);
  });

  it('when stock and category change, then the item moves and shows its new category', async () => {
    const before = await createItem();
    const res = await asAdmin(UPDATE_ITEM, { id: before.id, input: { stock: 0, categoryId: bags.id } });
    expect(res.body.errors, res.text).toBeUndefined();
    expect(res.body.data.updateItem).toMatchObject({
      stock: 0,
      categoryId: bags.id,
      category: { id: bags.id, name: 'Bags', parentId: null, sortOrder: 1 },
      name: before.name,
      price: before.price,
    });
    const listed = await app.request(`/api/v1/items?category_id=${bags.id}&limit=100`);
    expect(listed.body.items.map((i: { id: number }) => i.id)).toContain(before.id);
  });

  it('when skus are given, then they replace the whole set; a SKU without price takes the item price', async () => {
    const before = await createItem();
    const oldSkuIds = before.skus.map((s: { id: number }) => s.id);
    const res = await asAdmin(UPDATE_ITEM, {
      id: before.id,
      input: {
        skus: [
          // An old code may come back: the old set is gone.
          { skuCode: 'BOOT-RED-42' },
          { skuCode: 'NEW-L', specs: { size: 'L' }, price: '5.50', stock: 4 },
        ],
      },
    });
    expect(res.body.errors, res.text).toBeUndefined();
    const after = res.body.data.updateItem;
    expect(after.skus.map(({ id: _id, ...s }: { id: number }) => s)).toEqual([
      { skuCode: 'BOOT-RED-42', specs: {}, price: before.price, stock: 0 },
      { skuCode: 'NEW-L', specs: { size: 'L' }, price: 5.5, stock: 4 },
    ]);
    expect(await app.db.prisma.sku.count({ where: { id: { in: oldSkuIds } } })).toBe(0);
    expect(await app.db.prisma.sku.count({ where: { itemId: before.id } })).toBe(2);
    expect(after.images).toEqual(before.images);
  });

  it('when skus and a new price are given together, then a SKU without price takes the new price', async () => {
    const before = await createItem();
    const res = await asAdmin(UPDATE_ITEM, { id: before.id, input: { price: 7, skus: [{ skuCode: 'P' }] } });
    expect(res.body.errors, res.text).toBeUndefined();
    expect(res.body.data.updateItem.skus.map((s: { price: number }) => s.price)).toEqual([7]);
  });

  it('when images are given, then they replace the whole set with index sort orders by default; empty lists clear', async () => {
    const before = await createItem();
    const res = await asAdmin(UPDATE_ITEM, {
      id: before.id,
      input: {
        images: [
          { url: 'https://cdn.example.com/new-1.jpg' },
          { url: 'https://cdn.example.com/new-2.jpg', sortOrder: 9 },
        ],
      },
    });
    expect(res.body.errors, res.text).toBeUndefined();
    expect(res.body.data.updateItem.images.map(({ id: _id, ...i }: { id: number }) => i)).toEqual([
      { url: 'https://cdn.example.com/new-1.jpg', sortOrder: 0 },
      { url: 'https://cdn.example.com/new-2.jpg', sortOrder: 9 },
    ]);
    expect(res.body.data.updateItem.skus).toEqual(before.skus);

    const cleared = await asAdmin(UPDATE_ITEM, { id: before.id, input: { skus: [], images: [] } });
    expect(cleared.body.errors, cleared.text).toBeUndefined();
    expect(cleared.body.data.updateItem).toMatchObject({ skus: [], images: [], name: before.name });
    expect(await app.db.prisma.itemImage.count({ where: { itemId: before.id } })).toBe(0);
  });

  it('when the input is empty, then nothing but updatedAt and the version (one more: every write is one) changes', async () => {
    const before = await createItem();
    const res = await asAdmin(UPDATE_ITEM, { id: before.id, input: {} });
    expect(res.body.errors, res.text).toBeUndefined();
    expect(res.body.data.updateItem).toEqual({ ...before, version: before.version + 1, updatedAt: expect.any(String) });
  });

  it.each<[string, Record<string, unknown>, string[]]>([
    ['the name is empty', { name: '  ' }, ['name']],
    ['the name has 201 characters', { name: 'n'.repeat(201) }, ['name']],
    ['the price has 3 fractional digits', { price: 19.999 }, ['price']],
    ['the price is negative', { price: '-1' }, ['price']],
    ['the stock is negative', { stock: -1 }, ['stock']],
    ['the category does not exist', { categoryId: 999_999 }, ['categoryId']],
    ['a sku code repeats', { skus: [{ skuCode: 'A' }, { skuCode: 'A' }] }, ['skus[1].skuCode']],
    ['a SKU price has 3 fractional digits', { skus: [{}, {}, { price: '1.001' }] }, ['skus[2].price']],
    ['an image is not http(s)', { images: [{ url: 'javascript:alert(1)' }] }, ['images[0].url']],
    [
      'several fields are wrong',
      { name: '', price: -1, stock: -1, skus: [{ skuCode: 'c'.repeat(65) }] },
      ['name', 'price', 'stock', 'skus[0].skuCode'],
    ],
  ])(
    'when %s, then VALIDATION_FAILED names the field (camelCase) and the item is unchanged',
    async (_label, input, fields) => {
      const before = await createItem();
      const stored = await loadItem(app, before.id);
      const res = await asAdmin(UPDATE_ITEM, { id: before.id, input });
      expectGqlError(res, 'VALIDATION_FAILED', 'updateItem');
      expect(gqlErrorFields(res).sort()).toEqual([...fields].sort());
      expect(await loadItem(app, before.id)).toEqual(stored);
    },
  );

  it.each<[string, Record<string, unknown>]>([
    ['stock is 1.5 (not an Int)', { stock: 1.5 }],
    ['categoryId is a string', { categoryId: 'shoes' }],
    ['price is a boolean', { price: true }],
    ['skus is a string', { skus: 'BOOT' }],
    ['an image has no url', { images: [{ sortOrder: 1 }] }],
  ])(
    'when %s (rejected by GraphQL types before the resolver), then VALIDATION_FAILED, not INTERNAL',
    async (_label, input) => {
      // Contract §2: a field of the wrong type is 400 VALIDATION_FAILED; INTERNAL means a server fault.
      const before = await createItem();
      const stored = await loadItem(app, before.id);
      const res = await asAdmin(UPDATE_ITEM, { id: before.id, input });
      expectGqlError(res, 'VALIDATION_FAILED', 'updateItem');
      expect(await loadItem(app, before.id)).toEqual(stored);
    },
  );

  it('when null is sent for a field that cannot be empty, then it is refused or ignored, never a 500, and the item keeps its value', async () => {
    const before = await createItem();
    const res = await asAdmin(UPDATE_ITEM, { id: before.id, input: { name: null, price: null, stock: null } });
    expect(['VALIDATION_FAILED', undefined]).toContain(gqlCode(res));
    expect(await readItem(before.id)).toMatchObject({ name: before.name, price: before.price, stock: before.stock });
  });

  it('when writing the new images fails half-way, then the whole update is rolled back', async () => {
    const before = await createItem();
    const stored = await loadItem(app, before.id);
    const remove = await failImageInserts(app, 'update-boom');
    try {
      const res = await asAdmin(UPDATE_ITEM, {
        id: before.id,
        input: {
          name: 'Half-updated',
          price: 1,
          skus: [{ skuCode: 'HALF' }],
          images: [{ url: 'https://cdn.example.com/ok.jpg' }, { url: 'https://cdn.example.com/update-boom.jpg' }],
        },
      });
      expectGqlError(res, 'INTERNAL', 'updateItem');
      expect(res.text).not.toMatch(/update-boom|forced failure|item_images|trigger|prisma/i);
    } finally {
      await remove();
    }
    expect(await loadItem(app, before.id)).toEqual(stored);
  });

  it('when the item does not exist, then NOT_FOUND and nothing is written', async () => {
    const before = await catalogCounts(app);
    const res = await asAdmin(UPDATE_ITEM, { id: 999_999, input: { name: 'Ghost', skus: [{ skuCode: 'G' }] } });
    expectGqlError(res, 'NOT_FOUND', 'updateItem');
    expect(await catalogCounts(app)).toEqual(before);
  });
});

describe('deleteItem', () => {
  it('when an item is deleted, then true, and it vanishes from every read with its SKUs and images', async () => {
    const created = await postItem(app, adminToken, itemBody(shoes.id, { name: 'Doomed boot' }));
    expect(created.status, created.text).toBe(201);
    const id = created.body.id as number;
    const listBefore = await app.request('/api/v1/items?limit=100');

    const res = await asAdmin(DELETE_ITEM, { id });
    expect(res.body, res.text).toEqual({ data: { deleteItem: true } });

    const detail = await app.request(`/api/v1/items/${id}`);
    expect(detail.status).toBe(404);
    expect(detail.body.code).toBe('NOT_FOUND');
    const list = await app.request('/api/v1/items?limit=100');
    expect(list.body.items.map((i: { id: number }) => i.id)).not.toContain(id);
    expect(list.body.total).toBe(listBefore.body.total - 1);
    const byKeyword = await app.request('/api/v1/items?keyword=Doomed');
    expect(byKeyword.body.items).toEqual([]);
    expect(await readItem(id)).toBeNull();
    const gqlList = await app.graphql('{ items(limit: 100) { items { id } } }');
    expect(gqlList.body.data.items.items.map((i: { id: number }) => i.id)).not.toContain(id);
    expect(await app.db.prisma.sku.count({ where: { itemId: id } })).toBe(0);
    expect(await app.db.prisma.itemImage.count({ where: { itemId: id } })).toBe(0);
  });

  it('when a deleted or unknown item is deleted or updated, then NOT_FOUND', async () => {
    const created = await createItem({ name: 'Deleted twice' });
    expect((await asAdmin(DELETE_ITEM, { id: created.id })).body.data.deleteItem).toBe(true);
    expectGqlError(await asAdmin(DELETE_ITEM, { id: created.id }), 'NOT_FOUND', 'deleteItem');
    expectGqlError(await asAdmin(UPDATE_ITEM, { id: created.id, input: { name: 'Back' } }), 'NOT_FOUND', 'updateItem');
    expectGqlError(await asAdmin(DELETE_ITEM, { id: 999_999 }), 'NOT_FOUND', 'deleteItem');
  });
});

const categoriesOverRest = async () =>
  (await app.request('/api/v1/categories')).body.categories as Array<{
    id: number;
    name: string;
    parent_id: number | null;
    sort_order: number;
  }>;

describe('createCategory', () => {
  it('when only a name is given, then a top-level category with sort order 0 is created and listed', async () => {
    const res = await asAdmin(CREATE_CATEGORY, { input: { name: 'Hats' } });
    expect(res.body.errors, res.text).toBeUndefined();
    const hats = res.body.data.createCategory;
    expect(hats).toEqual({ id: expect.any(Number), name: 'Hats', parentId: null, sortOrder: 0 });
    expect(await categoriesOverRest()).toContainEqual({ id: hats.id, name: 'Hats', parent_id: null, sort_order: 0 });
  });

  it('when a parent and sort order are given, then the sub-category is created under it', async () => {
    const res = await asAdmin(CREATE_CATEGORY, { input: { name: 'Running', parentId: shoes.id, sortOrder: 4 } });
    expect(res.body.errors, res.text).toBeUndefined();
    expect(res.body.data.createCategory).toEqual({
      id: expect.any(Number),
      name: 'Running',
      parentId: shoes.id,
      sortOrder: 4,
    });
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['the parent does not exist', { name: 'Orphan', parentId: 999_999 }, 'parentId'],
    ['the name is empty', { name: '   ' }, 'name'],
    ['the name has 101 characters', { name: 'c'.repeat(101) }, 'name'],
  ])('when %s, then VALIDATION_FAILED on that field and nothing is created', async (_label, input, field) => {
    const before = await app.db.prisma.category.count();
    const res = await asAdmin(CREATE_CATEGORY, { input });
    expectGqlError(res, 'VALIDATION_FAILED', 'createCategory');
    expect(gqlErrorFields(res)).toEqual([field]);
    expect(await app.db.prisma.category.count()).toBe(before);
  });
});

describe('updateCategory', () => {
  /** root > child > grandchild, plus a separate top-level category. */
  async function tree() {
    const root = await makeCategory(app, { name: 'Root' });
    const child = await makeCategory(app, { name: 'Child', parentId: root.id });
    const grandchild = await makeCategory(app, { name: 'Grandchild', parentId: child.id });
    const other = await makeCategory(app, { name: 'Other' });
    return { root, child, grandchild, other };
  }

  it('when it is renamed, moved and re-ordered, then every read shows the change', async () => {
    const { child, other } = await tree();
    const res = await asAdmin(UPDATE_CATEGORY, {
      id: child.id,
      input: { name: 'Moved', parentId: other.id, sortOrder: 7 },
    });
    expect(res.body.errors, res.text).toBeUndefined();
    expect(res.body.data.updateCategory).toEqual({ id: child.id, name: 'Moved', parentId: other.id, sortOrder: 7 });
    expect(await categoriesOverRest()).toContainEqual({
      id: child.id,
      name: 'Moved',
      parent_id: other.id,
      sort_order: 7,
    });
  });

  it('when parentId is null, then the category becomes top-level', async () => {
    const { child } = await tree();
    const res = await asAdmin(UPDATE_CATEGORY, { id: child.id, input: { name: 'Child', parentId: null } });
    expect(res.body.errors, res.text).toBeUndefined();
    expect(res.body.data.updateCategory.parentId).toBeNull();
  });

  it('when the new parent is the category itself, its child, its grandchild or unknown, then VALIDATION_FAILED on parentId and nothing changes', async () => {
    const { root, child, grandchild } = await tree();
    for (const parentId of [root.id, child.id, grandchild.id, 999_999]) {
      const res = await asAdmin(UPDATE_CATEGORY, { id: root.id, input: { name: 'Root renamed', parentId } });
      expectGqlError(res, 'VALIDATION_FAILED', 'updateCategory');
      expect(gqlErrorFields(res)).toEqual(['parentId']);
    }
    expect(await app.db.prisma.category.findUniqueOrThrow({ where: { id: root.id } })).toMatchObject({
      name: 'Root',
      parentId: null,
    });
  });

  it('when a sub-category moves under a sibling branch that is not its descendant, then it is allowed', async () => {
    const { root, grandchild } = await tree();
    const res = await asAdmin(UPDATE_CATEGORY, { id: grandchild.id, input: { name: 'Grandchild', parentId: root.id } });
    expect(res.body.errors, res.text).toBeUndefined();
    expect(res.body.data.updateCategory.parentId).toBe(root.id);
  });

  it('when the category does not exist, then NOT_FOUND', async () => {
    expectGqlError(
      await asAdmin(UPDATE_CATEGORY, { id: 999_999, input: { name: 'Ghost' } }),
      'NOT_FOUND',
      'updateCategory',
    );
  });

  it('when the name is empty, then VALIDATION_FAILED on name', async () => {
    const { other } = await tree();
    const res = await asAdmin(UPDATE_CATEGORY, { id: other.id, input: { name: '' } });
    expectGqlError(res, 'VALIDATION_FAILED', 'updateCategory');
    expect(gqlErrorFields(res)).toEqual(['name']);
  });
});

describe('deleteCategory', () => {
  it('when the category is unused, then true and it is gone from the list; deleting it again is NOT_FOUND', async () => {
    const spare = await makeCategory(app, { name: 'Spare' });
    const res = await asAdmin(DELETE_CATEGORY, { id: spare.id });
    expect(res.body, res.text).toEqual({ data: { deleteCategory: true } });
    expect((await categoriesOverRest()).map((c) => c.id)).not.toContain(spare.id);
    expectGqlError(await asAdmin(DELETE_CATEGORY, { id: spare.id }), 'NOT_FOUND', 'deleteCategory');
  });

  it('when items use the category, then VALIDATION_FAILED and it stays; once the item is deleted, it can go', async () => {
    const used = await makeCategory(app, { name: 'Used' });
    const item = await makeItem(app, { categoryId: used.id });
    const refused = await asAdmin(DELETE_CATEGORY, { id: used.id });
    expectGqlError(refused, 'VALIDATION_FAILED', 'deleteCategory');
    expect(await app.db.prisma.category.count({ where: { id: used.id } })).toBe(1);
    expect(await app.db.prisma.item.count({ where: { id: item.id } })).toBe(1);

    expect((await asAdmin(DELETE_ITEM, { id: item.id })).body.data.deleteItem).toBe(true);
    expect((await asAdmin(DELETE_CATEGORY, { id: used.id })).body.data.deleteCategory).toBe(true);
  });

  it('when sub-categories use the category, then VALIDATION_FAILED and both stay', async () => {
    const parent = await makeCategory(app, { name: 'Parent' });
    const kid = await makeCategory(app, { name: 'Kid', parentId: parent.id });
    expectGqlError(await asAdmin(DELETE_CATEGORY, { id: parent.id }), 'VALIDATION_FAILED', 'deleteCategory');
    expect(await app.db.prisma.category.count({ where: { id: { in: [parent.id, kid.id] } } })).toBe(2);
  });

  it('when the category does not exist, then NOT_FOUND', async () => {
    expectGqlError(await asAdmin(DELETE_CATEGORY, { id: 999_999 }), 'NOT_FOUND', 'deleteCategory');
  });
});

describe('the admin guard on catalogue mutations', () => {
  let itemId: number;
  let categoryId: number;
  beforeAll(async () => {
    categoryId = (await makeCategory(app, { name: 'Guarded' })).id;
    itemId = (await makeItem(app, { categoryId, name: 'Guarded item' })).id;
  });

  const mutations: Array<[string, string, () => Record<string, unknown>]> = [
    ['createItem', CREATE_ITEM, () => ({ input: itemInput(categoryId, { name: 'Sneaky' }) })],
    ['updateItem', UPDATE_ITEM, () => ({ id: itemId, input: { name: 'Sneaky' } })],
    ['deleteItem', DELETE_ITEM, () => ({ id: itemId })],
    ['createCategory', CREATE_CATEGORY, () => ({ input: { name: 'Sneaky' } })],
    ['updateCategory', UPDATE_CATEGORY, () => ({ id: categoryId, input: { name: 'Sneaky' } })],
    ['deleteCategory', DELETE_CATEGORY, () => ({ id: categoryId })],
  ];

  /** Everything the guarded mutations could have touched. */
  const snapshot = async () => ({
    counts: await catalogCounts(app),
    categories: await app.db.prisma.category.count(),
    item: await loadItem(app, itemId),
    category: await app.db.prisma.category.findUniqueOrThrow({ where: { id: categoryId } }),
  });

  it.each(mutations)(
    'when %s is called with a customer token, then TOKEN_INVALID and nothing changes',
    async (field, query, vars) => {
      const before = await snapshot();
      expectGqlError(await app.graphql(query, vars(), { token: customerToken }), 'TOKEN_INVALID', field);
      expect(await snapshot()).toEqual(before);
    },
  );

  it.each(mutations)(
    'when %s is called without a token, then UNAUTHENTICATED and nothing changes',
    async (field, query, vars) => {
      const before = await snapshot();
      expectGqlError(await app.graphql(query, vars()), 'UNAUTHENTICATED', field);
      expect(await snapshot()).toEqual(before);
    },
  );

  it('when an expired admin token is used, then TOKEN_EXPIRED', async () => {
    const admin = await app.db.prisma.admin.findFirstOrThrow({ where: { username: 'root' } });
    const now = Math.floor(Date.now() / 1000);
    const token = await signAdminToken({ sub: String(admin.id), iat: now - 7200, exp: now - 3600 });
    expectGqlError(
      await app.graphql(CREATE_CATEGORY, { input: { name: 'Late' } }, { token }),
      'TOKEN_EXPIRED',
      'createCategory',
    );
  });

  it('when the admin has been disabled, then ACCOUNT_DISABLED and nothing changes', async () => {
    const admin = await makeAdmin(app, { password: 'disabled-later-pw' });
    const token = await loginAsAdmin(app, { username: admin.username, password: 'disabled-later-pw' });
    await app.db.prisma.admin.update({ where: { id: admin.id }, data: { disabled: true } });
    const before = await snapshot();
    expectGqlError(
      await app.graphql(UPDATE_ITEM, { id: itemId, input: { name: 'Sneaky' } }, { token }),
      'ACCOUNT_DISABLED',
      'updateItem',
    );
    expectGqlError(
      await app.graphql(DELETE_CATEGORY, { id: categoryId }, { token }),
      'ACCOUNT_DISABLED',
      'deleteCategory',
    );
    expect(await snapshot()).toEqual(before);
  });
});
