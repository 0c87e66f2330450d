/**
 * Contract §12.1 (version) and §12.2: the admin's item reads (every state, by list, id or handle),
 * REST and GraphQL; PATCH and DELETE with `If-Match: "v<version>"`, GraphQL's `expectedVersion`;
 * VERSION_CONFLICT with nothing changed, and exactly one winner among concurrent writes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimItemVersion } from '../../src/catalog/catalog-write.ts';
import { expectProblem, gqlCode, loginAsAdmin, makeAdmin } from '../helpers/accounts.ts';
import { loadItem, makeCategory, makeItem } from '../helpers/catalog.ts';
import { DELETE_ITEM, ITEMS_PATH, itemBody, postItem, UPDATE_ITEM } from '../helpers/catalog-admin.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { TEST_DB } from '../helpers/test-database.ts';

let app: TestApp;
let owner: string;
let manager: string;
let viewer: string;
let support: string;
let category: { id: number };

const ADMIN_PASSWORD = 'admin-password-123';

async function tokenOf(role: 'catalog_manager' | 'viewer' | 'support'): Promise<string> {
  const admin = await makeAdmin(app, { role, password: ADMIN_PASSWORD });
  return loginAsAdmin(app, { username: admin.username, password: ADMIN_PASSWORD });
}

beforeAll(async () => {
  app = await startTestApp({ LOGIN_IP_PER_MINUTE: '1000' });
  owner = await loginAsAdmin(app);
  [manager, viewer, support] = [await tokenOf('catalog_manager'), await tokenOf('viewer'), await tokenOf('support')];
  category = await makeCategory(app, { name: 'Boots' });
});
afterAll(() => app.close());

const itemPath = (id: number) => `${ITEMS_PATH}/${id}`;

/** Creates an item through POST /admin/api/items and returns its answer. */
async function createItem(overrides: Record<string, unknown> = {}) {
  const res = await postItem(app, owner, itemBody(category.id, overrides));
  expect(res.status, res.text).toBe(201);
  return res;
}

const patch = (id: number, body: unknown, headers: Record<string, string> = {}, token = owner) =>
  app.request(itemPath(id), { method: 'PATCH', body, token, headers });

const remove = (id: number, headers: Record<string, string> = {}, token = owner) =>
  app.request(itemPath(id), { method: 'DELETE', token, headers });

const auditCount = (targetId: number) => app.db.prisma.auditEntry.count({ where: { targetType: 'item', targetId } });

/** An item stored in `status` (set behind the service: the write of statuses is another part of §12). */
async function itemIn(status: 'draft' | 'active' | 'archived', spec: { name?: string; categoryId?: number } = {}) {
  const item = await makeItem(app, { categoryId: spec.categoryId ?? category.id, name: spec.name });
  await app.db.prisma.item.update({ where: { id: item.id }, data: { status } });
  return item;
}

describe('version (contract §12.1)', () => {
  it('when an item is created, then it is at version 1 and its answer carries ETag "v1"', async () => {
    const res = await createItem();
    expect(res.body.version).toBe(1);
    expect(res.headers.get('etag')).toBe('"v1"');
    expect(res.headers.get('location')).toBe(`/api/v1/items/${res.body.id}`);
  });

  it('when an item is changed three times (REST, GraphQL, its SKUs), then its version grows by exactly one each time', async () => {
    const { body: created } = await createItem();
    const rest = await patch(created.id, { name: 'Renamed' });
    expect(rest.status, rest.text).toBe(200);
    expect(rest.body.version).toBe(2);
    const gql = await app.graphql(UPDATE_ITEM, { id: created.id, input: { price: 12 } }, { token: owner });
    expect(gql.body.errors, gql.text).toBeUndefined();
    expect(gql.body.data.updateItem.version).toBe(3);
    const skus = await patch(created.id, { skus: [{ sku_code: 'ONLY' }], images: [] });
    expect(skus.body).toMatchObject({ version: 4, skus: [{ sku_code: 'ONLY' }], images: [] });
    expect((await loadItem(app, created.id)).version).toBe(4);
    // The public reads show the same version.
    expect((await app.request(`/api/v1/items/${created.id}`)).body.version).toBe(4);
  });
});

describe('PATCH /admin/api/items/{id} and If-Match (contract §12.2)', () => {
  it('when If-Match names the current version, then 200, the change, no-store and the next version as ETag', async () => {
    const { body: created } = await createItem();
    const res = await patch(created.id, { name: 'Matched', stock: 7 }, { 'If-Match': '"v1"' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ id: created.id, name: 'Matched', stock: 7, version: 2, price: created.price });
    expect(res.headers.get('etag')).toBe('"v2"');
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('when If-Match names an older version, then 409 VERSION_CONFLICT naming the current one, and nothing changes', async () => {
    const { body: created } = await createItem();
    expect((await patch(created.id, { name: 'Second' })).status).toBe(200);
    const before = await loadItem(app, created.id);
    const entries = await auditCount(created.id);
    const res = await patch(created.id, { name: 'Lost update', skus: [] }, { 'If-Match': '"v1"' });
    expectProblem(res, 409, 'VERSION_CONFLICT');
    expect(res.body.detail).toMatch(/current version is 2\b/);
    expect(res.headers.get('etag')).toBeNull();
    expect(await loadItem(app, created.id)).toEqual(before);
    expect(await auditCount(created.id)).toBe(entries);
  });

  it('when If-Match is `*` or absent, then the write happens whatever the version', async () => {
    const { body: created } = await createItem();
    expect((await patch(created.id, { stock: 1 }, { 'If-Match': '*' })).body.version).toBe(2);
    expect((await patch(created.id, { stock: 2 })).body.version).toBe(3);
  });

  it.each([['v1'], ['W/"v1"'], ['"v1", "v2"'], ['"1"'], ['"v0"'], ['"v99999999999"']])(
    'when If-Match is %s, then 400 VALIDATION_FAILED on If-Match, and nothing changes',
    async (value) => {
      const { body: created } = await createItem();
      const res = await patch(created.id, { name: 'Never' }, { 'If-Match': value });
      expectProblem(res, 400, 'VALIDATION_FAILED');
      expect(res.body.errors).toEqual([{ field: 'If-Match', message: expect.stringContaining('"v<version>"') }]);
      expect((await loadItem(app, created.id)).version).toBe(1);
    },
  );

  it('when the body is invalid as well, then one 400 names the header and every body field', async () => {
    const { body: created } = await createItem();
    const res = await patch(created.id, { name: '', price: -1 }, { 'If-Match': 'v1' });
    expectProblem(res, 400, 'VALIDATION_FAILED');
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['If-Match', 'name', 'price']);
  });

  it('when the item does not exist (with or without If-Match), then 404 NOT_FOUND', async () => {
    expectProblem(await patch(999999, { name: 'X' }), 404, 'NOT_FOUND');
    expectProblem(await patch(999999, { name: 'X' }, { 'If-Match': '"v1"' }), 404, 'NOT_FOUND');
    expectProblem(await patch(0, { name: 'X' }), 404, 'NOT_FOUND');
  });

  it('when fields of §12.1 and unknown ones are sent, then unknown ones are ignored and cannot set the version', async () => {
    const { body: created } = await createItem();
    const res = await patch(created.id, { version: 50, id: 1, name: 'Kept' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ id: created.id, version: 2, name: 'Kept' });
  });

  it('when 8 PATCHes with the same If-Match run at once, then exactly one succeeds, the rest are 409, and the winner’s change stands', async () => {
    const { body: created } = await createItem();
    const names = Array.from({ length: 8 }, (_, n) => `Racer ${n}`);
    const answers = await Promise.all(names.map((name) => patch(created.id, { name }, { 'If-Match': '"v1"' })));
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([200, ...Array(7).fill(409)]);
    const winner = answers.find((r) => r.status === 200)!;
    for (const lost of answers.filter((r) => r.status === 409)) expect(lost.body.code).toBe('VERSION_CONFLICT');
    const stored = await loadItem(app, created.id);
    expect(stored).toMatchObject({ version: 2, name: winner.body.name });
    expect(await app.db.prisma.auditEntry.count({ where: { action: 'item.update', targetId: created.id } })).toBe(1);
  });

  it('when 6 PATCHes without If-Match run at once, then all succeed and the version grows by exactly 6', async () => {
    const { body: created } = await createItem();
    const answers = await Promise.all(Array.from({ length: 6 }, (_, n) => patch(created.id, { stock: n })));
    expect(answers.map((r) => r.status)).toEqual(Array(6).fill(200));
    // Each answer is the item as read after its write committed (a later write may already show in it),
    // its ETag that answer's version.
    for (const r of answers) {
      expect(r.body.version).toBeGreaterThanOrEqual(2);
      expect(r.headers.get('etag')).toBe(`"v${r.body.version}"`);
    }
    expect((await loadItem(app, created.id)).version).toBe(7);
  });
});

describe.skipIf(TEST_DB !== 'postgres')('the version claim alone, on PostgreSQL', () => {
  it('when two transactions claim the same expected version at once (without the catalogue lock), then the second waits and finds it moved', async () => {
    const { body: created } = await createItem();
    const prisma = app.db.prisma;
    let second: Promise<unknown> | undefined;
    await prisma.$transaction(async (tx) => {
      expect(await claimItemVersion(tx, created.id, 1)).toBe(2);
      second = prisma
        .$transaction((other) => claimItemVersion(other, created.id, 1))
        .then(
          (version) => ({ claimed: version }),
          (err: unknown) => err,
        );
      // The other transaction is waiting for this one's row lock before this one commits.
      for (let waited = 0; ; waited += 20) {
        const [row] = await prisma.$queryRawUnsafe<Array<{ n: number }>>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'UPDATE items SET version%'`,
        );
        if (row!.n > 0) break;
        if (waited > 5000) throw new Error('the second claim never waited for the first');
        await new Promise((r) => setTimeout(r, 20));
      }
    });
    expect(await second).toMatchObject({ code: 'VERSION_CONFLICT', extensions: { currentVersion: 2 } });
    expect((await loadItem(app, created.id)).version).toBe(2);
  });
});

describe('DELETE /admin/api/items/{id} (contract §12.2)', () => {
  it('when If-Match is stale, then 409 and the item stays; when it matches, then 204 and the item is gone', async () => {
    const { body: created } = await createItem();
    await patch(created.id, { stock: 3 });
    expectProblem(await remove(created.id, { 'If-Match': '"v1"' }), 409, 'VERSION_CONFLICT');
    expect((await app.request(itemPath(created.id), { token: owner })).status).toBe(200);
    const res = await remove(created.id, { 'If-Match': '"v2"' });
    expect(res.status, res.text).toBe(204);
    expect(res.text).toBe('');
    expectProblem(await app.request(itemPath(created.id), { token: owner }), 404, 'NOT_FOUND');
    expectProblem(await remove(created.id), 404, 'NOT_FOUND');
  });

  it('when deleted without If-Match, then 204 and an item.delete audit entry', async () => {
    const { body: created } = await createItem();
    expect((await remove(created.id)).status).toBe(204);
    expect(await app.db.prisma.auditEntry.count({ where: { action: 'item.delete', targetId: created.id } })).toBe(1);
  });
});

describe('GraphQL expectedVersion (contract §12.2)', () => {
  it('when updateItem expects an older version, then VERSION_CONFLICT with extensions.currentVersion and nothing changed', async () => {
    const { body: created } = await createItem();
    await patch(created.id, { stock: 3 });
    const res = await app.graphql(
      UPDATE_ITEM.replace('$input: UpdateItemInput!)', '$input: UpdateItemInput!, $v: Int)').replace(
        'input: $input)',
        'input: $input, expectedVersion: $v)',
      ),
      { id: created.id, input: { name: 'Lost' }, v: 1 },
      { token: owner },
    );
    expect(gqlCode(res), res.text).toBe('VERSION_CONFLICT');
    expect(res.body.errors[0].extensions.currentVersion).toBe(2);
    expect(res.body.data?.updateItem ?? null).toBeNull();
    expect((await loadItem(app, created.id)).name).toBe(created.name);
  });

  const UPDATE_EXPECTING = /* GraphQL */ `
    mutation ($id: Int!, $input: UpdateItemInput!, $v: Int) {
      updateItem(id: $id, input: $input, expectedVersion: $v) { id name version }
    }`;
  const DELETE_EXPECTING = /* GraphQL */ `
    mutation ($id: Int!, $v: Int) { deleteItem(id: $id, expectedVersion: $v) }`;

  it('when updateItem expects the current version, then it changes and answers the next one', async () => {
    const { body: created } = await createItem();
    const res = await app.graphql(UPDATE_EXPECTING, { id: created.id, input: { name: 'Ok' }, v: 1 }, { token: owner });
    expect(res.body.data.updateItem).toEqual({ id: created.id, name: 'Ok', version: 2 });
  });

  it('when deleteItem expects another version, then VERSION_CONFLICT and the item stays; expecting its own, it goes', async () => {
    const { body: created } = await createItem();
    const stale = await app.graphql(DELETE_EXPECTING, { id: created.id, v: 5 }, { token: owner });
    expect(gqlCode(stale)).toBe('VERSION_CONFLICT');
    expect(stale.body.errors[0].extensions.currentVersion).toBe(1);
    const done = await app.graphql(DELETE_EXPECTING, { id: created.id, v: 1 }, { token: owner });
    expect(done.body.data.deleteItem).toBe(true);
    expect(gqlCode(await app.graphql(DELETE_ITEM, { id: created.id }, { token: owner }))).toBe('NOT_FOUND');
  });

  it('when expectedVersion is 0, then VALIDATION_FAILED on expectedVersion', async () => {
    const { body: created } = await createItem();
    const res = await app.graphql(UPDATE_EXPECTING, { id: created.id, input: {}, v: 0 }, { token: owner });
    expect(gqlCode(res)).toBe('VALIDATION_FAILED');
    expect(res.body.errors[0].extensions.errors).toEqual([{ field: 'expectedVersion', message: expect.any(String) }]);
  });
});

describe('admin reads (contract §12.2)', () => {
  let shelf: { id: number };
  let draft: { id: number; name: string };
  let active: { id: number; name: string };
  let archived: { id: number; name: string };

  beforeAll(async () => {
    shelf = await makeCategory(app, { name: 'Shelf' });
    draft = await itemIn('draft', { name: 'Shelf draft', categoryId: shelf.id });
    active = await itemIn('active', { name: 'Shelf active', categoryId: shelf.id });
    archived = await itemIn('archived', { name: 'Shelf archived', categoryId: shelf.id });
    await app.db.prisma.item.update({ where: { id: draft.id }, data: { handle: 'shelf-draft-handle' } });
  });

  const ids = (res: { body: { items: Array<{ id: number }> } }) => res.body.items.map((i) => i.id);

  it('when no status is asked for, then GET /admin/api/items lists every state, newest first, no-store', async () => {
    const res = await app.request(`${ITEMS_PATH}?category_id=${shelf.id}`, { token: viewer });
    expect(res.status, res.text).toBe(200);
    expect(ids(res)).toEqual([archived.id, active.id, draft.id]);
    expect(res.body).toMatchObject({ page: 1, limit: 20, total: 3, total_pages: 1 });
    expect(res.body.items[0]).toMatchObject({ version: 1, category_id: shelf.id });
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('when status is repeated, then only those states are listed and counted', async () => {
    const res = await app.request(`${ITEMS_PATH}?category_id=${shelf.id}&status=draft&status=archived`, {
      token: support,
    });
    expect(ids(res)).toEqual([archived.id, draft.id]);
    expect(res.body.total).toBe(2);
    const one = await app.request(`${ITEMS_PATH}?category_id=${shelf.id}&status=draft&keyword=shelf`, { token: owner });
    expect(ids(one)).toEqual([draft.id]);
  });

  it('when facets are asked for with a status, then they count that state only', async () => {
    const res = await app.request(`${ITEMS_PATH}?category_id=${shelf.id}&status=active&facets=true`, { token: owner });
    expect(res.status, res.text).toBe(200);
    // Each facet ignores its own filter, never the states: the shelf's one active item, with stock.
    expect(res.body.facets.in_stock).toBe(1);
    expect(res.body.facets.categories).toContainEqual({ id: shelf.id, name: 'Shelf', parent_id: null, count: 1 });
    const every = await app.request(`${ITEMS_PATH}?category_id=${shelf.id}&facets=true`, { token: owner });
    expect(every.body.facets.in_stock).toBe(3);
  });

  it('when a status is unknown or the list parameters are wrong, then 400 names each', async () => {
    const res = await app.request(`${ITEMS_PATH}?status=draft&status=gone&limit=0`, { token: owner });
    expectProblem(res, 400, 'VALIDATION_FAILED');
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['limit', 'status[1]']);
  });

  it('when GraphQL adminItems is asked for archived items, then it answers them with the same page shape', async () => {
    const res = await app.graphql(
      `query ($c: Int) { adminItems(status: [archived], categoryId: $c) { items { id version } total } }`,
      { c: shelf.id },
      { token: viewer },
    );
    expect(res.body.data.adminItems).toEqual({ items: [{ id: archived.id, version: 1 }], total: 1 });
  });

  it('when an item is written behind the service, then the admin list shows it at once (no cached answer or total)', async () => {
    const first = await app.request(`${ITEMS_PATH}?category_id=${shelf.id}`, { token: owner });
    const extra = await makeItem(app, { categoryId: shelf.id, name: 'Shelf extra' });
    const again = await app.request(`${ITEMS_PATH}?category_id=${shelf.id}`, { token: owner });
    expect(again.body.total).toBe(first.body.total + 1);
    expect(ids(again)[0]).toBe(extra.id);
    await app.db.prisma.item.delete({ where: { id: extra.id } });
  });

  it('when GET /admin/api/items/{id} names a draft, then 200 with its ETag; an unknown id is 404', async () => {
    const res = await app.request(itemPath(draft.id), { token: viewer });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ id: draft.id, name: draft.name, version: 1 });
    expect(res.headers.get('etag')).toBe('"v1"');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expectProblem(await app.request(itemPath(999999), { token: viewer }), 404, 'NOT_FOUND');
    expectProblem(await app.request(`${ITEMS_PATH}/abc`, { token: viewer }), 404, 'NOT_FOUND');
  });

  it('when adminItem is asked by id or by handle in any case, then it answers the item; none is null', async () => {
    const q = `query ($id: Int, $h: String) { adminItem(id: $id, handle: $h) { id version } }`;
    expect((await app.graphql(q, { id: archived.id }, { token: viewer })).body.data.adminItem.id).toBe(archived.id);
    expect((await app.graphql(q, { h: 'Shelf-Draft-HANDLE' }, { token: viewer })).body.data.adminItem.id).toBe(
      draft.id,
    );
    expect((await app.graphql(q, { h: 'no-such-handle' }, { token: viewer })).body.data.adminItem).toBeNull();
    expect((await app.graphql(q, { id: 999999 }, { token: viewer })).body.data.adminItem).toBeNull();
  });

  it('when adminItem gets neither or both of id and handle, then VALIDATION_FAILED', async () => {
    const q = `query ($id: Int, $h: String) { adminItem(id: $id, handle: $h) { id } }`;
    for (const vars of [{}, { id: draft.id, h: 'shelf-draft-handle' }]) {
      const res = await app.graphql(q, vars, { token: viewer });
      expect(gqlCode(res), res.text).toBe('VALIDATION_FAILED');
    }
  });
});

describe('roles (contract §10.1, §12)', () => {
  it('when a viewer or support admin PATCHes or DELETEs, then 403 FORBIDDEN before validation, and nothing changes', async () => {
    const { body: created } = await createItem();
    for (const token of [viewer, support]) {
      expectProblem(await patch(created.id, { name: '' }, { 'If-Match': 'bad' }, token), 403, 'FORBIDDEN');
      expectProblem(await remove(created.id, {}, token), 403, 'FORBIDDEN');
    }
    expect((await loadItem(app, created.id)).version).toBe(1);
  });

  it('when a catalog manager PATCHes, then it succeeds', async () => {
    const { body: created } = await createItem();
    const res = await patch(created.id, { stock: 5 }, { 'If-Match': '"v1"' }, manager);
    expect(res.status, res.text).toBe(200);
  });

  it('when there is no token, then the admin item routes answer 401 UNAUTHENTICATED', async () => {
    expectProblem(await app.request(ITEMS_PATH), 401, 'UNAUTHENTICATED');
    expectProblem(await app.request(itemPath(1)), 401, 'UNAUTHENTICATED');
    expectProblem(await app.request(itemPath(1), { method: 'PATCH', body: {} }), 401, 'UNAUTHENTICATED');
  });
});
