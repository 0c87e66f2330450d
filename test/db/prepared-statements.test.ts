/**
 * Named prepared statements (src/db/prepared.ts): the hot reads whose text is fixed are parsed and
 * planned once per connection. On PostgreSQL the session's `pg_prepared_statements` shows which.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeBulkItems, makeCategory, makeItem } from '../helpers/catalog.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { openTestDatabase, TEST_DB } from '../helpers/test-database.ts';

const prepared = async (sql: { query<T>(text: string): Promise<T[]> }) =>
  (await sql.query<{ statement: string }>('SELECT statement FROM pg_prepared_statements ORDER BY prepare_time')).map(
    (r) => r.statement,
  );

describe.skipIf(TEST_DB !== 'postgres')('prepared statements', () => {
  it('when a statement is marked to be prepared, then the connection keeps it under one name; an unmarked one is not kept', async () => {
    const db = await openTestDatabase({ poolSize: 1 });
    try {
      expect(await db.sql.query('SELECT $1::int AS n', [1], { prepare: true })).toEqual([{ n: 1 }]);
      expect(await db.sql.query('SELECT $1::int AS n', [2], { prepare: true })).toEqual([{ n: 2 }]);
      expect(await db.sql.query('SELECT $1::int + 1 AS n', [2])).toEqual([{ n: 3 }]);
      expect(await prepared(db.sql)).toEqual(['SELECT $1::int AS n']);
    } finally {
      await db.dispose();
    }
  });

  describe('through the HTTP server', () => {
    let app: TestApp;
    let itemId: number;
    beforeAll(async () => {
      // One connection, so the session asked afterwards is the one that served.
      app = await startTestApp({ CATALOG_CACHE_MB: '0' }, { poolSize: 1 });
      const category = await makeCategory(app, { name: 'Prepared' });
      itemId = (await makeItem(app, { categoryId: category.id, name: 'Prepared lamp' })).id;
    });
    afterAll(() => app.close());

    it('when one item, the categories, a plain page and a one-word search are read, then each statement is prepared once; a filtered page is not', async () => {
      for (let round = 0; round < 2; round++) {
        expect((await app.request(`/api/v1/items/${itemId}`)).status).toBe(200);
        expect((await app.request('/api/v1/categories')).status).toBe(200);
        expect((await app.request('/api/v1/items?page=2')).status).toBe(200);
        expect((await app.request('/api/v1/items?keyword=lamp')).body.total).toBe(1);
        expect((await app.request('/api/v1/search/suggestions?q=lamp')).status).toBe(200);
      }
      const before = await prepared(app.db.sql);
      expect(before.find((s) => s.includes('WHERE i.id = $1'))).toBeDefined();
      expect(before.find((s) => s.includes('FROM categories c'))).toBeDefined();
      expect(before.find((s) => s.includes('FROM search_postings WHERE token = $3'))).toBeDefined();
      expect(before.find((s) => s.includes('token = $1 AND in_name'))).toBeDefined();
      expect(new Set(before).size).toBe(before.length);
      // A category's best plan depends on its size: never one plan for all.
      expect((await app.request(`/api/v1/items?category_id=${(await makeCategory(app)).id}`)).status).toBe(200);
      expect(await prepared(app.db.sql)).toEqual(before);
    });
  });
  describe('a large catalogue, through the HTTP server', () => {
    let app: TestApp;
    beforeAll(async () => {
      app = await startTestApp({ CATALOG_CACHE_MB: '0' }, { poolSize: 1 });
      await makeBulkItems(app, (await makeCategory(app)).id, 1_000, 'Plan lamp');
      await app.db.sql.exec('ANALYZE items');
    });
    afterAll(() => app.close());

    it('when a page of a large catalogue is read again and again, then PostgreSQL keeps one generic plan for it instead of planning each time', async () => {
      // A page's LIMIT as a parameter made the generic plan look ~20 times costlier than a custom one
      // once a tenth of the rows (PostgreSQL's guess for a LIMIT it cannot see) exceeds a page, so
      // every execution was planned again (catalog/item.repository.ts pageWindow).
      for (let round = 0; round < 12; round++) {
        expect((await app.request(`/api/v1/items?page=${1 + (round % 3)}`)).status).toBe(200);
        expect((await app.request('/api/v1/items?keyword=lamp')).status).toBe(200);
      }
      const plans = await app.db.sql.query<{ statement: string; generic_plans: string; custom_plans: string }>(
        'SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements',
      );
      const pages = plans.filter((p) => p.statement.includes('LIMIT $1'));
      expect(pages.map((p) => p.statement.includes('search_postings')).sort()).toEqual([false, true]);
      for (const page of pages) {
        // Five custom plans first (PostgreSQL's rule), then the generic one on every execution.
        expect(Number(page.custom_plans)).toBeLessThanOrEqual(5);
        expect(Number(page.generic_plans)).toBeGreaterThanOrEqual(7);
      }
    });
  });
});
