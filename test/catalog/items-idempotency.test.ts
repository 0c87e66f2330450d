/**
 * `Idempotency-Key` on item creation (contract §4.4): a retry replays the first 201 without writing,
 * another body under the same key is a 409, keys are per admin, and racing retries still create one
 * item. Also: REST and GraphQL `createItem` build the very same item.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, gqlCode, loginAsAdmin, makeAdmin } from '../helpers/accounts.ts';
import { graphqlItemOfRest, makeCategory } from '../helpers/catalog.ts';
import {
  CREATE_ITEM,
  catalogCounts,
  DELETE_ITEM,
  failImageInserts,
  ITEM_QUERY,
  itemBody,
  itemInput,
  postItem,
} from '../helpers/catalog-admin.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

let app: TestApp;
let adminToken: string;
let category: { id: number; name: string; parentId: number | null; sortOrder: number };

beforeAll(async () => {
  app = await startTestApp({ LOGIN_IP_PER_MINUTE: '1000' });
  adminToken = await loginAsAdmin(app);
  category = await makeCategory(app, { name: 'Outdoor', sortOrder: 3 });
});
afterAll(() => app.close());

let keySequence = 0;
/** A key no other test uses. */
const newKey = (label = 'key') => `${label}-${++keySequence}-${Date.now()}`;
const withKey = (key: string) => ({ 'Idempotency-Key': key });

describe('Idempotency-Key on POST /admin/api/items', () => {
  it('when a request is retried with the same key and body, then 201 with the same item and Location, and nothing new is written', async () => {
    const key = newKey();
    const body = itemBody(category.id, { name: 'Replayed boot' });
    const first = await postItem(app, adminToken, body, withKey(key));
    expect(first.status, first.text).toBe(201);
    const afterFirst = await catalogCounts(app);

    for (let i = 0; i < 2; i++) {
      const again = await postItem(app, adminToken, body, withKey(key));
      expect(again.status, again.text).toBe(201);
      expect(again.body).toEqual(first.body);
      expect(again.headers.get('location')).toBe(`/api/v1/items/${first.body.id}`);
    }
    expect(await catalogCounts(app)).toEqual(afterFirst);
    expect(await app.db.prisma.item.count({ where: { name: 'Replayed boot' } })).toBe(1);
  });

  it('when the retry has the same fields in another key order, then it is the same body and replays', async () => {
    const key = newKey();
    const body = itemBody(category.id, { name: 'Reordered boot' });
    const first = await postItem(app, adminToken, body, withKey(key));
    expect(first.status, first.text).toBe(201);
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const again = await postItem(app, adminToken, reordered, withKey(key));
    expect(again.status, again.text).toBe(201);
    expect(again.body.id).toBe(first.body.id);
  });

  it('when the same key comes with a different body, then 409 IDEMPOTENCY_CONFLICT and nothing is written', async () => {
    const key = newKey();
    const first = await postItem(app, adminToken, itemBody(category.id, { name: 'Original' }), withKey(key));
    expect(first.status, first.text).toBe(201);
    const before = await catalogCounts(app);
    for (const other of [
      itemBody(category.id, { name: 'Changed' }),
      itemBody(category.id, { name: 'Original', price: 20 }),
      itemBody(category.id, { name: 'Original', images: [] }),
    ]) {
      expectProblem(await postItem(app, adminToken, other, withKey(key)), 409, 'IDEMPOTENCY_CONFLICT');
    }
    expect(await catalogCounts(app)).toEqual(before);
    // The conflict did not replace what the key remembers: the original body still replays.
    const again = await postItem(app, adminToken, itemBody(category.id, { name: 'Original' }), withKey(key));
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
  });

  it('when another admin uses the same key, then it is independent: a new item, and no conflict either way', async () => {
    const key = newKey('shared');
    const other = await makeAdmin(app, { password: 'second-admin-pw' });
    const otherToken = await loginAsAdmin(app, { username: other.username, password: 'second-admin-pw' });
    const body = itemBody(category.id, { name: 'Shared key boot' });

    const mine = await postItem(app, adminToken, body, withKey(key));
    const theirs = await postItem(app, otherToken, body, withKey(key));
    expect(mine.status, mine.text).toBe(201);
    expect(theirs.status, theirs.text).toBe(201);
    expect(theirs.body.id).not.toBe(mine.body.id);

    const theirsOtherBody = await postItem(
      app,
      otherToken,
      itemBody(category.id, { name: 'Theirs only' }),
      withKey(newKey('x')),
    );
    expect(theirsOtherBody.status).toBe(201);
    // Each admin's replay returns their own item.
    expect((await postItem(app, adminToken, body, withKey(key))).body.id).toBe(mine.body.id);
    expect((await postItem(app, otherToken, body, withKey(key))).body.id).toBe(theirs.body.id);
  });

  it('when the key is longer than 255 characters, then 400 VALIDATION_FAILED and nothing is written; 255 is fine', async () => {
    const before = await catalogCounts(app);
    const res = await postItem(app, adminToken, itemBody(category.id), withKey('k'.repeat(256)));
    expectProblem(res, 400, 'VALIDATION_FAILED');
    expect(res.body.errors?.length).toBeGreaterThan(0);
    expect(await catalogCounts(app)).toEqual(before);

    const longest = await postItem(
      app,
      adminToken,
      itemBody(category.id, { name: 'Longest key' }),
      withKey('k'.repeat(255)),
    );
    expect(longest.status, longest.text).toBe(201);
  });

  it('when five identical requests with one key race, then all answer 201 with one and the same item', async () => {
    const key = newKey('race');
    const body = itemBody(category.id, { name: 'Raced boot' });
    const before = await catalogCounts(app);
    const answers = await Promise.all(Array.from({ length: 5 }, () => postItem(app, adminToken, body, withKey(key))));
    for (const res of answers) expect(res.status, res.text).toBe(201);
    const ids = new Set(answers.map((r) => r.body.id));
    expect(ids.size).toBe(1);
    const after = await catalogCounts(app);
    expect(after.items - before.items).toBe(1);
    expect(after.skus - before.skus).toBe(2);
    expect(after.images - before.images).toBe(2);
    expect(await app.db.prisma.item.count({ where: { name: 'Raced boot' } })).toBe(1);
  });

  it('when a request with a key fails validation, then the key is not used up', async () => {
    const key = newKey();
    expectProblem(
      await postItem(app, adminToken, itemBody(category.id, { price: -1 }), withKey(key)),
      400,
      'VALIDATION_FAILED',
    );
    const res = await postItem(app, adminToken, itemBody(category.id, { name: 'After a 400' }), withKey(key));
    expect(res.status, res.text).toBe(201);
  });

  it('when creation with a key fails half-way, then nothing is remembered and a retry creates the item', async () => {
    const key = newKey();
    const body = itemBody(category.id, {
      name: 'Retried after failure',
      images: ['https://cdn.example.com/kaboom.jpg'],
    });
    const remove = await failImageInserts(app, 'kaboom');
    const before = await catalogCounts(app);
    try {
      expectProblem(await postItem(app, adminToken, body, withKey(key)), 500, 'INTERNAL');
      expect(await catalogCounts(app)).toEqual(before);
    } finally {
      await remove();
    }
    const retry = await postItem(app, adminToken, body, withKey(key));
    expect(retry.status, retry.text).toBe(201);
    expect((await catalogCounts(app)).items).toBe(before.items + 1);
  });

  it('when the key is older than 24 h, then it is forgotten: the same key creates a new item, even with another body', async () => {
    const key = newKey('old');
    const first = await postItem(app, adminToken, itemBody(category.id, { name: 'Yesterday' }), withKey(key));
    expect(first.status).toBe(201);
    const past = new Date(Date.now() - 25 * 3600 * 1000);
    await app.db.prisma.idempotencyRecord.updateMany({
      where: { key },
      data: { createdAt: past, expiresAt: new Date(past.getTime() + 24 * 3600 * 1000) },
    });
    const same = await postItem(app, adminToken, itemBody(category.id, { name: 'Yesterday' }), withKey(key));
    expect(same.status, same.text).toBe(201);
    expect(same.body.id).not.toBe(first.body.id);
  });

  it('when the item created under a key was deleted, then a retry neither fails with 500 nor creates another item', async () => {
    const key = newKey('deleted');
    const body = itemBody(category.id, { name: 'Deleted later' });
    const first = await postItem(app, adminToken, body, withKey(key));
    expect(first.status).toBe(201);
    const del = await app.graphql(DELETE_ITEM, { id: first.body.id }, { token: adminToken });
    expect(del.body.data?.deleteItem, del.text).toBe(true);
    const before = await catalogCounts(app);
    const retry = await postItem(app, adminToken, body, withKey(key));
    expect(retry.status, retry.text).not.toBe(500);
    expect((await catalogCounts(app)).items).toBe(before.items);
  });

  it('when requests carry no key, then each one creates an item', async () => {
    const body = itemBody(category.id, { name: 'Keyless boot' });
    const a = await postItem(app, adminToken, body);
    const b = await postItem(app, adminToken, body);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.id).not.toBe(b.body.id);
  });
});

describe('GraphQL createItem and idempotencyKey', () => {
  it('when GraphQL createItem gets the same key and input twice, then the same item; another input is IDEMPOTENCY_CONFLICT', async () => {
    const key = newKey('gql');
    const input = itemInput(category.id, { name: 'GraphQL keyed' });
    const first = await app.graphql(CREATE_ITEM, { input, key }, { token: adminToken });
    expect(first.body.errors, first.text).toBeUndefined();
    const before = await catalogCounts(app);
    const again = await app.graphql(CREATE_ITEM, { input, key }, { token: adminToken });
    expect(again.body.data.createItem).toEqual(first.body.data.createItem);
    expect(await catalogCounts(app)).toEqual(before);

    const other = await app.graphql(CREATE_ITEM, { input: { ...input, stock: 1 }, key }, { token: adminToken });
    expect(gqlCode(other)).toBe('IDEMPOTENCY_CONFLICT');
    expect(await catalogCounts(app)).toEqual(before);
  });

  it('when GraphQL gets a key of 256 characters, then VALIDATION_FAILED and nothing is written', async () => {
    const before = await catalogCounts(app);
    const res = await app.graphql(
      CREATE_ITEM,
      { input: itemInput(category.id), key: 'k'.repeat(256) },
      { token: adminToken },
    );
    expect(gqlCode(res)).toBe('VALIDATION_FAILED');
    expect(await catalogCounts(app)).toEqual(before);
  });
});

describe('REST and GraphQL parity', () => {
  it('when the same item is created over REST and over GraphQL, then both are the same field by field', async () => {
    const rest = await postItem(app, adminToken, itemBody(category.id, { name: 'Parity boot', price: '19.90' }));
    expect(rest.status, rest.text).toBe(201);
    const gql = await app.graphql(
      CREATE_ITEM,
      { input: itemInput(category.id, { name: 'Parity boot', price: '19.90' }) },
      { token: adminToken },
    );
    expect(gql.body.errors, gql.text).toBeUndefined();
    const created = gql.body.data.createItem;

    // Everything but the server-made ids, handles (the second is numbered) and timestamps is equal.
    const comparable = (item: any) => ({
      ...item,
      id: 0,
      handle: '',
      createdAt: '',
      updatedAt: '',
      skus: item.skus.map((s: any) => ({ ...s, id: 0 })),
      images: item.images.map((i: any) => ({ ...i, id: 0 })),
    });
    expect(comparable(created)).toEqual(comparable(graphqlItemOfRest(rest.body, category)));
    expect(created.category).toEqual({ id: category.id, name: 'Outdoor', parentId: null, sortOrder: 3 });

    // Each protocol reads the other's item exactly as it was answered at creation.
    const gqlRead = await app.graphql(ITEM_QUERY, { id: rest.body.id });
    expect(gqlRead.body.data.item).toEqual(graphqlItemOfRest(rest.body, category));
    const restRead = await app.request(`/api/v1/items/${created.id}`);
    expect(restRead.status).toBe(200);
    expect(graphqlItemOfRest(restRead.body, category)).toEqual(created);
  });

  it('when the same invalid input is sent over REST and GraphQL, then both name the same fields (snake_case vs camelCase)', async () => {
    const rest = await postItem(
      app,
      adminToken,
      itemBody(category.id, { price: 19.999, skus: [{ sku_code: 'A' }, { sku_code: 'A', price: 1 }] }),
    );
    expectProblem(rest, 400, 'VALIDATION_FAILED');
    const gql = await app.graphql(
      CREATE_ITEM,
      { input: itemInput(category.id, { price: 19.999, skus: [{ skuCode: 'A' }, { skuCode: 'A', price: 1 }] }) },
      { token: adminToken },
    );
    expect(gqlCode(gql)).toBe('VALIDATION_FAILED');
    const gqlFields = gql.body.errors[0].extensions.errors.map((e: { field: string }) => e.field);
    expect(rest.body.errors.map((e: { field: string }) => e.field)).toEqual(['price', 'skus[1].sku_code']);
    expect(gqlFields).toEqual(['price', 'skus[1].skuCode']);
  });
});
