/**
 * Kept item JSON (prisma/migrations/20261211000000_kept_item_json; src/catalog/catalog-json.ts): after
 * every kind of catalogue write — through the real server — every item's kept REST JSON, with its
 * category spliced in, is exactly what catalog-json.ts builds freshly from the item, its SKUs and
 * images; every item has its row and no row outlives its item; and the REST reads answer that text.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REST_ITEM_BUILT_JSON, restItemKeptJson } from '../../src/catalog/catalog-json.ts';
import { keepMissingItemJson } from '../../src/catalog/item-rest-json.ts';
import { maintenanceIndexerSql } from '../../src/search/indexer-sql.ts';
import { loginAsAdmin } from '../helpers/accounts.ts';
import { makeCategory } from '../helpers/catalog.ts';
import { CREATE_ITEM, ITEMS_PATH, itemBody, itemInput, UPDATE_CATEGORY } from '../helpers/catalog-admin.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { csv, ITEM_FILE_HEADER, runImport } from '../transfer/import-helpers.ts';

let app: TestApp;
let owner: string;
let categoryId: number;
let otherCategoryId: number;

beforeAll(async () => {
  // No answer cache: each read below is PostgreSQL's answer now.
  app = await startTestApp({ CATALOG_CACHE_MB: '0', LOGIN_IP_PER_MINUTE: '1000' });
  owner = await loginAsAdmin(app);
  categoryId = (await makeCategory(app, { name: 'Kept "json" \\ 路径' })).id;
  otherCategoryId = (await makeCategory(app, { name: 'Kept other' })).id;
});
afterAll(() => app?.close());

const FROM = 'FROM items i JOIN categories c ON c.id = i.category_id';

/** Every way the kept rows can be wrong, counted over all items; all zero when they are exact. */
async function keptState() {
  const [row] = await app.db.sql.query<{ items: number; missing: number; orphans: number; differing: number }>(
    `SELECT (SELECT count(*)::int FROM items) AS items,
            (SELECT count(*)::int FROM items i WHERE NOT EXISTS (SELECT 1 FROM item_rest_json j WHERE j.item_id = i.id)) AS missing,
            (SELECT count(*)::int FROM item_rest_json j WHERE NOT EXISTS (SELECT 1 FROM items i WHERE i.id = j.item_id)) AS orphans,
            (SELECT count(*)::int ${FROM} JOIN item_rest_json j ON j.item_id = i.id
              WHERE ${restItemKeptJson('j')} IS DISTINCT FROM ${REST_ITEM_BUILT_JSON}) AS differing`,
    [],
  );
  return row!;
}

/** The kept JSON equals the built one for every item, and the public reads answer the built text. */
async function expectExact(step: string) {
  const state = await keptState();
  expect(state, step).toEqual({ items: state.items, missing: 0, orphans: 0, differing: 0 });
  const built = await app.db.sql.query<{ id: number; json: string; visible: boolean }>(
    `SELECT i.id, ${REST_ITEM_BUILT_JSON} AS json, i.visible ${FROM} ORDER BY i.created_at DESC, i.id DESC`,
    [],
  );
  const shown = built.filter((b) => b.visible);
  for (const b of shown) {
    const res = await app.request(`/api/v1/items/${b.id}`);
    expect(res.status, `${step}: item ${b.id}`).toBe(200);
    expect(res.text, `${step}: item ${b.id}`).toBe(b.json);
  }
  const page = await app.request('/api/v1/items?limit=100');
  expect(page.status, step).toBe(200);
  expect(page.text, step).toContain(`"items":[${shown.map((b) => b.json).join(',')}]`);
}

const patch = async (id: number, body: unknown) => {
  const res = await app.request(`${ITEMS_PATH}/${id}`, { method: 'PATCH', body, token: owner });
  expect(res.status, res.text).toBe(200);
  return res.body;
};

describe('kept item JSON', () => {
  let restId: number;
  let gqlId: number;

  it('when items are created by REST and GraphQL, then each has its kept JSON, exact', async () => {
    const rest = await app.request(ITEMS_PATH, {
      method: 'POST',
      token: owner,
      body: itemBody(categoryId, {
        name: 'Kept "boot"\t\\ 头灯 😀',
        description: 'line one\nline two, "quoted", \u0001 control',
        price: 99999999.99,
      }),
    });
    expect(rest.status, rest.text).toBe(201);
    restId = rest.body.id;
    const gql = await app.graphql(
      CREATE_ITEM,
      { input: itemInput(categoryId, { name: 'Kept lamp', skus: [], images: [] }) },
      { token: owner },
    );
    expect(gql.body.errors, JSON.stringify(gql.body.errors)).toBeUndefined();
    gqlId = gql.body.data.createItem.id;
    await expectExact('created');
  });

  it('when fields, SKUs (added, changed, removed) and images (reordered) change, then the kept JSON follows', async () => {
    await patch(restId, { name: 'Kept boot renamed', price: 0.1, stock: 0, category_id: otherCategoryId });
    await expectExact('fields');
    const item = await patch(restId, {
      skus: [
        { sku_code: 'BOOT-RED-42', specs: { color: 'red', size: '42' }, price: 22, stock: 11 },
        { sku_code: 'BOOT-NEW', specs: { 颜色: '红 "深"' }, price: 1234567.8, stock: 1 },
      ],
    });
    expect(item.skus.map((s: { sku_code: string }) => s.sku_code)).toEqual(['BOOT-RED-42', 'BOOT-NEW']);
    await expectExact('skus');
    await patch(restId, {
      images: [
        { url: 'https://cdn.example.com/boot-side.jpg', sort_order: 0 },
        { url: 'https://cdn.example.com/boot.jpg', sort_order: 1 },
      ],
    });
    await expectExact('images');
    await patch(gqlId, {
      skus: [{ sku_code: null, specs: {}, price: 5, stock: 2 }],
      images: ['https://cdn.example.com/l.jpg'],
    });
    await patch(gqlId, { skus: [], images: [] });
    await expectExact('parts removed');
  });

  it('when stock is adjusted, then the SKU’s and the item’s stock and version are kept', async () => {
    const sku = (await app.request(`/admin/api/items/${restId}`, { token: owner })).body.skus[0];
    const res = await app.request('/admin/api/stock-adjustments', {
      token: owner,
      body: { adjustments: [{ sku_id: sku.id, delta: -3 }] },
      headers: { 'Idempotency-Key': 'kept-json-stock' },
    });
    expect(res.status, res.text).toBe(200);
    await expectExact('stock adjustment');
  });

  it('when the status and schedule change, and a schedule passes, then the kept JSON follows', async () => {
    await patch(gqlId, { status: 'draft' });
    await expectExact('draft');
    await patch(gqlId, { status: 'active', publish_at: new Date(Date.now() + 1500).toISOString() });
    await expectExact('scheduled');
    await new Promise((r) => setTimeout(r, 1600));
    await app.db.sql.query('SELECT * FROM item_visibility_flip()', []);
    const [flipped] = await app.db.sql.query<{ visible: boolean }>('SELECT visible FROM items WHERE id = $1', [gqlId]);
    expect(flipped!.visible).toBe(true);
    await expectExact('published by its schedule');
  });

  it('when a file is imported (creating and updating items), then every item is exact', async () => {
    const file = (price: string, stock: number) =>
      csv([
        ITEM_FILE_HEADER,
        ['kept-a', 'Kept A', 'Kept other', price, stock, 'https://cdn.example.com/a.jpg', 'KA-1', '', 1, 'red'],
        ['kept-a', 'Kept A', 'Kept other', price, stock, '', 'KA-2', '3.5', 2, 'blue'],
        ['kept-b', 'Kept B', 'Kept other', '7', 1, '', 'KB-1', '', 1, '黑色'],
      ]);
    expect((await runImport(app, owner, file('10', 3))).status).toBe('succeeded');
    await expectExact('import created');
    expect((await runImport(app, owner, file('11.25', 4))).items.updated).toBe(1);
    await expectExact('import updated');
  });

  it('when a category is renamed, then no kept row changes and the answers show the new name', async () => {
    const before = await app.db.sql.query<{ item_id: number; head: string; tail: string }>(
      'SELECT * FROM item_rest_json ORDER BY item_id',
      [],
    );
    const res = await app.graphql(
      UPDATE_CATEGORY,
      { id: otherCategoryId, input: { name: 'Kept "renamed"' } },
      { token: owner },
    );
    expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
    expect(await app.db.sql.query('SELECT * FROM item_rest_json ORDER BY item_id', [])).toEqual(before);
    await expectExact('category renamed');
    expect((await app.request(`/api/v1/items/${restId}`)).body.category.name).toBe('Kept "renamed"');
  });

  it('when an item is deleted, then its kept row goes with it', async () => {
    const res = await app.request(`${ITEMS_PATH}/${restId}`, { method: 'DELETE', token: owner });
    expect(res.status, res.text).toBe(204);
    await expectExact('deleted');
    expect(await app.db.sql.query('SELECT 1 FROM item_rest_json WHERE item_id = $1', [restId])).toEqual([]);
  });

  it('when rows are written behind the service’s back with the triggers off, then a refresh makes them exact', async () => {
    await app.db.sql.exec(`ALTER TABLE items DISABLE TRIGGER items_rest_json_update;
      UPDATE items SET stock = stock + 1;
      ALTER TABLE items ENABLE TRIGGER items_rest_json_update`);
    expect((await keptState()).differing).toBeGreaterThan(0);
    // The reads answer the kept text (stale here), not a freshly built one.
    const [stale] = await app.db.sql.query<{ id: number; json: string }>(
      `SELECT i.id, ${REST_ITEM_BUILT_JSON} AS json ${FROM} JOIN item_rest_json j ON j.item_id = i.id
        WHERE i.visible AND ${restItemKeptJson('j')} <> ${REST_ITEM_BUILT_JSON} LIMIT 1`,
      [],
    );
    expect((await app.request(`/api/v1/items/${stale!.id}`)).text).not.toBe(stale!.json);
    await app.db.sql.query('SELECT item_rest_json_refresh(NULL)', []);
    await expectExact('refreshed');
  });

  it('when an item is inserted with the triggers off, then the start-up step writes its kept JSON', async () => {
    await app.db.sql.exec(`ALTER TABLE items DISABLE TRIGGER items_rest_json_insert;
      INSERT INTO items (name, category_id, price, stock, updated_at) VALUES ('Kept behind', ${categoryId}, 3, 1, now());
      ALTER TABLE items ENABLE TRIGGER items_rest_json_insert`);
    expect((await keptState()).missing).toBe(1);
    expect(await keepMissingItemJson(maintenanceIndexerSql(app.db.sql))).toBe(1);
    await expectExact('written at start-up');
    expect(await keepMissingItemJson(maintenanceIndexerSql(app.db.sql))).toBe(0);
  });
});
