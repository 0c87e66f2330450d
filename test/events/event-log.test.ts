/**
 * Contract §14.1: every catalogue change appends its events in its transaction — item and category
 * created/updated/deleted, published/unpublished by a status change or a schedule passing — with
 * `data` in REST names; the feed (REST and GraphQL) pages by `seq`, oldest first, filtered by type;
 * a refused write appends nothing; `seq` has no gaps and is in commit order under concurrent writers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, loginAsAdmin, makeAdmin } from '../helpers/accounts.ts';
import { makeCategory } from '../helpers/catalog.ts';
import { CREATE_CATEGORY, DELETE_CATEGORY, itemBody, postItem } from '../helpers/catalog-admin.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

let app: TestApp;
let owner: string;
let category: { id: number };

beforeAll(async () => {
  app = await startTestApp({ LOGIN_IP_PER_MINUTE: '1000' });
  owner = await loginAsAdmin(app);
  category = await makeCategory(app, { name: 'Lamps' });
});
afterAll(() => app.close());

interface FeedEvent {
  id: string;
  seq: number;
  type: string;
  at: string;
  actor: { type: string; id: number | null; name: string | null } | null;
  data: Record<string, any>;
}

async function feed(query = '', token = owner): Promise<{ events: FeedEvent[]; next_after: number }> {
  const res = await app.request(`/admin/api/events${query}`, { token });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

async function lastSeq(): Promise<number> {
  const rows = await app.db.prisma.event.aggregate({ _max: { seq: true } });
  return rows._max.seq ?? 0;
}

async function createItem(overrides: Record<string, unknown> = {}) {
  const res = await postItem(app, owner, itemBody(category.id, overrides));
  expect(res.status, res.text).toBe(201);
  return res.body as { id: number; handle: string; version: number };
}

describe('the events of each change (contract §14.1)', () => {
  it('when an item is created, changed, published, unpublished and deleted, then each change is its events with REST names, in order', async () => {
    const after = await lastSeq();
    const item = await createItem({ name: 'Event lamp', status: 'draft' });
    let res = await app.request(`/admin/api/items/${item.id}`, {
      method: 'PATCH',
      token: owner,
      body: { price: 12.5 },
    });
    expect(res.status, res.text).toBe(200);
    res = await app.request(`/admin/api/items/${item.id}`, {
      method: 'PATCH',
      token: owner,
      body: { status: 'active' },
    });
    expect(res.status, res.text).toBe(200);
    res = await app.request(`/admin/api/items/${item.id}`, {
      method: 'PATCH',
      token: owner,
      body: { status: 'archived' },
    });
    expect(res.status, res.text).toBe(200);
    res = await app.request(`/admin/api/items/${item.id}`, { method: 'DELETE', token: owner });
    expect(res.status, res.text).toBe(204);

    const { events, next_after } = await feed(`?after=${after}`);
    expect(events.map((e) => e.type)).toEqual([
      'item.created',
      'item.updated',
      'item.updated',
      'item.published',
      'item.updated',
      'item.unpublished',
      'item.deleted',
    ]);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, n) => after + 1 + n));
    expect(next_after).toBe(after + events.length);
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    for (const event of events) {
      expect(event.id).toMatch(/^evt_[0-9a-f]{32}$/);
      expect(event.actor).toEqual({ type: 'admin', id: expect.any(Number), name: 'root' });
      expect(Date.parse(event.at)).not.toBeNaN();
    }
    const created = events[0]!.data.item;
    expect(created).toMatchObject({
      id: item.id,
      name: 'Event lamp',
      category_id: category.id,
      status: 'draft',
      version: 1,
    });
    expect(Object.keys(created)).toEqual(
      expect.arrayContaining(['handle', 'publish_at', 'unpublish_at', 'skus', 'images', 'created_at']),
    );
    expect(events[1]!.data.item).toMatchObject({ price: 12.5, version: 2 });
    expect(events[3]!.data.item).toMatchObject({ status: 'active', version: 3 });
    expect(events[6]!.data).toEqual({ item: { id: item.id, handle: item.handle } });
  });

  it('when a category is created, renamed and deleted, then its events carry the category in REST names', async () => {
    const after = await lastSeq();
    const created = await app.graphql(CREATE_CATEGORY, { input: { name: 'Event shelf' } }, { token: owner });
    const id = created.body.data.createCategory.id as number;
    await app.graphql(
      `mutation($id: Int!) { updateCategory(id: $id, input: { name: "Event shelves", parentId: null, sortOrder: 3 }) { id } }`,
      { id },
      { token: owner },
    );
    await app.graphql(DELETE_CATEGORY, { id }, { token: owner });
    const { events } = await feed(`?after=${after}`);
    expect(events.map((e) => [e.type, e.data])).toEqual([
      ['category.created', { category: { id, name: 'Event shelf', parent_id: null, sort_order: 0 } }],
      ['category.updated', { category: { id, name: 'Event shelves', parent_id: null, sort_order: 3 } }],
      ['category.deleted', { category: { id, name: 'Event shelves', parent_id: null, sort_order: 3 } }],
    ]);
  });

  it('when a write is refused, then it appends nothing and the next event takes the next seq', async () => {
    const after = await lastSeq();
    const item = await createItem();
    const conflict = await app.request(`/admin/api/items/${item.id}`, {
      method: 'PATCH',
      token: owner,
      body: { price: 3 },
      headers: { 'If-Match': '"v99"' },
    });
    expectProblem(conflict, 409, 'VERSION_CONFLICT');
    const bad = await postItem(app, owner, itemBody(category.id, { price: -1 }));
    expect(bad.status).toBe(400);
    await app.request(`/admin/api/items/${item.id}`, { method: 'PATCH', token: owner, body: { price: 4 } });
    const { events } = await feed(`?after=${after}`);
    expect(events.map((e) => [e.seq, e.type])).toEqual([
      [after + 1, 'item.created'],
      [after + 2, 'item.updated'],
    ]);
  });

  it('when statuses change and items are deleted in bulk, then each item has its item.updated (and published) or item.deleted event', async () => {
    const [a, b] = [await createItem({ status: 'draft' }), await createItem({ status: 'draft' })];
    const after = await lastSeq();
    const bulk = await app.graphql(
      `mutation($ids: [Int!]!) { setItemsStatus(ids: $ids, status: active) }`,
      { ids: [a.id, b.id] },
      { token: owner },
    );
    expect(bulk.body.data?.setItemsStatus, bulk.text).toBe(2);
    const { events } = await feed(`?after=${after}`);
    expect(events.map((e) => [e.type, e.data.item.id])).toEqual([
      ['item.updated', a.id],
      ['item.published', a.id],
      ['item.updated', b.id],
      ['item.published', b.id],
    ]);
    // Deleted in bulk: one item.deleted each, in the one transaction.
    const before = await lastSeq();
    const deleted = await app.graphql(
      `mutation($ids: [Int!]!) { deleteItems(ids: $ids) }`,
      { ids: [a.id, b.id] },
      { token: owner },
    );
    expect(deleted.body.data?.deleteItems, deleted.text).toBe(2);
    const gone = await feed(`?after=${before}`);
    expect(gone.events.map((e) => [e.type, e.data])).toEqual([
      ['item.deleted', { item: { id: a.id, handle: a.handle } }],
      ['item.deleted', { item: { id: b.id, handle: b.handle } }],
    ]);
  });

  it('when a schedule passes, then the item is published by one event with no actor', async () => {
    const item = await createItem({ publish_at: new Date(Date.now() + 1500).toISOString() });
    const after = await lastSeq();
    await expect
      .poll(async () => (await feed(`?after=${after}&types=item.published`)).events.map((e) => e.data.item.id), {
        timeout: 5000,
        interval: 100,
      })
      .toEqual([item.id]);
    const [published] = (await feed(`?after=${after}&types=item.published`)).events;
    expect(published!.actor).toBeNull();
  });
});

describe('the feed (contract §14.1)', () => {
  it('when read with limit, types and after, then pages are oldest first and next_after steps over other types', async () => {
    const after = await lastSeq();
    const items = [await createItem(), await createItem(), await createItem()];
    const first = await feed(`?after=${after}&limit=2`);
    expect(first.events.map((e) => e.data.item.id)).toEqual([items[0]!.id, items[1]!.id]);
    expect(first.next_after).toBe(first.events[1]!.seq);
    const second = await feed(`?after=${first.next_after}&limit=2`);
    expect(second.events.map((e) => e.data.item.id)).toEqual([items[2]!.id]);
    const none = await feed(`?after=${after}&types=category.deleted`);
    expect(none.events).toEqual([]);
    expect(none.next_after).toBe(await lastSeq());
    const both = await feed(`?after=${after}&types=item.created,item.deleted`);
    expect(both.events).toHaveLength(3);
    const star = await feed(`?after=${after}&types=*`);
    expect(star.events).toHaveLength(3);
  });

  it('when GraphQL reads it, then it answers the same events in camelCase', async () => {
    const after = await lastSeq();
    const item = await createItem();
    const res = await app.graphql(
      `query($after: Int) { events(after: $after, types: ["item.created"]) { events { id seq type at actor { type name } data } nextAfter } }`,
      { after },
      { token: owner },
    );
    const page = res.body.data.events;
    expect(page.events).toHaveLength(1);
    expect(page.events[0]).toMatchObject({
      type: 'item.created',
      seq: after + 1,
      actor: { type: 'admin', name: 'root' },
    });
    expect(page.events[0].data.item.id).toBe(item.id);
    expect(page.nextAfter).toBe(after + 1);
  });

  it('when the arguments are wrong, then VALIDATION_FAILED names them; without a token 401; every admin role may read', async () => {
    for (const query of ['?limit=0', '?limit=501', '?after=-1', '?types=item.exploded', '?after=x']) {
      const res = await app.request(`/admin/api/events${query}`, { token: owner });
      expectProblem(res, 400, 'VALIDATION_FAILED');
    }
    expect((await app.request('/admin/api/events')).status).toBe(401);
    const viewer = await makeAdmin(app, { role: 'viewer', password: 'viewer-password-1' });
    const token = await loginAsAdmin(app, { username: viewer.username, password: 'viewer-password-1' });
    expect((await app.request('/admin/api/events', { token })).status).toBe(200);
  });
});

describe('order without gaps (contract §14.1)', () => {
  it('when many writers commit while a reader pages after=, then the reader sees every event once, in seq order', async () => {
    const after = await lastSeq();
    const writers = 50;
    const seen: number[] = [];
    let done = false;
    const reader = (async () => {
      let cursor = after;
      for (;;) {
        const finished = done;
        const page = await feed(`?after=${cursor}&limit=500`);
        seen.push(...page.events.map((e) => e.seq));
        cursor = page.next_after;
        if (finished && page.events.length === 0) return;
      }
    })();
    await Promise.all(Array.from({ length: writers }, (_, n) => createItem({ name: `Racer ${n}` })));
    done = true;
    await reader;
    expect(seen).toEqual(Array.from({ length: writers }, (_, n) => after + 1 + n));
  });
});
