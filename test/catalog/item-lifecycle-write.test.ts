/**
 * Contract §12.1, the write side: every Item answer shows `status`, `publish_at`, `unpublish_at`,
 * `handle` and `version`; creation and `updateItem` take status, schedule and handle (handles made
 * from the name when left out, unique, compared case-insensitively); `setItemsStatus` and `deleteItems`
 * in bulk; the
 * audit entries of each (§12.2); every refusal is a 400 VALIDATION_FAILED naming its field, with
 * nothing written — over REST and GraphQL alike.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, gqlCode, loginAsAdmin, makeAdmin } from '../helpers/accounts.ts';
import { errorFields, graphqlItemOfRest, loadItem, makeCategory, restItemOf } from '../helpers/catalog.ts';
import {
  CREATE_ITEM,
  catalogCounts,
  gqlErrorFields,
  ITEM_QUERY,
  ITEMS_PATH,
  itemBody,
  itemInput,
  postItem,
  UPDATE_ITEM,
} from '../helpers/catalog-admin.ts';
import { expectDocumentedResponse } from '../helpers/openapi.ts';
import { type ApiResponse, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { auditEntries } from '../helpers/trust.ts';

let app: TestApp;
let owner: string;
let category: { id: number; name: string; parentId: number | null; sortOrder: number };

const SET_ITEMS_STATUS = /* GraphQL */ `
  mutation SetItemsStatus($ids: [Int!]!, $status: ItemStatus!) { setItemsStatus(ids: $ids, status: $status) }`;
const DELETE_ITEMS = /* GraphQL */ `mutation DeleteItems($ids: [Int!]!) { deleteItems(ids: $ids) }`;

beforeAll(async () => {
  app = await startTestApp({ LOGIN_IP_PER_MINUTE: '1000' });
  owner = await loginAsAdmin(app);
  category = await makeCategory(app, { name: 'Lifecycle' });
});
afterAll(() => app.close());

const gql = (query: string, variables: Record<string, unknown>, token = owner) =>
  app.graphql(query, variables, { token });

/** Creates an item over REST (overrides in snake_case) and returns its 201 body. */
async function created(overrides: Record<string, unknown> = {}) {
  const res = await postItem(app, owner, itemBody(category.id, { skus: [], images: [], ...overrides }));
  expect(res.status, res.text).toBe(201);
  return res.body;
}

/** `updateItem` over GraphQL; answers the item (camelCase) or throws with the answer. */
async function updated(id: number, input: Record<string, unknown>) {
  const res = await gql(UPDATE_ITEM, { id, input });
  expect(res.body.errors, res.text).toBeUndefined();
  return res.body.data.updateItem;
}

function expectGqlFields(res: ApiResponse, fields: string[]) {
  expect(gqlCode(res), res.text).toBe('VALIDATION_FAILED');
  expect(gqlErrorFields(res)).toEqual(fields);
}

/** 1000 items written straight into the database (handles `<prefix>-0` …), for the bulk writes' limit; their ids. */
async function thousandItems(prefix: string): Promise<number[]> {
  await app.db.prisma.item.createMany({
    data: Array.from({ length: 1000 }, (_, i) => ({
      name: `${prefix} ${i}`,
      categoryId: category.id,
      price: '1.00',
      stock: 1,
      handle: `${prefix}-${i}`,
    })),
  });
  const rows = await app.db.prisma.item.findMany({
    where: { handle: { startsWith: `${prefix}-` } },
    select: { id: true },
  });
  return rows.map((r) => r.id);
}

const stored = (id: number) =>
  app.db.prisma.item.findUniqueOrThrow({
    where: { id },
    select: { status: true, publishAt: true, unpublishAt: true, handle: true, version: true, name: true },
  });

describe('the Item shape', () => {
  it('when an item is created with a status, a schedule and a handle, then REST and GraphQL show them, as stored, in their own names', async () => {
    const body = await created({
      name: 'Scheduled boot',
      status: 'draft',
      publish_at: '2030-01-01T08:00:00.000Z',
      unpublish_at: '2030-02-01T08:00:00Z',
      handle: 'scheduled-boot',
    });
    expect(body).toMatchObject({
      status: 'draft',
      publish_at: '2030-01-01T08:00:00.000Z',
      unpublish_at: '2030-02-01T08:00:00.000Z',
      handle: 'scheduled-boot',
      version: 1,
    });
    expect(body).toEqual(restItemOf(await loadItem(app, body.id)));
    const again = await postItemAgain(body);
    expect(again.status, again.text).toBe(201);
    await expectDocumentedResponse(app, 'POST', ITEMS_PATH, again);

    const viaGraphql = await updated(body.id, {});
    expect(viaGraphql).toEqual(graphqlItemOfRest(restItemOf(await loadItem(app, body.id)), category));
    expect(viaGraphql).toMatchObject({
      status: 'draft',
      publishAt: '2030-01-01T08:00:00.000Z',
      handle: 'scheduled-boot',
    });
  });

  it('when a scheduled item is read (REST rendered by PostgreSQL, GraphQL executed), then both show its schedule as created', async () => {
    // Within its schedule, so public (§12.1 visibility) whatever the date the test runs on.
    const body = await created({
      name: 'Rendered schedule',
      publish_at: '2020-01-01T00:00:00.000Z',
      unpublish_at: '2099-12-31T23:59:59.999Z',
    });
    const detail = await app.request(`/api/v1/items/${body.id}`);
    expect(detail.status, detail.text).toBe(200);
    expect(detail.body).toEqual(body);
    const list = await app.request('/api/v1/items?keyword=Rendered%20schedule');
    expect(list.body.items).toEqual([body]);
    const viaGraphql = await gql(ITEM_QUERY, { id: body.id });
    expect(viaGraphql.body.data.item).toEqual(graphqlItemOfRest(body, category));
  });

  it('when the same input is created over REST and over GraphQL, then both answers are the same item but for ids, handle and times', async () => {
    const rest = await created({ name: 'Parity lamp', status: 'archived', unpublish_at: '2031-05-05T00:00:00.000Z' });
    const res = await gql(CREATE_ITEM, {
      input: itemInput(category.id, {
        name: 'Parity lamp',
        skus: [],
        images: [],
        status: 'archived',
        unpublishAt: '2031-05-05T00:00:00.000Z',
      }),
    });
    expect(res.body.errors, res.text).toBeUndefined();
    const gqlItem = res.body.data.createItem;
    const normal = (item: Record<string, unknown>) => ({ ...item, id: 0, handle: '', createdAt: '', updatedAt: '' });
    expect(normal(gqlItem)).toEqual(normal(graphqlItemOfRest(rest, category)));
    expect([rest.handle, gqlItem.handle]).toEqual(['parity-lamp', 'parity-lamp-2']);
  });
});

/** The 201 of a fresh item with a schedule, for the OpenAPI check (nullable timestamps set). */
async function postItemAgain(body: { name: string }) {
  return postItem(
    app,
    owner,
    itemBody(category.id, { name: body.name, publish_at: '2030-01-01T00:00:00.000Z', skus: [], images: [] }),
  );
}

describe('creation', () => {
  it('when status, schedule and handle are left out, then the item is active, unscheduled, with a handle from its name', async () => {
    const body = await created({ name: '轻量跑鞋' });
    expect(body).toMatchObject({
      status: 'active',
      publish_at: null,
      unpublish_at: null,
      handle: 'qing-liang-pao-xie',
      version: 1,
    });
    // A public item: the storefront's create-then-read flow is unchanged.
    expect((await app.request(`/api/v1/items/${body.id}`)).status).toBe(200);
  });

  it('when names make the same handle, then the later items get -2, -3 … and a handle given keeps its number free for none', async () => {
    const first = await created({ name: 'Numbered tent' });
    const second = await created({ name: 'numbered   TENT!' });
    await created({ name: 'Other', handle: 'numbered-tent-3' });
    const fourth = await created({ name: 'Numbered tent' });
    expect([first.handle, second.handle, fourth.handle]).toEqual([
      'numbered-tent',
      'numbered-tent-2',
      'numbered-tent-4',
    ]);
  });

  it('when a handle is given in upper case, then it is stored in lower case', async () => {
    const body = await created({ name: 'Case boot', handle: 'Case-Boot-XL' });
    expect(body.handle).toBe('case-boot-xl');
    expect((await stored(body.id)).handle).toBe('case-boot-xl');
  });

  it('when a given handle is taken, in any case, then 400 VALIDATION_FAILED on handle and nothing is written, over REST and GraphQL', async () => {
    await created({ name: 'Taken', handle: 'taken-handle' });
    for (const handle of ['taken-handle', 'TAKEN-Handle']) {
      const before = await catalogCounts(app);
      const res = await postItem(app, owner, itemBody(category.id, { handle }));
      expectProblem(res, 400, 'VALIDATION_FAILED');
      expect(errorFields(res.body.errors)).toEqual(['handle']);
      const viaGraphql = await gql(CREATE_ITEM, { input: itemInput(category.id, { handle }) });
      expectGqlFields(viaGraphql, ['handle']);
      expect(await catalogCounts(app)).toEqual(before);
    }
  });

  it('when handle, status and schedule break their rules, then one 400 names every field in REST names', async () => {
    const before = await catalogCounts(app);
    const res = await postItem(
      app,
      owner,
      itemBody(category.id, { handle: 'not a handle', status: 'published', publish_at: 'tomorrow' }),
    );
    expectProblem(res, 400, 'VALIDATION_FAILED');
    expect(errorFields(res.body.errors).sort()).toEqual(['handle', 'publish_at', 'status']);
    expect(await catalogCounts(app)).toEqual(before);
  });

  it.each([
    ['', 'must not be empty'],
    ['a'.repeat(101), 'at most 100'],
    ['-lead', 'hyphens'],
    ['trail--boot', 'hyphens'],
    ['trail_boot', 'hyphens'],
    ['跑鞋', 'hyphens'],
  ])('when the handle is %j, then VALIDATION_FAILED on handle', async (handle, message) => {
    const res = await postItem(app, owner, itemBody(category.id, { handle }));
    expectProblem(res, 400, 'VALIDATION_FAILED');
    expect(res.body.errors).toEqual([{ field: 'handle', message: expect.stringContaining(message) }]);
  });

  it('when a handle of exactly 100 characters is given, then it is kept', async () => {
    const handle = `${'h'.repeat(50)}-${'9'.repeat(49)}`;
    expect((await created({ handle })).handle).toBe(handle);
  });

  it('when publish_at is not before unpublish_at, then VALIDATION_FAILED on unpublish_at, over REST and GraphQL', async () => {
    const before = await catalogCounts(app);
    for (const [publish, unpublish] of [
      ['2030-01-01T00:00:00.000Z', '2030-01-01T00:00:00.000Z'],
      ['2030-01-02T00:00:00.000Z', '2030-01-01T00:00:00.000Z'],
    ]) {
      const res = await postItem(app, owner, itemBody(category.id, { publish_at: publish, unpublish_at: unpublish }));
      expectProblem(res, 400, 'VALIDATION_FAILED');
      expect(errorFields(res.body.errors)).toEqual(['unpublish_at']);
      const viaGraphql = await gql(CREATE_ITEM, {
        input: itemInput(category.id, { publishAt: publish, unpublishAt: unpublish }),
      });
      expectGqlFields(viaGraphql, ['unpublishAt']);
    }
    expect(await catalogCounts(app)).toEqual(before);
  });

  it('when a timestamp names no real day, then VALIDATION_FAILED on it, not a 500', async () => {
    const before = await catalogCounts(app);
    const res = await postItem(app, owner, itemBody(category.id, { unpublish_at: '2030-02-30T00:00:00.000Z' }));
    expectProblem(res, 400, 'VALIDATION_FAILED');
    expect(errorFields(res.body.errors)).toEqual(['unpublish_at']);
    const viaGraphql = await gql(CREATE_ITEM, {
      input: itemInput(category.id, { unpublishAt: '2030-02-30T00:00:00.000Z' }),
    });
    expect(gqlCode(viaGraphql), viaGraphql.text).toBe('VALIDATION_FAILED');
    expect(await catalogCounts(app)).toEqual(before);
  });

  it('when many items of one name are created at once, then each gets its own handle and none fails', async () => {
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        postItem(app, owner, itemBody(category.id, { name: 'Rush hour', skus: [], images: [] })),
      ),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(8).fill(201));
    expect(answers.map((r) => r.body.handle).sort()).toEqual(
      ['rush-hour', ...[2, 3, 4, 5, 6, 7, 8].map((n) => `rush-hour-${n}`)].sort(),
    );
  });

  it('when the same handle is given by many requests at once, then exactly one succeeds and the others are 400 on handle', async () => {
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        postItem(
          app,
          owner,
          itemBody(category.id, { name: `Race ${i}`, handle: 'raced-handle', skus: [], images: [] }),
        ),
      ),
    );
    expect(answers.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of answers.filter((a) => a.status !== 201)) {
      expectProblem(r, 400, 'VALIDATION_FAILED');
      expect(errorFields(r.body.errors)).toEqual(['handle']);
    }
  });

  it('when a row written meanwhile takes the given handle, then the unique index refusal is the same 400 on handle', async () => {
    // A trigger writes the competing row in the creation's own statement, after the service found the handle free.
    await app.db.sql.exec(`
      CREATE FUNCTION test_steal_handle() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.handle = 'stolen-handle' AND NEW.name <> 'thief' THEN
          INSERT INTO items (name, category_id, price, stock, handle, updated_at)
          VALUES ('thief', NEW.category_id, 1, 1, 'stolen-handle', now());
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER test_steal_handle BEFORE INSERT ON items FOR EACH ROW EXECUTE FUNCTION test_steal_handle();`);
    try {
      const before = await catalogCounts(app);
      const res = await postItem(app, owner, itemBody(category.id, { handle: 'stolen-handle' }));
      expectProblem(res, 400, 'VALIDATION_FAILED');
      expect(errorFields(res.body.errors)).toEqual(['handle']);
      expect(await catalogCounts(app)).toEqual(before);
    } finally {
      await app.db.sql.exec('DROP TRIGGER test_steal_handle ON items; DROP FUNCTION test_steal_handle();');
    }
  });
  it('when a row written meanwhile takes the generated handle, then the creation is tried again and succeeds', async () => {
    // A sequence is not rolled back: the trigger steals the handle on the first attempt only.
    await app.db.sql.exec(`
      CREATE SEQUENCE test_steal_once;
      CREATE FUNCTION test_steal_generated() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.name = 'Retry marker' AND nextval('test_steal_once') = 1 THEN
          INSERT INTO items (name, category_id, price, stock, handle, updated_at)
          VALUES ('thief', NEW.category_id, 1, 1, NEW.handle, now());
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER test_steal_generated BEFORE INSERT ON items FOR EACH ROW EXECUTE FUNCTION test_steal_generated();`);
    try {
      const res = await postItem(app, owner, itemBody(category.id, { name: 'Retry marker', skus: [], images: [] }));
      expect(res.status, res.text).toBe(201);
      expect(res.body.handle).toBe('retry-marker');
      expect(await app.db.prisma.item.count({ where: { name: 'thief' } })).toBe(0);
    } finally {
      await app.db.sql.exec(
        'DROP TRIGGER test_steal_generated ON items; DROP FUNCTION test_steal_generated(); DROP SEQUENCE test_steal_once;',
      );
    }
  });
});

describe('updateItem', () => {
  it('when status, schedule and handle are given, then they change and the rest is kept', async () => {
    const body = await created({ name: 'Updatable' });
    const item = await updated(body.id, {
      status: 'draft',
      publishAt: '2030-03-01T00:00:00.000Z',
      unpublishAt: '2030-04-01T00:00:00.000Z',
      handle: 'Renamed-Handle',
    });
    expect(item).toMatchObject({
      name: 'Updatable',
      status: 'draft',
      publishAt: '2030-03-01T00:00:00.000Z',
      unpublishAt: '2030-04-01T00:00:00.000Z',
      handle: 'renamed-handle',
    });
    const read = await gql(ITEM_QUERY, { id: body.id });
    expect(read.body.errors, read.text).toBeUndefined();
  });

  it('when only one side of the schedule is given, then it is checked against the stored other side', async () => {
    const body = await created({ publish_at: '2030-06-01T00:00:00.000Z', unpublish_at: '2030-07-01T00:00:00.000Z' });
    const before = await stored(body.id);
    const late = await gql(UPDATE_ITEM, { id: body.id, input: { publishAt: '2030-07-01T00:00:00.000Z' } });
    expectGqlFields(late, ['unpublishAt']);
    const early = await gql(UPDATE_ITEM, { id: body.id, input: { unpublishAt: '2030-05-01T00:00:00.000Z' } });
    expectGqlFields(early, ['unpublishAt']);
    expect(await stored(body.id)).toEqual(before);
    // Both moved together is fine; null clears a side.
    const moved = await updated(body.id, {
      publishAt: '2030-08-01T00:00:00.000Z',
      unpublishAt: '2030-09-01T00:00:00.000Z',
    });
    expect(moved).toMatchObject({ publishAt: '2030-08-01T00:00:00.000Z', unpublishAt: '2030-09-01T00:00:00.000Z' });
    const cleared = await updated(body.id, { unpublishAt: null, publishAt: '2031-01-01T00:00:00.000Z' });
    expect(cleared).toMatchObject({ publishAt: '2031-01-01T00:00:00.000Z', unpublishAt: null });
  });

  it("when the handle given is another item's (in any case), then VALIDATION_FAILED on handle; its own handle is fine", async () => {
    const a = await created({ name: 'Holder', handle: 'held-handle' });
    const b = await created({ name: 'Wanter' });
    const res = await gql(UPDATE_ITEM, { id: b.id, input: { handle: 'HELD-handle', name: 'Changed' } });
    expectGqlFields(res, ['handle']);
    expect((await stored(b.id)).name).toBe('Wanter');
    expect((await updated(a.id, { handle: 'Held-Handle' })).handle).toBe('held-handle');
  });

  it('when status is null, then it is ignored; a bad status is VALIDATION_FAILED on status', async () => {
    const body = await created({ status: 'draft' });
    expect((await updated(body.id, { status: null })).status).toBe('draft');
    const res = await app.graphql(
      `mutation { updateItem(id: ${body.id}, input: { status: gone }) { id } }`,
      {},
      { token: owner },
    );
    expect(gqlCode(res), res.text).toBe('VALIDATION_FAILED');
    expect((await stored(body.id)).status).toBe('draft');
  });

  it('when an archived item is made active again, then it keeps its data', async () => {
    const body = await created({ name: 'Comeback', status: 'archived' });
    const item = await updated(body.id, { status: 'active' });
    expect(item).toMatchObject({ name: 'Comeback', status: 'active', handle: body.handle, price: body.price });
  });
});

describe('setItemsStatus', () => {
  it('when items are given a status, then it answers how many changed; those already in it are not counted', async () => {
    const a = await created({ status: 'draft' });
    const b = await created({ status: 'draft' });
    const c = await created({ status: 'archived' });
    const res = await gql(SET_ITEMS_STATUS, { ids: [a.id, b.id, c.id, a.id], status: 'archived' });
    expect(res.body, res.text).toEqual({ data: { setItemsStatus: 2 } });
    for (const item of [a, b, c]) expect((await stored(item.id)).status).toBe('archived');
    expect(
      (await gql(SET_ITEMS_STATUS, { ids: [a.id, b.id, c.id], status: 'archived' })).body.data.setItemsStatus,
    ).toBe(0);
    const active = await gql(SET_ITEMS_STATUS, { ids: [a.id], status: 'active' });
    expect(active.body.data.setItemsStatus).toBe(1);
    expect((await app.request(`/api/v1/items/${a.id}`)).body.status).toBe('active');
  });

  it('when statuses change, then the next public read says so (the answer cache is emptied) and each version grew by one', async () => {
    const a = await created({ status: 'draft' });
    const path = `/api/v1/items/${a.id}`;
    await app.request(path); // whatever it answers now (a draft may be hidden), it may be cached
    await app.request(path);
    expect((await gql(SET_ITEMS_STATUS, { ids: [a.id], status: 'active' })).body.data.setItemsStatus).toBe(1);
    const read = await app.request(path);
    expect(read.status, read.text).toBe(200);
    expect(read.body).toMatchObject({ status: 'active', version: a.version + 1 });
  });

  it('when an id is unknown, then VALIDATION_FAILED on ids naming it, and nothing changes', async () => {
    const a = await created({ status: 'draft' });
    const res = await gql(SET_ITEMS_STATUS, { ids: [a.id, 999_998, 999_999], status: 'active' });
    expectGqlFields(res, ['ids']);
    expect(res.body.errors[0].extensions.errors[0].message).toContain('999998, 999999');
    expect((await stored(a.id)).status).toBe('draft');
  });

  it('when no ids, more than 1000 ids or a non-positive id are given, then VALIDATION_FAILED on ids', async () => {
    expectGqlFields(await gql(SET_ITEMS_STATUS, { ids: [], status: 'active' }), ['ids']);
    const many = Array.from({ length: 1001 }, (_, i) => i + 1);
    expectGqlFields(await gql(SET_ITEMS_STATUS, { ids: many, status: 'active' }), ['ids']);
    expectGqlFields(await gql(SET_ITEMS_STATUS, { ids: [0], status: 'active' }), ['ids[0]']);
  });

  it('when 1000 items are given, then all change in one call', async () => {
    const ids = await thousandItems('bulk-status');
    const res = await gql(SET_ITEMS_STATUS, { ids, status: 'draft' });
    expect(res.body, res.text).toEqual({ data: { setItemsStatus: 1000 } });
    expect(await app.db.prisma.item.count({ where: { id: { in: ids }, status: 'draft' } })).toBe(1000);
  });

  it('when a support or viewer admin calls it, then FORBIDDEN and nothing changes; a catalog_manager may', async () => {
    const a = await created({ status: 'draft' });
    for (const role of ['support', 'viewer'] as const) {
      const admin = await makeAdmin(app, { role, password: 'role-password-123' });
      const token = await loginAsAdmin(app, { username: admin.username, password: 'role-password-123' });
      const res = await gql(SET_ITEMS_STATUS, { ids: [a.id], status: 'active' }, token);
      expect(gqlCode(res), res.text).toBe('FORBIDDEN');
    }
    expect((await stored(a.id)).status).toBe('draft');
    const manager = await makeAdmin(app, { role: 'catalog_manager', password: 'role-password-123' });
    const token = await loginAsAdmin(app, { username: manager.username, password: 'role-password-123' });
    expect((await gql(SET_ITEMS_STATUS, { ids: [a.id], status: 'active' }, token)).body.data.setItemsStatus).toBe(1);
  });

  it('when called without a token, then UNAUTHENTICATED', async () => {
    const res = await app.graphql(SET_ITEMS_STATUS, { ids: [1], status: 'active' });
    expect(gqlCode(res)).toBe('UNAUTHENTICATED');
  });
});

describe('deleteItems', () => {
  const exists = async (id: number) => (await app.db.prisma.item.count({ where: { id } })) === 1;

  it('when items are deleted in bulk, then it answers how many, each vanishes from every read, and repeated ids count once', async () => {
    const a = await created({ status: 'draft', skus: [{ sku_code: 'BULK-DEL-A', price: 3, stock: 1 }] });
    const b = await created({ images: ['https://cdn.example.com/bulk-del.jpg'] });
    const keep = await created();
    await app.request(`/api/v1/items/${b.id}`); // cached now, as a public read may be
    const res = await gql(DELETE_ITEMS, { ids: [b.id, a.id, b.id] });
    expect(res.body, res.text).toEqual({ data: { deleteItems: 2 } });
    expect((await app.request(`/api/v1/items/${b.id}`)).status).toBe(404);
    expect((await gql('query ($id: Int!) { adminItem(id: $id) { id } }', { id: a.id })).body.data.adminItem).toBeNull();
    expect(await exists(a.id)).toBe(false);
    expect(await app.db.prisma.sku.count({ where: { itemId: a.id } })).toBe(0);
    expect(await app.db.prisma.itemImage.count({ where: { itemId: b.id } })).toBe(0);
    expect(await exists(keep.id)).toBe(true);
  });

  it('when an id is unknown, then VALIDATION_FAILED on ids naming it, and nothing is deleted', async () => {
    const a = await created();
    const b = await created();
    const res = await gql(DELETE_ITEMS, { ids: [a.id, 999_997, b.id] });
    expectGqlFields(res, ['ids']);
    expect(res.body.errors[0].extensions.errors[0].message).toContain('999997');
    expect(await exists(a.id)).toBe(true);
    expect(await exists(b.id)).toBe(true);
  });

  it('when no ids, more than 1000 ids or a non-positive id are given, then VALIDATION_FAILED on ids', async () => {
    expectGqlFields(await gql(DELETE_ITEMS, { ids: [] }), ['ids']);
    expectGqlFields(await gql(DELETE_ITEMS, { ids: Array.from({ length: 1001 }, (_, i) => i + 1) }), ['ids']);
    expectGqlFields(await gql(DELETE_ITEMS, { ids: [0] }), ['ids[0]']);
  });

  it('when items are deleted in bulk, then each has one item.delete entry exactly as deleteItem writes it, and nothing else is recorded', async () => {
    const fields = { name: 'Audited delete', status: 'draft', skus: [{ sku_code: 'AUD-DEL', price: 2, stock: 3 }] };
    const one = await created(fields);
    const two = await created(fields);
    const three = await created(fields);
    expect((await gql('mutation ($id: Int!) { deleteItem(id: $id) }', { id: one.id })).body.data).toEqual({
      deleteItem: true,
    });
    const before = await app.db.prisma.auditEntry.count();
    expect((await gql(DELETE_ITEMS, { ids: [two.id, three.id] })).body.data).toEqual({ deleteItems: 2 });
    expect(await app.db.prisma.auditEntry.count()).toBe(before + 2);
    const [single] = await auditEntries(app, owner, { action: 'item.delete', targetId: one.id });
    const comparable = (entry: typeof single) => {
      const { handle: _handle, ...changes } = entry!.changes as Record<string, unknown>;
      return { action: entry!.action, actor: entry!.actor, changes };
    };
    for (const item of [two, three]) {
      const entries = await auditEntries(app, owner, { targetType: 'item', targetId: item.id });
      expect(entries.map((e) => e.action).sort()).toEqual(['item.create', 'item.delete']);
      const deleted = entries.find((e) => e.action === 'item.delete')!;
      expect(deleted.target).toEqual({ type: 'item', id: item.id });
      expect((deleted.changes as Record<string, unknown>).handle).toEqual([item.handle, null]);
      expect(comparable(deleted)).toEqual(comparable(single));
    }
  });

  it('when 1000 items are given, then all are deleted in one call', async () => {
    const ids = await thousandItems('bulk-delete');
    const res = await gql(DELETE_ITEMS, { ids });
    expect(res.body, res.text).toEqual({ data: { deleteItems: 1000 } });
    expect(await app.db.prisma.item.count({ where: { id: { in: ids } } })).toBe(0);
  });

  it('when a support or viewer admin calls it, then FORBIDDEN and nothing is deleted; a catalog_manager may', async () => {
    const a = await created();
    for (const role of ['support', 'viewer'] as const) {
      const admin = await makeAdmin(app, { role, password: 'role-password-123' });
      const token = await loginAsAdmin(app, { username: admin.username, password: 'role-password-123' });
      expect(gqlCode(await gql(DELETE_ITEMS, { ids: [a.id] }, token))).toBe('FORBIDDEN');
    }
    expect(await exists(a.id)).toBe(true);
    const manager = await makeAdmin(app, { role: 'catalog_manager', password: 'role-password-123' });
    const token = await loginAsAdmin(app, { username: manager.username, password: 'role-password-123' });
    expect((await gql(DELETE_ITEMS, { ids: [a.id] }, token)).body.data).toEqual({ deleteItems: 1 });
  });
});

describe('audit entries', () => {
  it('when an item is created and updated, then item.create and item.update show status, schedule and handle', async () => {
    const body = await created({ name: 'Audited lifecycle', status: 'draft', publish_at: '2030-01-01T00:00:00.000Z' });
    await updated(body.id, {
      status: 'active',
      publishAt: null,
      unpublishAt: '2032-01-01T00:00:00.000Z',
      handle: 'audited-2',
    });
    const entries = await auditEntries(app, owner, { targetType: 'item', targetId: body.id });
    const byAction = Object.fromEntries(entries.map((e) => [e.action, e]));
    expect(byAction['item.create']!.changes).toMatchObject({
      status: [null, 'draft'],
      publishAt: [null, '2030-01-01T00:00:00.000Z'],
      handle: [null, 'audited-lifecycle'],
    });
    expect(byAction['item.update']!.changes).toEqual({
      status: ['draft', 'active'],
      publishAt: ['2030-01-01T00:00:00.000Z', null],
      unpublishAt: [null, '2032-01-01T00:00:00.000Z'],
      handle: ['audited-lifecycle', 'audited-2'],
    });
  });

  it('when setItemsStatus changes items, then each changed item has one item.status entry showing its status; unchanged ones none', async () => {
    const a = await created({ status: 'draft' });
    const b = await created({ status: 'archived' });
    const before = await app.db.prisma.auditEntry.count();
    await gql(SET_ITEMS_STATUS, { ids: [a.id, b.id], status: 'archived' });
    expect(await app.db.prisma.auditEntry.count()).toBe(before + 1);
    const [entry] = await auditEntries(app, owner, { action: 'item.status', targetId: a.id });
    expect(entry).toMatchObject({ target: { type: 'item', id: a.id }, changes: { status: ['draft', 'archived'] } });
    expect(await auditEntries(app, owner, { action: 'item.status', targetId: b.id })).toEqual([]);
    // Nothing changed: no entry at all.
    await gql(SET_ITEMS_STATUS, { ids: [a.id, b.id], status: 'archived' });
    expect(await app.db.prisma.auditEntry.count()).toBe(before + 1);
  });

  it('when a lifecycle write is refused, then there is no entry', async () => {
    const before = await app.db.prisma.auditEntry.count();
    await gql(SET_ITEMS_STATUS, { ids: [999_999], status: 'active' });
    await postItem(app, owner, itemBody(category.id, { handle: 'Bad handle' }));
    expect(await app.db.prisma.auditEntry.count()).toBe(before);
  });
});

describe('the demo catalogue', () => {
  it('when the demo catalogue is seeded, then its items have handles made from their names as the service makes them', async () => {
    const demo = await startTestApp({ SEED_DEMO: 'true' });
    try {
      const items = await demo.db.prisma.item.findMany({ select: { name: true, handle: true } });
      expect(items.length).toBeGreaterThan(10);
      for (const { name, handle } of items) expect(handle, name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(new Set(items.map((i) => i.handle)).size).toBe(items.length);
      expect(items.find((i) => i.name === '轻量跑鞋 Air')?.handle).toBe('qing-liang-pao-xie-air');
      expect(items.find((i) => i.name === 'Trail runner GTX')?.handle).toBe('trail-runner-gtx');
    } finally {
      await demo.close();
    }
  });
});
