/**
 * Contract §7.7: DATABASE_REPLICA_URLS sends catalogue reads to replicas; everything else — logins,
 * tokens, writes and the read-back of a write — goes to the primary. A second database stands in for
 * the replica, holding the same ids under other names, so every answer shows where it was read.
 * Catalogue answers the cache keeps are read from the primary (a lagging replica is never cached).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/database.ts';
import { applyMigrations, readMigrations } from '../../src/db/migrate.ts';
import { loginAsAdmin } from '../helpers/accounts.ts';
import { ITEM_QUERY, UPDATE_ITEM } from '../helpers/catalog-admin.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { createTestDatabase, TEST_DB, type TestDatabase } from '../helpers/test-database.ts';

/** One category and one item, under names that say which database holds them. */
async function seed(db: Database, label: string): Promise<void> {
  await db.sql.exec(`
    INSERT INTO categories (id, name, sort_order, updated_at) VALUES (1, '${label} shoes', 0, now());
    INSERT INTO items (id, name, category_id, price, stock, updated_at) VALUES (1, '${label} boot', 1, 19.90, 3, now());`);
}

describe.skipIf(TEST_DB !== 'postgres')('reads on replicas', () => {
  let primary: TestApp;
  let replica: TestDatabase;
  let replicaDb: Database;
  beforeAll(async () => {
    primary = await startTestApp();
    await seed(primary.db, 'Primary');
    replica = await createTestDatabase();
    replicaDb = await openDatabase(replica.target);
    await applyMigrations(replicaDb.sql, await readMigrations());
    await seed(replicaDb, 'Replica');
  });
  afterAll(async () => {
    await replicaDb?.close();
    await replica?.drop();
    await primary?.close();
  });

  it('when the cache is off, then catalogue reads come from the replica and a write is read back from the primary', async () => {
    const app = await startTestApp(
      { CATALOG_CACHE_MB: '0' },
      { url: primary.databaseUrl!, replicaUrls: [replica.url!] },
    );
    try {
      expect((await app.request('/api/v1/items/1')).body.name).toBe('Replica boot');
      expect((await app.request('/api/v1/items')).body.items[0].name).toBe('Replica boot');
      expect((await app.request('/api/v1/categories')).body.categories[0].name).toBe('Replica shoes');
      expect((await app.graphql(ITEM_QUERY, { id: 1 })).body.data.item.name).toBe('Replica boot');
      // The admin exists on the primary only: logging in proves authentication reads it.
      const token = await loginAsAdmin(app);
      const written = await app.graphql(UPDATE_ITEM, { id: 1, input: { stock: 7 } }, { token });
      expect(written.body.data.updateItem).toMatchObject({ name: 'Primary boot', stock: 7 });
    } finally {
      await app.close();
    }
  });

  it('when the cache is on, then the answers it keeps are read from the primary, uncached ones from the replica', async () => {
    const app = await startTestApp({}, { url: primary.databaseUrl!, replicaUrls: [replica.url!] });
    try {
      expect((await app.request('/api/v1/items/1')).body.name).toBe('Primary boot');
      expect((await app.graphql(ITEM_QUERY, { id: 1 })).body.data.item.name).toBe('Replica boot');
    } finally {
      await app.close();
    }
  });
});
