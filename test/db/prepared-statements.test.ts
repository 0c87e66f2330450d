/**
 * Named prepared statements (src/db/prepared.ts): the hot reads whose text is fixed are parsed and
 * planned once per connection. On PostgreSQL the session's `pg_prepared_statements` shows which.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCategory, makeItem } from '../helpers/catalog.ts';
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
});
