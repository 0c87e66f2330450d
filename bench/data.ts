/**
 * The benchmark's data set on PostgreSQL: migrated by the service's own migrations, then filled by
 * a few set-based SQL statements (generate_series; deterministic, seconds not minutes). A database
 * that already holds the requested size is reused; items the `mixed` scenario renamed are put back.
 */
import pg from 'pg';
import { passwordHasher } from '../src/auth/password.ts';
import { openDatabase } from '../src/db/database.ts';
import { applyMigrations, readMigrations } from '../src/db/migrate.ts';
import { indexMissing, UNINDEXED_ITEMS } from '../src/search/documents.ts';
import { indexerSql } from '../src/search/indexer-sql.ts';

// Production's argon2id cost, as the service hashes.
const { hash: hashPassword } = passwordHasher('owasp');

export interface BenchDataset {
  url: string;
  items: number;
  categoryIds: number[];
  /** Words that occur in item names (Latin and CJK), for keyword searches. */
  words: string[];
  /** 50 keywords that occur in item names: the words, then "<CJK> <latin>" pairs (fewer matches). */
  hotKeywords: string[];
  reused: boolean;
  fillMs: number;
}

export const LATIN = [
  'trail',
  'boot',
  'merino',
  'parka',
  'tent',
  'lamp',
  'sock',
  'pack',
  'stove',
  'jacket',
  'runner',
  'fleece',
  'shell',
  'glove',
  'scarf',
  'bottle',
];
export const CJK = ['跑鞋', '羽绒服', '帐篷', '头灯', '背包', '袜子', '手套', '水壶', '外套', '登山'];
export const BENCH_WORDS = [...LATIN, ...CJK];

const sqlArray = (words: string[]) => `ARRAY[${words.map((w) => `'${w}'`).join(',')}]`;

/** Item i's name and timestamps, as filled (the middle of a name is "<CJK> <latin>": see HOT_KEYWORDS). */
const itemName = (i: string) => `initcap((${sqlArray(LATIN)})[1 + (${i} * 7) % ${LATIN.length}]) || ' '
             || (${sqlArray(CJK)})[1 + (${i} * 3) % ${CJK.length}] || ' '
             || (${sqlArray(LATIN)})[1 + (${i} * 11) % ${LATIN.length}] || ' ' || ${i}`;
const itemTime = (i: string) => `timestamptz '2026-06-01' - (${i} / 2) * interval '1 minute'`;

const HOT_KEYWORDS = [
  ...BENCH_WORDS,
  ...Array.from(
    { length: 50 - BENCH_WORDS.length },
    (_, k) => `${CJK[((k + 1) * 3) % CJK.length]} ${LATIN[((k + 1) * 11) % LATIN.length]}`,
  ),
];

/** Names the `mixed` scenario writes start with this; prepareBenchData puts such items back as filled. */
export const MIXED_NAME_PREFIX = 'bench-mixed ';

/** The `postgres` database on the server of `url` (to create or drop others from). */
export function maintenanceUrl(url: string): string {
  const admin = new URL(url);
  admin.pathname = '/postgres';
  return admin.toString();
}

/** Creates the database named in `url` on its server when it does not exist. */
async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const client = new pg.Client({ connectionString: maintenanceUrl(url) });
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
    const { n } = (await db.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM items'))[0]!;
    const { c } = (await db.sql.query<{ c: number }>('SELECT count(*)::int AS c FROM categories'))[0]!;
    if (n !== items || c !== 50) {
      reused = false;
      await fill(db.sql.execInTransaction, items);
    } else {
      await restoreRenamedItems(url);
    }
    if (await indexInBulk(url)) await db.sql.exec('VACUUM ANALYZE');
    // Revision 2's index for its substring search, which the floor's reference route runs (bench/floor.ts).
    await db.sql.exec(
      'CREATE EXTENSION IF NOT EXISTS pg_trgm; CREATE INDEX IF NOT EXISTS bench_reference_name_trgm ON items USING gin (name gin_trgm_ops)',
    );
    const cats = await db.sql.query<{ id: number }>('SELECT id FROM categories ORDER BY id');
    return {
      url,
      items,
      categoryIds: cats.map((r) => r.id),
      words: BENCH_WORDS,
      hotKeywords: HOT_KEYWORDS,
      reused,
      fillMs: Math.round(performance.now() - started),
    };
  } finally {
    await db.close();
  }
}

/** How often the bulk indexer's tables are analysed again, in its statements (~0.5 s each time). */
const ANALYSE_EVERY_STATEMENTS = 500;

/** Tables written by the indexer, unlogged while it writes in bulk. */
const INDEX_TABLES = ['item_search_documents', 'search_postings', 'item_spec_summaries'];

/**
 * The postings' triggers that keep `search_token_counts` (migration 20261130000000_token_counts) and
 * the kept facet counts (20261210000000_kept_facet_counts): off while the indexer writes in bulk, the
 * counts made once at the end (RECOUNT; the test of the kept counts runs it too). Kept on, every
 * batch upserted thousands of count rows and its delete's trigger joined the whole, ever more bloated
 * count table: at 300,000 items a batch's `DELETE FROM search_postings` took 1.1 s and indexing crawled.
 */
export const COUNT_TRIGGERS = 'ALTER TABLE search_postings DISABLE TRIGGER USER';
export const RECOUNT = `BEGIN;
  ALTER TABLE search_postings ENABLE TRIGGER USER;
  TRUNCATE search_token_counts;
  INSERT INTO search_token_counts (token, items) SELECT token, count(*)::int FROM search_postings WHERE visible GROUP BY token;
  SELECT search_facets_recount();
  COMMIT`;

/**
 * Writes the search documents, postings and spec summaries of every item without them, with the
 * service's own indexer (search/documents.ts) over one connection, in bulk: the tables unlogged
 * meanwhile (at 1,000,000 items that is ~90 million postings, whose WAL made each batch slower than
 * the last) and the token counts made once at the end, then logged again. Returns how many items
 * it indexed. A run stopped half-way leaves the count triggers off: the next run sees it and recounts.
 */
async function indexInBulk(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const missing = await client.query(`${UNINDEXED_ITEMS} LIMIT 1`);
    const { rows } = await client.query(
      "SELECT count(*)::int AS off FROM pg_trigger WHERE tgrelid = 'search_postings'::regclass AND NOT tgisinternal AND tgenabled = 'D'",
    );
    const countsStale = rows[0].off > 0;
    if (missing.rowCount === 0) {
      if (countsStale) await client.query(RECOUNT);
      return 0;
    }
    // JIT off, as on the service's connections: its compilation cost more than the statements here.
    await client.query('SET synchronous_commit = off; SET jit = off');
    for (const table of INDEX_TABLES) await client.query(`ALTER TABLE ${table} SET UNLOGGED`);
    await client.query(COUNT_TRIGGERS);
    // Statistics for the indexer's plans (a rewritten table has none until autovacuum comes round,
    // and without them a batch's delete of its items' postings scans the whole table).
    const analyse = () => client.query(`ANALYZE ${INDEX_TABLES.join(', ')}`);
    await analyse();
    // And again as the tables grow: autovacuum did not come round during a fill, and statistics taken
    // at 0 postings had the delete scan all 29 million of them at 320,000 items (1.6 s a batch, and
    // growing); analysed again, the same batch took milliseconds.
    let statements = 0;
    const started = performance.now();
    const indexed = await indexMissing(
      indexerSql(async (text, params) => {
        if (++statements % ANALYSE_EVERY_STATEMENTS === 0) await analyse();
        return (await client.query(text, params)).rows;
      }),
    );
    await client.query(RECOUNT);
    console.error(`bench: ${indexed} items indexed in ${Math.round((performance.now() - started) / 1000)} s`);
    for (const table of INDEX_TABLES) await client.query(`ALTER TABLE ${table} SET LOGGED`);
    return indexed;
  } finally {
    await client.end();
  }
}

/**
 * The kept item JSON's insert triggers (migration 20261211000000_kept_item_json), off while the fill
 * inserts items, then SKUs, then images: on, each of the three statements would write every item's
 * JSON again (3 × the work, 2 dead rows per item); the JSON is written once at the end instead.
 */
const KEPT_JSON_INSERT_TRIGGERS = [
  ['items', 'items_rest_json_insert'],
  ['skus', 'skus_rest_json_insert'],
  ['item_images', 'item_images_rest_json_insert'],
];
const keptJsonTriggers = (on: boolean) =>
  KEPT_JSON_INSERT_TRIGGERS.map(
    ([table, trigger]) => `ALTER TABLE ${table} ${on ? 'ENABLE' : 'DISABLE'} TRIGGER ${trigger};`,
  ).join('\n');

async function fill(run: (sql: string) => Promise<void>, items: number): Promise<void> {
  await run(`
    TRUNCATE customer_sessions, customers, idempotency_records, item_images, skus, items, categories RESTART IDENTITY CASCADE;
    ${keptJsonTriggers(false)}
    ${catalogueSql({ departments: 10, shelves: 40, items, tag: 'bench', skuPrefix: 'SKU' })}
    ${keptJsonTriggers(true)}
    SELECT item_rest_json_refresh(NULL);
  `);
}

/**
 * The set-based SQL that fills an empty catalogue (the benchmark's and the soak's): `departments`
 * top-level categories, `shelves` children spread over them, `items` items on the shelves with 1–3
 * SKUs (`<skuPrefix>-<item>-<n>`) and 2 images (under `/<tag>/`) each.
 */
export function catalogueSql(opts: {
  departments: number;
  shelves: number;
  items: number;
  tag: string;
  skuPrefix: string;
}): string {
  const { departments: d, shelves, items, tag, skuPrefix } = opts;
  return `
    -- ${d} parents (ids 1..${d}), ${shelves} children (ids ${d + 1}..${d + shelves}) spread over them.
    INSERT INTO categories (name, parent_id, sort_order, created_at, updated_at)
    SELECT 'Department ' || g || ' ' || (${sqlArray(CJK)})[1 + (g - 1) % ${CJK.length}], NULL, g % 4,
           timestamptz '2026-01-01', timestamptz '2026-01-01'
      FROM generate_series(1, ${d}) g;
    INSERT INTO categories (name, parent_id, sort_order, created_at, updated_at)
    SELECT initcap((${sqlArray(LATIN)})[1 + g % ${LATIN.length}]) || ' ' || g, 1 + (g - ${d + 1}) % ${d}, g % 5,
           timestamptz '2026-01-01', timestamptz '2026-01-01'
      FROM generate_series(${d + 1}, ${d + shelves}) g;

    -- Names mix two Latin words and one CJK word; created_at descends with the id, ties included.
    INSERT INTO items (name, category_id, price, stock, created_at, updated_at)
    SELECT ${itemName('i')},
           ${d + 1} + (i * 17) % ${shelves},
           ((i::bigint * 7919) % 99999 + 100) / 100.0,
           (i * 31) % 500,
           ${itemTime('i')},
           ${itemTime('i')}
      FROM generate_series(1, ${Math.floor(items)}) i;

    INSERT INTO skus (item_id, sku_code, specs, price, stock)
    SELECT it.id, '${skuPrefix}-' || it.id || '-' || s,
           jsonb_build_object('size', (ARRAY['S','M','L'])[s], 'color', (ARRAY['red','blue','黑色'])[1 + it.id % 3]),
           it.price + s - 1, (it.id * s) % 100
      FROM items it CROSS JOIN LATERAL generate_series(1, 1 + it.id % 3) s;

    INSERT INTO item_images (item_id, url, sort_order)
    SELECT it.id, 'https://cdn.example.com/${tag}/' || it.id || '-' || n || '.jpg', n
      FROM items it CROSS JOIN generate_series(0, 1) n;`;
}

/** Items the `mixed` scenario renamed (a run that stopped before putting them back): name and updated_at as filled. */
export async function restoreRenamedItems(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rowCount } = await client.query(
      `UPDATE items SET name = ${itemName('id')}, updated_at = ${itemTime('id')} WHERE name LIKE $1`,
      [`${MIXED_NAME_PREFIX}%`],
    );
    return rowCount ?? 0;
  } finally {
    await client.end();
  }
}

/** The customer the `login` scenario logs in as (bench/requests.ts). */
export const BENCH_CUSTOMER = { username: 'bench@example.com', password: 'bench-password-1234' };

/** Creates BENCH_CUSTOMER, or sets its password again and enables it. */
export async function ensureBenchCustomer(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const hash = await hashPassword(BENCH_CUSTOMER.password);
    await client.query(
      `INSERT INTO customers (username, password_hash, nickname, created_at, updated_at)
       VALUES ($1, $2, 'Bench', now(), now())
       ON CONFLICT (username) DO UPDATE SET password_hash = EXCLUDED.password_hash, disabled = false`,
      [BENCH_CUSTOMER.username, hash],
    );
  } finally {
    await client.end();
  }
}
