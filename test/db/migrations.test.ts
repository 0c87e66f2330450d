import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findItemPage } from '../../src/catalog/item.repository.ts';
import type { Database } from '../../src/db/database.ts';
import { applyMigrations, type Migration, MigrationError, readMigrations } from '../../src/db/migrate.ts';
import { indexMissing } from '../../src/search/documents.ts';
import { compileKeyword } from '../../src/search/keyword.ts';
import { openTestDatabase } from '../helpers/test-database.ts';

let db: Database & { dispose(): Promise<void> };
beforeEach(async () => {
  db = await openTestDatabase({ empty: true });
});
afterEach(() => db.dispose());

const migration = (name: string, script: string): Migration => ({
  name,
  script,
  checksum: createHash('sha256').update(script).digest('hex'),
});

describe('the migration runner', () => {
  it('when run on an empty database, then it records each migration as `prisma migrate deploy` does', async () => {
    const migrations = await readMigrations();
    expect(migrations.length).toBeGreaterThan(0);
    expect(await applyMigrations(db.sql, migrations)).toEqual(migrations.map((m) => m.name));
    const rows = await db.sql.query<any>(
      'SELECT id, checksum, migration_name, finished_at, rolled_back_at, applied_steps_count, logs FROM "_prisma_migrations" ORDER BY migration_name',
    );
    expect(rows).toHaveLength(migrations.length);
    rows.forEach((row, i) => {
      expect(row.migration_name).toBe(migrations[i]!.name);
      // Prisma's checksum: sha256 hex of the migration.sql bytes.
      expect(row.checksum).toBe(migrations[i]!.checksum);
      expect(row.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(row.finished_at).not.toBeNull();
      expect(row.rolled_back_at).toBeNull();
      expect(row.applied_steps_count).toBe(1);
    });
    const columns = await db.sql.query<{ column_name: string; data_type: string; is_nullable: string }>(
      `SELECT column_name, data_type, is_nullable FROM information_schema.columns
        WHERE table_name = '_prisma_migrations' ORDER BY ordinal_position`,
    );
    expect(columns.map((c) => `${c.column_name}:${c.data_type}:${c.is_nullable}`)).toEqual([
      'id:character varying:NO',
      'checksum:character varying:NO',
      'finished_at:timestamp with time zone:YES',
      'migration_name:character varying:NO',
      'logs:text:YES',
      'rolled_back_at:timestamp with time zone:YES',
      'started_at:timestamp with time zone:NO',
      'applied_steps_count:integer:NO',
    ]);
  });

  it('when run a second time, then nothing is applied again', async () => {
    const migrations = await readMigrations();
    await applyMigrations(db.sql, migrations);
    expect(await applyMigrations(db.sql, migrations)).toEqual([]);
    const [count] = await db.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM "_prisma_migrations"');
    expect(count?.n).toBe(migrations.length);
  });

  it('when an applied migration was edited, then start-up stops with a message naming it', async () => {
    await applyMigrations(db.sql, [migration('20990101000000_one', 'CREATE TABLE t_one (id int);')]);
    const edited = migration('20990101000000_one', 'CREATE TABLE t_one (id bigint);');
    await expect(applyMigrations(db.sql, [edited])).rejects.toThrow(MigrationError);
    await expect(applyMigrations(db.sql, [edited])).rejects.toThrow(
      /20990101000000_one was changed after it was applied/,
    );
  });

  it('when a migration fails half-way, then none of its statements stay and it is not recorded', async () => {
    const bad = migration('20990101000000_bad', 'CREATE TABLE t_half (id int);\nSELECT no_such_function();');
    await expect(applyMigrations(db.sql, [bad])).rejects.toThrow(/20990101000000_bad failed/);
    const tables = await db.sql.query(`SELECT 1 FROM information_schema.tables WHERE table_name = 't_half'`);
    expect(tables).toHaveLength(0);
    const recorded = await db.sql.query(
      `SELECT 1 FROM "_prisma_migrations" WHERE migration_name = '20990101000000_bad'`,
    );
    expect(recorded).toHaveLength(0);
    // The database stays usable, and a fixed migration applies.
    const fixed = migration('20990101000000_bad', 'CREATE TABLE t_half (id int);');
    expect(await applyMigrations(db.sql, [fixed])).toEqual(['20990101000000_bad']);
  });

  it('when Prisma left a failed migration (finished_at null), then start-up stops and says how to resolve it', async () => {
    await applyMigrations(db.sql, []);
    await db.sql.exec(
      `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at) VALUES ('00000000-0000-0000-0000-000000000001', 'x', '20990101000000_failed', now())`,
    );
    await expect(applyMigrations(db.sql, [])).rejects.toThrow(/prisma migrate resolve/);
  });
});

describe('the operator-trust migration on existing data (contract §10)', () => {
  it('when a shop from before roles is migrated, then its admins are owners, its sessions keep their times and its Idempotency-Keys stay the admin’s', async () => {
    const migrations = await readMigrations();
    const at = migrations.findIndex((m) => m.name.endsWith('_operator_trust'));
    expect(at).toBeGreaterThan(0);
    await applyMigrations(db.sql, migrations.slice(0, at));
    await db.sql.exec(`
      INSERT INTO admins (username, password_hash, role, updated_at) VALUES ('old-root', 'h', 'admin', now());
      INSERT INTO customers (username, updated_at) VALUES ('old@example.com', now());
      INSERT INTO customer_sessions (id, customer_id, current_jti, current_issued_at, created_at, expires_at)
        SELECT '11111111-1111-4111-8111-111111111111', id, '22222222-2222-4222-8222-222222222222',
               '2026-11-20T10:00:00Z', '2026-11-19T08:00:00Z', '2026-12-19T08:00:00Z' FROM customers;
      INSERT INTO idempotency_records (admin_id, key, request_hash, response_status, response_body, expires_at)
        SELECT id, 'k-1', 'h', 201, '{"itemId":1}', now() + interval '1 day' FROM admins;`);
    expect(await applyMigrations(db.sql, migrations)).toEqual(migrations.slice(at).map((m) => m.name));
    const [admin] = await db.sql.query<{ id: number; role: string }>('SELECT id, role::text AS role FROM admins');
    expect(admin!.role).toBe('owner');
    const [session] = await db.sql.query<{ created: string; used: string }>(
      `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI') AS created,
              to_char(last_used_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI') AS used FROM customer_sessions`,
    );
    expect(session).toEqual({ created: '2026-11-19 08:00', used: '2026-11-20 10:00' });
    const [record] = await db.sql.query<{ owner: string }>('SELECT owner FROM idempotency_records');
    expect(record!.owner).toBe(`admin:${admin!.id}`);
    // New admins default to the least role.
    await db.sql.exec(`INSERT INTO admins (username, password_hash, updated_at) VALUES ('new-one', 'h', now())`);
    const [fresh] = await db.sql.query<{ role: string }>(
      `SELECT role::text AS role FROM admins WHERE username = 'new-one'`,
    );
    expect(fresh!.role).toBe('viewer');
  });

  it('when a shop from before the one-word index is migrated, then its documents stay until its items are indexed, and one-word search then finds them', async () => {
    const migrations = await readMigrations();
    const at = migrations.findIndex((m) => m.name.endsWith('_one_word_index'));
    expect(at).toBeGreaterThan(0);
    await applyMigrations(db.sql, migrations.slice(0, at));
    await db.sql.exec(`
      INSERT INTO categories (name, updated_at) VALUES ('Footwear', now());
      INSERT INTO items (name, category_id, price, stock, updated_at)
        SELECT 'Trail Runner 跑鞋', id, 99, 1, now() FROM categories;
      INSERT INTO item_search_documents (item_id, name_text, name_words, name_pinyin, category_text, category_words,
                                         category_pinyin, sku_text, sku_words, description_text, description_words, lookup)
        SELECT id, 'old', ' old ', ' ', '', ' ', ' ', '', ' ', '', ' ', '{old}' FROM items;`);
    await applyMigrations(db.sql, migrations);
    // The migration only adds the table: an instance of the previous version still finds what it found.
    expect(await db.sql.query('SELECT name_text FROM item_search_documents')).toEqual([{ name_text: 'old' }]);
    // The service's start indexes items without postings (src/setup/prepare-database.ts).
    expect(await indexMissing(db.prisma)).toBe(1);
    for (const keyword of ['trail', '跑鞋', 'paoxie']) {
      const page = await findItemPage(db.sql, { search: compileKeyword(keyword) }, 'relevance', 20, 0);
      expect(
        page.items.map((i) => i.name),
        keyword,
      ).toEqual(['Trail Runner 跑鞋']);
    }
  });
});
