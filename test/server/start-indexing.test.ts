/**
 * Items without search documents (data from before search, rows written behind the service's back)
 * are indexed before the service takes traffic (docs/search.md). That is start-up work like a
 * migration: on a large catalogue one batch may rightly take longer than a request's statement
 * limit, and start-up must not fail for it (PostgreSQL: the limit exists there alone).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogueSql } from '../../bench/data.ts';
import { startService } from '../helpers/service-process.ts';
import { createTestDatabase, TEST_DB, type TestDatabase } from '../helpers/test-database.ts';

const ITEMS = 2_000;
let database: TestDatabase | undefined;

beforeAll(async () => {
  if (TEST_DB !== 'postgres') return;
  database = await createTestDatabase();
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  await client.query(catalogueSql({ departments: 2, shelves: 4, items: ITEMS, tag: 'start', skuPrefix: 'ST' }));
  await client.end();
});
afterAll(() => database?.drop());

describe.runIf(TEST_DB === 'postgres')('search documents written at start-up', () => {
  it('when a batch takes longer than the request statement limit, then start-up still indexes every item and serves', async () => {
    const service = await startService(
      {
        DATABASE_URL: database!.url!,
        WORKERS: '1',
        SEED_DEMO: 'false',
        LOG_LEVEL: 'info',
        // The smallest limit there is: a batch of 500 items' postings takes longer on any machine.
        DATABASE_STATEMENT_TIMEOUT: '100',
      },
      120_000,
    );
    try {
      expect(service.output()).toMatch(new RegExp(`"items":${ITEMS},"msg":"search documents written"`));
      const res = await fetch(`${service.url}/api/v1/items?keyword=${encodeURIComponent('跑鞋')}&limit=1&facets=true`);
      const body = await res.json();
      expect(res.status).toBe(200);
      expect(body.total).toBeGreaterThan(0);
      expect(body.facets.specs.map((s: { name: string }) => s.name).sort()).toEqual(['color', 'size']);
    } finally {
      await service.stop();
    }
  });
});
