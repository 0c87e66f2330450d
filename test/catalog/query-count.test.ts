/**
 * Reads cost a fixed number of SQL statements whatever the page size (no N+1), and the one-statement
 * read path returns exactly what Prisma returns for the same item.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findItem } from '../../src/catalog/item.repository.ts';
import { indexMissing } from '../../src/search/documents.ts';
import { loginAsAdmin } from '../helpers/accounts.ts';
import { ITEM_INCLUDE, makeCategory } from '../helpers/catalog.ts';
import { lockWaiters } from '../helpers/lock-waiters.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { TEST_DB } from '../helpers/test-database.ts';

let app: TestApp;
let parentId: number;

beforeAll(async () => {
  app = await startTestApp();
  const parent = await makeCategory(app, { name: 'Outdoor' });
  const child = await makeCategory(app, { name: 'Tents', parentId: parent.id });
  parentId = parent.id;
  // 120 items with 3 SKUs and 2 images each, in the parent and the child category.
  for (let i = 0; i < 120; i++) {
    await app.db.prisma.item.create({
      data: {
        name: `Tent ${i} 帐篷`,
        categoryId: i % 2 ? parent.id : child.id,
        price: `${i}.5`,
        stock: i,
        skus: {
          create: [1, 2, 3].map((n) => ({
            skuCode: `T${i}-${n}`,
            specs: { size: String(n) },
            price: `${i}.0${n}`,
            stock: n,
          })),
        },
        images: { create: [1, 0].map((n) => ({ url: `https://cdn.example.com/t/${i}-${n}.jpg`, sortOrder: n })) },
      },
    });
  }
  // Written behind the service's back: their search documents, as a start of the service writes them.
  await indexMissing(app.db.prisma);
});
afterAll(() => app.close());

/** Statements the database saw while `fn` ran. */
async function statementsOf(fn: () => Promise<unknown>): Promise<number> {
  const before = app.db.statementCount();
  await fn();
  return app.db.statementCount() - before;
}

async function get(path: string) {
  const res = await app.request(path);
  expect(res.status, res.text).toBe(200);
  return res;
}

describe('SQL statements per read', () => {
  it('when a page of 1 and a page of 100 items are listed, then each costs one statement', async () => {
    const one = await statementsOf(() => get('/api/v1/items?limit=1'));
    const hundred = await statementsOf(async () =>
      expect((await get('/api/v1/items?limit=100')).body.items).toHaveLength(100),
    );
    expect(one).toBe(1);
    expect(hundred).toBe(1);
  });

  it('when filtering by category tree and keyword, then still one statement (the synonym groups and a keyword’s forgiving spellings are read once per catalogue change)', async () => {
    // The first search after a catalogue change reads the synonym groups (a second statement, once).
    const first = await statementsOf(() => get(`/api/v1/items?limit=1&keyword=${encodeURIComponent('tent')}`));
    expect(first).toBe(2);
    const tents = (limit: number) =>
      get(`/api/v1/items?limit=${limit}&category_id=${parentId}&keyword=${encodeURIComponent('帐篷')}`);
    // A keyword first seen in this catalogue generation asks the vocabulary which forgiving spellings
    // it has (§9.6, search/forgiving.ts: once per keyword and change); asked again, one statement.
    expect(await statementsOf(async () => expect((await tents(100)).body.total).toBe(120))).toBe(2);
    // Another page (not the answer cache's copy): one statement.
    expect(await statementsOf(async () => expect((await tents(99)).body.total).toBe(120))).toBe(1);
  });

  it('when the list is asked through GraphQL with every relation, then one statement too', async () => {
    const n = await statementsOf(async () => {
      const res = await app.graphql(
        '{ items(limit: 100) { items { id category { id name } skus { id specs price } images { url sortOrder } } total } }',
      );
      expect(res.body.data.items.items).toHaveLength(100);
    });
    expect(n).toBe(1);
  });

  it('when an item and the categories are read, then one statement each', async () => {
    const { body } = await get('/api/v1/items?limit=1');
    expect(await statementsOf(() => get(`/api/v1/items/${body.items[0].id}`))).toBe(1);
    expect(await statementsOf(() => get('/api/v1/categories'))).toBe(1);
  });
});

describe('the one-statement read path', () => {
  it('when an item is read, then it holds what Prisma reads for the same relations and order, in wire form', async () => {
    const { id } = await app.db.prisma.item.findFirstOrThrow({ where: { name: 'Tent 7 帐篷' } });
    const viaSql = await findItem(app.db.sql, id);
    const p = await app.db.prisma.item.findUniqueOrThrow({ where: { id }, include: ITEM_INCLUDE });
    // The fields answers show: exact decimal text, ISO 8601 UTC timestamps.
    expect(viaSql).toEqual({
      id: p.id,
      name: p.name,
      description: p.description,
      categoryId: p.categoryId,
      category: {
        id: p.category.id,
        name: p.category.name,
        parentId: p.category.parentId,
        sortOrder: p.category.sortOrder,
      },
      price: p.price.toFixed(2),
      stock: p.stock,
      skus: p.skus.map((s) => ({
        id: s.id,
        skuCode: s.skuCode,
        specs: s.specs,
        price: s.price.toFixed(2),
        stock: s.stock,
      })),
      images: p.images.map((m) => ({ id: m.id, url: m.url, sortOrder: m.sortOrder })),
      status: p.status,
      publishAt: p.publishAt?.toISOString() ?? null,
      unpublishAt: p.unpublishAt?.toISOString() ?? null,
      handle: p.handle,
      version: p.version,
      createdAt: p.createdAt.toISOString(),
      updatedAt: p.updatedAt.toISOString(),
    });
    expect(viaSql!.images.map((m) => m.sortOrder)).toEqual([0, 1]);
    expect(viaSql!.skus.map((s) => s.price)).toEqual(['7.01', '7.02', '7.03']);
  });
});

// Counted on PostgreSQL, where every statement of the pool's connections is (the embedded adapter's
// transactions are not).
describe.skipIf(TEST_DB !== 'postgres')('SQL statements per write, on PostgreSQL', () => {
  it('when an item is renamed, then its transaction is 10 statements, the catalogue lock held for the last 4', async () => {
    const token = await loginAsAdmin(app);
    const { id } = await app.db.prisma.item.findFirstOrThrow({ where: { name: 'Tent 8 帐篷' } });
    const rename = (name: string) =>
      app.graphql(
        'mutation ($id: Int!, $name: String!) { updateItem(id: $id, input: { name: $name }) { id name } }',
        { id, name },
        { token },
      );
    await rename('Tent 8 warm');
    // The warm-up's own statements after its answer (its change heard: the next schedule time) are done.
    await app.catalogNotificationsHeard();
    for (let last = -1; last !== app.db.statementCount(); ) {
      last = app.db.statementCount();
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    // Another session holds the catalogue lock: the rename sends what comes before it, then waits.
    const holder = new pg.Client({ connectionString: app.databaseUrl });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT search_index_lock()');
      const start = app.db.statementCount();
      const renamed = rename('Tent 8 renamed 帐篷');
      for (const until = Date.now() + 10_000; (await lockWaiters(holder)) === 0 && Date.now() < until; )
        await new Promise((resolve) => setTimeout(resolve, 20));
      const beforeLock = app.db.statementCount() - start;
      await holder.query('COMMIT');
      expect((await renamed).body.data.updateItem.name).toBe('Tent 8 renamed 帐篷');
      const n = app.db.statementCount() - start;
      // Before the lock: the admin's session, BEGIN, the version claim, the item before (one statement:
      // its SKUs and images in it), the UPDATE, the item after, and the lock itself (sent, waiting).
      expect(beforeLock).toBe(7);
      // Under it: the spec summaries with the item's text and the categories' names, its documents and
      // postings, its audit entry with its events, COMMIT; then the answer's read and, once the change
      // is heard, the next schedule time (after the answer or before it). Each statement under the lock
      // is a round trip through an event loop that may be busy with reads, while every other catalogue
      // write waits (docs/performance.md, "The catalogue lock's hold"): it was held for 18 statements,
      // then 9.
      expect(n - beforeLock).toBeGreaterThanOrEqual(5);
      expect(n - beforeLock).toBeLessThanOrEqual(6);
    } finally {
      await holder.end();
    }
  });
});
