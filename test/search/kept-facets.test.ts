/**
 * Kept facet counts (prisma/migrations/20261210000000_kept_facet_counts; src/search/facets.ts): a
 * kept token's facets are read from counts the catalogue's writes keep. Every count must stay exact
 * (contract §9.2), so on the relevance suite's 360 items, with every token kept (threshold 1), after
 * each kind of write the kept tables are recounted from scratch — from the postings, items and spec
 * summaries themselves, not from what the triggers keep — and must be equal; and the facets a kept
 * token answers with must be those counted from its matches (the same request with `min_price=0`,
 * which takes the counting path) and pass §9.2's test of every count. A write's deltas wait in
 * search_facet_pending until a fold (search/facet-fold.ts) adds them to the counts: the counts plus
 * the pending rows are checked as they are found, then again after a fold (the counts alone).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COUNT_TRIGGERS, RECOUNT } from '../../bench/data.ts';
import { loadSuite, suiteItems } from '../../bench/relevance-suite.ts';
import { reindexAll } from '../../src/search/documents.ts';
import { foldFacetCounts } from '../../src/search/facet-fold.ts';
import { keptFacets } from '../../src/search/facets.ts';
import { loginAsAdmin } from '../helpers/accounts.ts';
import { expectCountsAreTotals, listItems } from '../helpers/facet-counts.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { scaled } from '../helpers/time-scale.ts';
import { csv, ITEM_FILE_HEADER, runImport } from '../transfer/import-helpers.ts';

let app: TestApp;
let admin: string;

beforeAll(async () => {
  app = await startTestApp({ LOGIN_IP_PER_MINUTE: '1000' });
  await loadSuite(app.db.prisma, suiteItems());
  await app.db.sql.query('SELECT search_facets_keep(1)');
  // The suite's items all cost 99.00 and are in stock: prices over a wide range (every bucket a sum
  // of cells), some out of stock — written behind the service's back, one statement: the triggers
  // move every item's counts.
  await app.db.sql.query('UPDATE items SET price = ((id * 7919) % 99999 + 100) / 100.0, stock = id % 7');
  admin = await loginAsAdmin(app);
}, 120_000);
afterAll(() => app.close());

const gql = async (query: string, variables: Record<string, unknown> = {}) => {
  const res = await app.graphql(query, variables, { token: admin });
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  return res.body.data;
};

/** Rows of `a` not in `b` and of `b` not in `a` (SQL queries of the same columns): none when equal. */
async function difference(a: string, b: string): Promise<unknown[]> {
  return app.db.sql.query(`(${a} EXCEPT ALL ${b}) UNION ALL (${b} EXCEPT ALL ${a}) LIMIT 5`);
}

/** The truth: each visible posting of a kept token, with its item's category, price and spec set. */
const TRUTH = `SELECT p.token, i.category_id, (i.price * 100)::bigint AS cents, COALESCE(spec_set_of(ss.spellings), 0) AS spec_set
                 FROM search_postings p JOIN items i ON i.id = p.item_id
                 LEFT JOIN item_spec_summaries ss ON ss.item_id = i.id
                WHERE p.visible AND p.token IN (SELECT token FROM search_facet_tokens)`;

/** A kept table's rows plus the pending deltas for it, netted: what the facets read. */
const KEPT_AND_PENDING = `SELECT token, category_id, spec_set, sum(items)::int
                            FROM (SELECT token, category_id, spec_set, items FROM search_facet_counts
                                  UNION ALL SELECT t, category_id, spec_set, items FROM search_facet_pending, unnest(tokens) t) x
                           GROUP BY 1, 2, 3 HAVING sum(items) <> 0`;
const PRICES_KEPT_AND_PENDING = `SELECT token, scale, cell, sum(items)::int
                                   FROM (SELECT token, scale, cell, items FROM search_price_counts
                                         UNION ALL SELECT t, sc.scale, p.cents / sc.unit, p.items FROM search_facet_pending p
                                          CROSS JOIN unnest(p.tokens) t CROSS JOIN (VALUES (2::smallint, 100::bigint), (4, 10000), (6, 1000000)) sc(scale, unit)) x
                                  GROUP BY 1, 2, 3 HAVING sum(items) <> 0`;

/**
 * Every kept table recounted from scratch, compared with what is kept plus what is pending (as
 * found: a background fold may or may not have run), then with the counts alone after a fold.
 */
async function expectKeptCountsExact(when: string) {
  await expectKeptTablesExact(`${when} (counts + pending)`, KEPT_AND_PENDING, PRICES_KEPT_AND_PENDING);
  await foldFacetCounts(app.db.sql);
  expect(await app.db.sql.query('SELECT 1 FROM search_facet_pending LIMIT 1'), `${when}: all folded`).toEqual([]);
  await expectKeptTablesExact(
    `${when} (folded)`,
    'SELECT token, category_id, spec_set, items FROM search_facet_counts WHERE items <> 0',
    'SELECT token, scale, cell, items FROM search_price_counts WHERE items <> 0',
  );
}

/** The kept tables (plus pending) against the truth, within a transaction (`query`). */
async function expectNoDifference(
  query: <T = Record<string, unknown>>(text: string, params?: unknown[]) => Promise<T[]>,
  counts: string,
  prices: string,
) {
  const diff = (a: string, b: string) => query(`(${a} EXCEPT ALL ${b}) UNION ALL (${b} EXCEPT ALL ${a}) LIMIT 5`);
  expect(
    await diff(counts, `SELECT token, category_id, spec_set, count(*)::int FROM (${TRUTH}) t GROUP BY 1, 2, 3`),
  ).toEqual([]);
  expect(
    await diff(
      prices,
      `SELECT token, sc.scale, t.cents / sc.unit, count(*)::int
         FROM (${TRUTH}) t CROSS JOIN (VALUES (2::smallint, 100::bigint), (4, 10000), (6, 1000000)) sc(scale, unit)
        GROUP BY 1, 2, 3`,
    ),
  ).toEqual([]);
}

async function expectKeptTablesExact(when: string, counts: string, prices: string) {
  expect(
    await difference(
      'SELECT item_id, category_id, cents, spec_set FROM search_facet_items',
      `SELECT i.id, i.category_id, (i.price * 100)::bigint, COALESCE(spec_set_of(ss.spellings), 0)
         FROM items i LEFT JOIN item_spec_summaries ss ON ss.item_id = i.id`,
    ),
    `${when}: what each item is counted under`,
  ).toEqual([]);
  expect(
    await difference('SELECT item_id FROM items_out_of_stock', 'SELECT id FROM items WHERE stock <= 0'),
    `${when}: the items out of stock`,
  ).toEqual([]);
  expect(
    await difference(counts, `SELECT token, category_id, spec_set, count(*)::int FROM (${TRUTH}) t GROUP BY 1, 2, 3`),
    `${when}: the counts per category and spec set`,
  ).toEqual([]);
  expect(
    await difference(
      prices,
      `SELECT token, sc.scale, t.cents / sc.unit, count(*)::int
         FROM (${TRUTH}) t CROSS JOIN (VALUES (2::smallint, 100::bigint), (4, 10000), (6, 1000000)) sc(scale, unit)
        GROUP BY 1, 2, 3`,
    ),
    `${when}: the counts per price cell`,
  ).toEqual([]);
  // Threshold 1: every token some visible item has is kept, but Latin ones of one or two characters.
  expect(
    await difference(
      `SELECT DISTINCT token FROM search_postings WHERE visible AND token !~ '^[a-z0-9]{1,2}$'
       EXCEPT SELECT token FROM search_facet_tokens`,
      'SELECT NULL::text WHERE false',
    ),
    `${when}: every token kept`,
  ).toEqual([]);
  expect(
    await app.db.sql.query(
      `SELECT f.spec_set FROM search_facet_items f LEFT JOIN spec_sets s ON s.id = f.spec_set WHERE s.id IS NULL LIMIT 1`,
    ),
    `${when}: every set recorded`,
  ).toEqual([]);
}

/** Facets of `keyword` alone (the kept counts) equal those counted from its matches. */
async function expectKeptFacetsCounted(keywords: string[]) {
  for (const keyword of keywords) {
    // Limits not asked for before: no answer from the catalogue cache.
    const limit = 1 + Math.floor(Math.random() * 90);
    const kept = await listItems(app, { keyword, facets: true, limit });
    const counted = await listItems(app, { keyword, facets: true, limit, min_price: 0 });
    expect(kept.status, kept.text).toBe(200);
    expect(kept.body.facets, keyword).toEqual(counted.body.facets);
    // …and the kept counts are what answered (not the counting path, as for a token not kept) —
    // but for a Latin token of one or two letters, never kept.
    const answered = await keptFacets(app.db.sql, keyword);
    if (/^[a-z0-9]{1,2}$/.test(keyword)) expect(answered, keyword).toBeNull();
    else if (kept.body.total > 1) expect(answered, keyword).not.toBeNull();
  }
}

const KEYWORDS = ['a', 'st', 'mug', 'lamp', 'wombat', '袋熊', 'daixiong', 'red', 'jacket', 'shoe', '鞋'];

async function createItem(name: string, categoryId: number, price: string, colour: string, stock = 3) {
  const { createItem } = await gql(
    'mutation ($input: CreateItemInput!) { createItem(input: $input) { id skus { id } } }',
    {
      input: {
        name,
        categoryId,
        price,
        stock,
        skus: [{ skuCode: `${name}-1`.replaceAll(' ', '-'), specs: { colour, size: 'M' }, price, stock }],
        images: [],
      },
    },
  );
  return { id: createItem.id as number, sku: createItem.skus[0].id as number };
}

const update = (id: number, input: Record<string, unknown>) =>
  gql('mutation ($id: Int!, $input: UpdateItemInput!) { updateItem(id: $id, input: $input) { id } }', { id, input });

describe('kept facet counts (contract §9.2, every count exact)', () => {
  it('when nothing has been written, then the kept counts are the recount and the answers are the counted ones', async () => {
    await expectKeptCountsExact('loaded');
    await expectKeptFacetsCounted(KEYWORDS);
    await expectCountsAreTotals(app, { keyword: 'a' });
  });

  // Two dozen kinds of write, each followed by a recount of every kept table: ~20 s on a quick machine,
  // 40 s on PGlite on a slow one — more than the suite's default 30 s.
  it('when every kind of catalogue write happens, then after each the kept counts equal a recount from scratch', {
    timeout: scaled(120_000),
  }, async () => {
    const { createCategory: den } = await gql('mutation { createCategory(input: { name: "Wombat den" }) { id } }');
    const { createCategory: burrow } = await gql(
      'mutation ($parent: Int!) { createCategory(input: { name: "Numbat burrow", parentId: $parent }) { id } }',
      { parent: den.id },
    );
    const mug = await createItem('Wombat mug', burrow.id, '12.34', 'Red');
    const lamp = await createItem('Wombat 袋熊 lamp', den.id, '99.99', 'Blue');
    await expectKeptCountsExact('created');
    await expectKeptFacetsCounted(['wombat', 'daixiong', 'mug', 'lamp']);

    await update(mug.id, { name: 'Wombat red cup' });
    await expectKeptCountsExact('renamed');
    await update(mug.id, { categoryId: den.id });
    await expectKeptCountsExact('moved to another category');
    await update(mug.id, { price: '1234.50' });
    await expectKeptCountsExact('repriced');
    await update(lamp.id, {
      skus: [
        { skuCode: 'lamp-1', specs: { colour: 'Green', size: 'L' }, price: '99.99', stock: 2 },
        { skuCode: 'lamp-2', specs: { colour: 'Green', size: 'XL' }, price: '99.99', stock: 2 },
      ],
    });
    await expectKeptCountsExact('specs changed');
    await expectKeptFacetsCounted(['wombat', 'cup', 'lamp']);

    await update(lamp.id, { status: 'draft' });
    await expectKeptCountsExact('made a draft');
    await update(lamp.id, { status: 'active' });
    await expectKeptCountsExact('published');
    // A schedule: hidden until a moment just ahead, then shown by the flip (no write of the item).
    const publishAt = Date.now() + 3000;
    await update(mug.id, { publishAt: new Date(publishAt).toISOString() });
    expect((await listItems(app, { keyword: 'cup', facets: true })).body.total).toBe(0);
    await expectKeptCountsExact('scheduled');
    await new Promise((r) => setTimeout(r, Math.max(0, publishAt + 100 - Date.now())));
    await app.db.sql.query('SELECT * FROM item_visibility_flip()');
    await expectKeptCountsExact('shown by its schedule');
    await expectKeptFacetsCounted(['wombat', 'cup']);

    // Stock: an adjustment to zero and back moves the item out of stock and in again.
    const adjust = (delta: number, key: string) =>
      gql(
        'mutation ($a: [StockAdjustmentInput!]!, $k: String!) { adjustStock(adjustments: $a, idempotencyKey: $k) { id } }',
        { a: [{ skuId: mug.sku, delta }], k: key },
      );
    await adjust(-3, 'kept-facets-1');
    await expectKeptCountsExact('sold out');
    await expectKeptFacetsCounted(['wombat', 'cup']);
    await adjust(5, 'kept-facets-2');
    await expectKeptCountsExact('restocked');

    await gql('mutation ($id: Int!) { updateCategory(id: $id, input: { name: "Quokka den" }) { id } }', { id: den.id });
    await expectKeptCountsExact('category renamed');
    await gql(
      'mutation ($id: Int!) { updateCategory(id: $id, input: { name: "Numbat burrow", parentId: null }) { id } }',
      {
        id: burrow.id,
      },
    );
    await expectKeptCountsExact('category moved');
    await gql('mutation ($id: Int!) { deleteCategory(id: $id) }', { id: burrow.id });
    await expectKeptCountsExact('category deleted');
    await expectKeptFacetsCounted(['quokka', 'wombat']);

    const first = await runImport(
      app,
      admin,
      csv([
        ITEM_FILE_HEADER,
        ['kept-1', 'Quokka plush', 'Quokka den', '5', 1, '', 'KQ-1', '', 1, 'Red'],
        ['kept-2', 'Quokka 袋熊 pillow', 'Outback', '7.5', 0, '', 'KQ-2', '', 0, 'Blue'],
      ]),
    );
    expect(first.items.created).toBe(2);
    await expectKeptCountsExact('imported');
    const second = await runImport(
      app,
      admin,
      csv([
        ITEM_FILE_HEADER,
        ['kept-1', 'Quokka plush toy', 'Outback', '6', 2, '', 'KQ-1', '', 2, 'Green'],
        ['kept-2', 'Quokka 袋熊 pillow', 'Outback', '7.5', 0, '', 'KQ-2', '', 0, 'Blue'],
      ]),
    );
    expect(second.items.updated).toBe(1);
    await expectKeptCountsExact('imported again, changed');
    await expectKeptFacetsCounted(['quokka', 'daixiong', 'plush']);

    await gql('mutation ($id: Int!) { deleteItem(id: $id) }', { id: lamp.id });
    await expectKeptCountsExact('deleted');
    await expectKeptFacetsCounted(['wombat', 'lamp', 'daixiong']);
    await expectCountsAreTotals(app, { keyword: 'quokka' });
  });

  it('when the postings are truncated and rebuilt, then the counts follow (empty, then the recount)', async () => {
    await app.db.sql.query('TRUNCATE search_postings');
    expect(await app.db.sql.query('SELECT 1 FROM search_facet_counts WHERE items <> 0 LIMIT 1')).toEqual([]);
    expect(await app.db.sql.query('SELECT 1 FROM search_price_counts WHERE items <> 0 LIMIT 1')).toEqual([]);
    expect(await app.db.sql.query('SELECT 1 FROM search_facet_pending LIMIT 1')).toEqual([]);
    await reindexAll(app.db.prisma);
    await expectKeptCountsExact('rebuilt');
    await expectKeptFacetsCounted(KEYWORDS);
  });

  it("when postings were written with their triggers off (the bench's bulk fill), then its recount makes every count exact", async () => {
    await app.db.sql.exec(COUNT_TRIGGERS);
    await app.db.sql.query("DELETE FROM search_postings WHERE token = 'jacket'");
    // Nothing counted that: the kept counts are wrong (the test would prove nothing otherwise)…
    expect(
      await difference(
        KEPT_AND_PENDING,
        `SELECT token, category_id, spec_set, count(*)::int FROM (${TRUTH}) t GROUP BY 1, 2, 3`,
      ),
    ).not.toEqual([]);
    // …until the recount the bench runs after its fill (bench/data.ts).
    await app.db.sql.exec(RECOUNT);
    await expectKeptCountsExact('recounted');
    await reindexAll(app.db.prisma);
    await expectKeptCountsExact('reindexed with the triggers on');
    await expectKeptFacetsCounted(KEYWORDS);
  });

  it('when a write has deltas not folded yet, then the facets read counts + pending, and a fold changes no answer', async () => {
    await foldFacetCounts(app.db.sql);
    const before = await keptFacets(app.db.sql, 'jacket');
    expect(before).not.toBeNull();
    // Inside the write's transaction its deltas are pending (no fold sees them before it commits):
    // the kept answer there is the one counted from the matches in that transaction.
    const [inside, counted] = await app.db.sql.transaction(async (query) => {
      const tx = { kind: app.db.sql.kind, query } as typeof app.db.sql;
      await query(`UPDATE items SET price = price + 1000, category_id = (SELECT min(id) FROM categories)
                    WHERE id IN (SELECT item_id FROM search_postings WHERE token = 'jacket' AND visible)`);
      expect(await query(`SELECT 1 FROM search_facet_pending WHERE 'jacket' = ANY (tokens) LIMIT 1`)).not.toEqual([]);
      await expectNoDifference(query, KEPT_AND_PENDING, PRICES_KEPT_AND_PENDING);
      const answer = await keptFacets(tx, 'jacket');
      const [raw] = await query<{ lo: string; hi: string; n: number }>(
        `SELECT min(i.price)::text AS lo, max(i.price)::text AS hi, count(*)::int AS n
           FROM search_postings p JOIN items i ON i.id = p.item_id WHERE p.token = 'jacket' AND p.visible`,
      );
      return [answer, raw!];
    });
    expect(inside).not.toBeNull();
    expect(inside!.price?.min).toBe(counted.lo);
    expect(inside!.price?.max).toBe(counted.hi);
    expect(inside!.price!.buckets.reduce((n, b) => n + b.count, 0)).toBe(counted.n);
    expect(inside).not.toEqual(before);
    // Committed: the same answer before and after a fold.
    expect(await keptFacets(app.db.sql, 'jacket')).toEqual(inside);
    await foldFacetCounts(app.db.sql);
    expect(await keptFacets(app.db.sql, 'jacket')).toEqual(inside);
    await expectKeptCountsExact('moved in one statement behind the service');
    await expectKeptFacetsCounted(['jacket', 'daixiong', 'shoe']);
  });

  it('when a token is not kept, then its facets are counted from its matches, and it is kept once it reaches the threshold', async () => {
    await app.db.sql.query('UPDATE search_facet_settings SET min_items = 2');
    const { createCategory } = await gql('mutation { createCategory(input: { name: "Bilby hall" }) { id } }');
    await createItem('Bilbyx one', createCategory.id, '3.00', 'Red');
    expect(await app.db.sql.query(`SELECT 1 FROM search_facet_tokens WHERE token = 'bilbyx'`)).toEqual([]);
    await expectCountsAreTotals(app, { keyword: 'bilbyx' });
    await createItem('Bilbyx two', createCategory.id, '40.00', 'Blue');
    expect(await app.db.sql.query(`SELECT token FROM search_facet_tokens WHERE token = 'bilbyx'`)).toEqual([
      { token: 'bilbyx' },
    ]);
    await expectKeptFacetsCounted(['bilbyx']);
    await expectCountsAreTotals(app, { keyword: 'bilbyx' });
    await app.db.sql.query('UPDATE search_facet_settings SET min_items = 1');
  });
});
