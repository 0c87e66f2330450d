/**
 * The benchmark's data set on PostgreSQL: migrated by the service's own migrations, then filled by
 * a few set-based SQL statements (generate_series; deterministic, seconds not minutes). A database
 * that already holds the requested size is reused.
 */
import pg from 'pg';
import { openDatabase } from '../src/db/database.ts';
import { applyMigrations, readMigrations } from '../src/db/migrate.ts';

export interface BenchDataset {
  url: string;
  items: number;
  categoryIds: number[];
  /** Words that occur in item names (Latin and CJK), for keyword searches. */
  words: string[];
  reused: boolean;
  fillMs: number;
}

const LATIN = ['trail', 'boot', 'merino', 'parka', 'tent', 'lamp', 'sock', 'pack', 'stove', 'jacket', 'runner', 'fleece', 'shell', 'glove', 'scarf', 'bottle'];
const CJK = ['跑鞋', '羽绒服', '帐篷', '头灯', '背包', '袜子', '手套', '水壶', '外套', '登山'];
export const BENCH_WORDS = [...LATIN, ...CJK];

const sqlArray = (words: string[]) => `ARRAY[${words.map((w) => `'${w}'`).join(',')}]`;

/** Creates the database named in `url` on its server when it does not exist. */
async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) await client.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
  } finally {
    await client.end();
  }
}

export async function prepareBenchData(url: string, items: number): Promise<BenchDataset> {
  await ensureDatabase(url);
  const db = await openDatabase({ kind: 'postgres', url, poolSize: 2 });
  const started = performance.now();
  let reused = true;
  try {
    await applyMigrations(db.sql, await readMigrations());
    const [{ n }] = await db.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM items');
    const [{ c }] = await db.sql.query<{ c: number }>('SELECT count(*)::int AS c FROM categories');
    if (n !== items || c !== 50) {
      reused = false;
      await fill(db.sql.execInTransaction, items);
      await db.sql.exec('VACUUM ANALYZE');
    }
    const cats = await db.sql.query<{ id: number }>('SELECT id FROM categories ORDER BY id');
    return { url, items, categoryIds: cats.map((r) => r.id), words: BENCH_WORDS, reused, fillMs: Math.round(performance.now() - started) };
  } finally {
    await db.close();
  }
}

async function fill(run: (sql: string) => Promise<void>, items: number): Promise<void> {
  await run(`
    TRUNCATE customer_sessions, customers, idempotency_records, item_images, skus, items, categories RESTART IDENTITY CASCADE;

    -- 10 parents (ids 1..10), 40 children (ids 11..50), four per parent.
    INSERT INTO categories (name, parent_id, sort_order, created_at, updated_at)
    SELECT 'Department ' || g || ' ' || (${sqlArray(CJK)})[1 + (g - 1) % ${CJK.length}], NULL, g % 4,
           timestamptz '2026-01-01', timestamptz '2026-01-01'
      FROM generate_series(1, 10) g;
    INSERT INTO categories (name, parent_id, sort_order, created_at, updated_at)
    SELECT initcap((${sqlArray(LATIN)})[1 + g % ${LATIN.length}]) || ' ' || g, 1 + (g - 11) % 10, g % 5,
           timestamptz '2026-01-01', timestamptz '2026-01-01'
      FROM generate_series(11, 50) g;

    -- Names mix two Latin words and one CJK word; created_at descends with the id, ties included.
    INSERT INTO items (name, category_id, price, stock, created_at, updated_at)
    SELECT initcap((${sqlArray(LATIN)})[1 + (i * 7) % ${LATIN.length}]) || ' '
             || (${sqlArray(CJK)})[1 + (i * 3) % ${CJK.length}] || ' '
             || (${sqlArray(LATIN)})[1 + (i * 11) % ${LATIN.length}] || ' ' || i,
           11 + (i * 17) % 40,
           ((i * 7919) % 99999 + 100) / 100.0,
           (i * 31) % 500,
           timestamptz '2026-06-01' - (i / 2) * interval '1 minute',
           timestamptz '2026-06-01' - (i / 2) * interval '1 minute'
      FROM generate_series(1, ${items}) i;

    INSERT INTO skus (item_id, sku_code, specs, price, stock)
    SELECT it.id, 'SKU-' || it.id || '-' || s,
           jsonb_build_object('size', (ARRAY['S','M','L'])[s], 'color', (ARRAY['red','blue','黑色'])[1 + it.id % 3]),
           it.price + s - 1, (it.id * s) % 100
      FROM items it CROSS JOIN LATERAL generate_series(1, 1 + it.id % 3) s;

    INSERT INTO item_images (item_id, url, sort_order)
    SELECT it.id, 'https://cdn.example.com/bench/' || it.id || '-' || n || '.jpg', n
      FROM items it CROSS JOIN generate_series(0, 1) n;
  `);
}
