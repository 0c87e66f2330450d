/**
 * Facet counts (contract §9.2) in one statement. `m` holds the items the keyword matches, once, with
 * a flag per filter; each facet counts the items that pass every filter but its own, so each count is
 * the total the list would answer with that choice:
 *
 * - categories: per category, its own and its sub-categories' items (a closure of the tree);
 * - price: buckets of one round width (1, 2 or 5 × 10ⁿ, from 0.01) — the smallest giving at most 6
 *   from ⌊min / w⌋·w to the maximum, the last bucket holding the maximum;
 * - specs: per SKU spec, grouped case-insensitively after trimming, shown in the most frequent
 *   spelling; a name's own `spec` values are left out of its counts, the other names still hold on the
 *   same SKU; the 10 names on most items, 20 values each. Counted from the items' spec summaries
 *   (search/spec-summary.ts) — or, when spec filters are set, from the SKUs themselves, which alone
 *   know which entries share a SKU;
 * - in stock: items with stock > 0.
 */
import type { SqlReader } from '../db/database.ts';
import {
  compileItemQuery,
  type ItemFilter,
  type ItemQuery,
  matchingItems,
  SUMMARIES,
  someSku,
  withClause,
} from './item-query.ts';
import { oneWordToken } from './postings.ts';
import { isPublic } from './visibility.ts';

export interface Facets {
  categories: Array<{ id: number; name: string; parentId: number | null; count: number }>;
  /** Null when nothing matches. */
  price: { min: string; max: string; buckets: Array<{ from: string; to: string; count: number }> } | null;
  specs: Array<{ name: string; values: Array<{ value: string; count: number }> }>;
  inStock: number;
}

export const MAX_PRICE_BUCKETS = 6;
const TOP_SPEC_NAMES = 10;
const TOP_SPEC_VALUES = 20;

/** 0.01, 0.02, 0.05, 0.1 … 5·10¹⁰: every width a price range up to NUMERIC(10,2)'s maximum may need. */
const WIDTHS = Array.from({ length: 13 }, (_, e) => [1, 2, 5].map((m) => `${m}e${e - 2}`)).flat();

/** Items a spec facet counts: every filter but the specs' (with spec filters, see `skuCtes`). */
const SPEC_COUNTED = 'm.c_ok AND m.p_ok AND m.s_ok';

/**
 * The spec facets from the items' summaries: `names (nk, count, name)` and `vals (nk, count, value,
 * place)`, keyed by the summaries' name and value ids. Items with the same spellings (the same specs)
 * are counted once as a group (`sig`) — a catalogue's items share a few sets of specs, and grouping
 * a row costs a fraction of unnesting its arrays; a group's names and values follow from its
 * spellings, so any member's (`min`) are all of theirs. Spellings are counted per SKU entry (the
 * shown one is the most frequent) and their text read from `spec_spellings`.
 */
const summaryCtes = [
  `sig AS (SELECT spellings, min(names) AS names, min("values") AS vals, count(*)::int AS items
             FROM m WHERE ${SPEC_COUNTED} GROUP BY spellings)`,
  ...spellingCtes(),
];

/** `names` and `vals` from `sig (spellings, names, vals, items)`: a group of items per set of specs. */
function spellingCtes(): string[] {
  return [
    `spelt AS (SELECT t.name_id, t.value_id, t.name, t.value, c.n
               FROM (SELECT s, sum(items) AS n FROM sig, unnest(sig.spellings) s GROUP BY s) c
               JOIN spec_spellings t ON t.id = c.s)`,
    `key_spelling AS (SELECT DISTINCT ON (name_id) name_id AS nk, name AS rk
                      FROM (SELECT name_id, name, sum(n) AS n FROM spelt GROUP BY name_id, name) x
                     ORDER BY name_id, n DESC, name COLLATE "C")`,
    `names AS (SELECT c.nk, c.count, k.rk AS name
               FROM (SELECT n AS nk, sum(items)::int AS count FROM sig, unnest(sig.names) n GROUP BY n) c
               JOIN key_spelling k USING (nk)
              ORDER BY c.count DESC, k.rk COLLATE "C" LIMIT ${TOP_SPEC_NAMES})`,
    `value_spelling AS (SELECT DISTINCT ON (value_id) value_id AS nv, name_id AS nk, value AS rv
                        FROM (SELECT value_id, name_id, value, sum(n) AS n FROM spelt
                               WHERE name_id IN (SELECT nk FROM names) GROUP BY value_id, name_id, value) x
                       ORDER BY value_id, n DESC, value COLLATE "C")`,
    `vals AS (SELECT v.*, row_number() OVER (PARTITION BY v.nk ORDER BY v.count DESC, v.value COLLATE "C") AS place
              FROM (SELECT s.nk, c.count, s.rv AS value
                      FROM (SELECT v AS nv, sum(items)::int AS count FROM sig, unnest(sig.vals) v GROUP BY v) c
                      JOIN value_spelling s USING (nv)) v)`,
  ];
}

/**
 * The spec facets from the SKUs, where spec filters are set: the same `names` and `vals`, keyed by
 * the normalised texts; a name's entries count on SKUs that hold every other name's filter.
 */
function skuCtes(query: ItemQuery): string[] {
  const { p } = query;
  // The other names' conditions on the same SKU, for a spec entry named `e.key`.
  const otherSpecs = query.specs.map((f) => `(lower(btrim(e.key)) = lower(btrim(${p(f.name)})) OR ${f.onSku})`);
  return [
    `sv AS (SELECT s.item_id, btrim(e.key) AS rk, lower(btrim(e.key)) AS nk, btrim(e.value) AS rv,
                   lower(btrim(e.value)) AS nv
              FROM m JOIN skus s ON s.item_id = m.id CROSS JOIN LATERAL jsonb_each_text(s.specs) e
             WHERE ${SPEC_COUNTED} ${otherSpecs.map((c) => `AND ${c}`).join(' ')})`,
    // One pass each over the spec entries, by hashing: which items hold each name and value (counts
    // are of items, not SKUs), and how often each spelling was written (the shown one is the most frequent).
    `iv AS (SELECT nk, nv, item_id FROM sv GROUP BY nk, nv, item_id)`,
    `key_spelling AS (SELECT DISTINCT ON (nk) nk, rk FROM (SELECT nk, rk, count(*) AS n FROM sv GROUP BY nk, rk) x
                      ORDER BY nk, n DESC, rk COLLATE "C")`,
    `value_spelling AS (SELECT DISTINCT ON (nk, nv) nk, nv, rv FROM (SELECT nk, nv, rv, count(*) AS n FROM sv GROUP BY nk, nv, rv) x
                        ORDER BY nk, nv, n DESC, rv COLLATE "C")`,
    `names AS (SELECT n.nk, n.count, k.rk AS name
                 FROM (SELECT nk, count(*)::int AS count FROM (SELECT nk, item_id FROM iv GROUP BY nk, item_id) x GROUP BY nk) n
                 JOIN key_spelling k USING (nk)
                ORDER BY n.count DESC, k.rk COLLATE "C" LIMIT ${TOP_SPEC_NAMES})`,
    `vals AS (SELECT v.*, row_number() OVER (PARTITION BY v.nk ORDER BY v.count DESC, v.value COLLATE "C") AS place
                FROM (SELECT c.nk, c.nv, c.count, s.rv AS value
                        FROM (SELECT nk, nv, count(*)::int AS count FROM iv WHERE nk IN (SELECT nk FROM names) GROUP BY nk, nv) c
                        JOIN value_spelling s USING (nk, nv)) v)`,
  ];
}

/**
 * The answer's JSON from the counts each way of counting leaves: `cat_counts (anc, count)` per
 * category with its sub-categories, `bounds (lo, hi)`, `width (w, start, n)` and `buckets (b, count)`
 * for the price, `names` and `vals` for the specs, `in_stock (count)`.
 */
const FACETS_JSON = `json_build_object(
       'categories', COALESCE((
         SELECT json_agg(json_build_object('id', c.id, 'name', c.name, 'parentId', c.parent_id, 'count', x.count)
                         ORDER BY x.count DESC, c.id)
           FROM cat_counts x JOIN categories c ON c.id = x.anc), '[]'),
       'price', (
         SELECT json_build_object('min', b.lo::text, 'max', b.hi::text, 'buckets', (
                  SELECT json_agg(json_build_object('from', (w.start + k.b * w.w)::text,
                                                    'to', (w.start + (k.b + 1) * w.w)::text, 'count', k.count) ORDER BY k.b)
                    FROM buckets k, width w))
           FROM bounds b WHERE b.lo IS NOT NULL),
       'specs', COALESCE((
         SELECT json_agg(json_build_object('name', n.name, 'values', (
                  SELECT json_agg(json_build_object('value', v.value, 'count', v.count) ORDER BY v.place)
                    FROM vals v WHERE v.nk = n.nk AND v.place <= ${TOP_SPEC_VALUES})) ORDER BY n.count DESC, n.name COLLATE "C")
           FROM names n), '[]'),
       'inStock', (SELECT count FROM in_stock)
     )::text`;

/** Every category with each of its sub-categories (and itself). */
const CLOSURE = `closure AS (SELECT id AS anc, id AS des FROM categories
                 UNION ALL SELECT cl.anc, c.id FROM closure cl JOIN categories c ON c.parent_id = cl.des)`;

/** The smallest round width giving at most MAX_PRICE_BUCKETS buckets from `bounds`. */
const width = (p: (value: unknown) => string) =>
  `width AS (SELECT w, floor(lo / w) * w AS start, GREATEST(1, ceil((hi - floor(lo / w) * w) / w))::int AS n
               FROM bounds, unnest(${p(WIDTHS)}::numeric[]) w
              WHERE lo IS NOT NULL AND GREATEST(1, ceil((hi - floor(lo / w) * w) / w)) <= ${MAX_PRICE_BUCKETS}
              ORDER BY w LIMIT 1)`;

/**
 * Item `i` is a visible match of the token ($1): its posting looked up by key (a subquery the planner
 * keeps per item, where an EXISTS would become a join with every posting of the token).
 */
const MATCHED_ITEM = '(SELECT sp.visible FROM search_postings sp WHERE sp.item_id = i.id AND sp.token = $1)';

/** A whole-unit cell the pending deltas bring (or leave) matches in: with its kept count, not 0. */
const PENDING_CELL_HELD = `p.items + COALESCE((SELECT c.items FROM search_price_counts c
                                                  WHERE c.token = $1 AND c.scale = 2 AND c.cell = p.cell), 0) <> 0`;

/** A token whose facets may be kept: not one or two Latin letters (`search_facets_keepable`). */
const KEEPABLE = /^(?![a-z0-9]{1,2}$)/;

/**
 * The kept read's statement, made once: its text never changes ($1 the token, $2 the widths), so it is
 * prepared (db/prepared.ts). Planning its CTEs cost PostgreSQL ~2–3 ms, about as much as running them
 * (2.5–3 ms for `trail` at 100,000 items); its generic plan, which PostgreSQL keeps after five runs,
 * is the custom one (every table read by the token's key).
 */
const KEPT_FACETS_SQL = (() => {
  const p = () => '$2';
  const ctes = [
    // (No index: the rows are few, each an item's, and none once folded.)
    `pending AS MATERIALIZED (SELECT category_id, spec_set, cents, items FROM search_facet_pending WHERE $1::text = ANY (tokens))`,
    `fc AS MATERIALIZED (SELECT category_id, spec_set, sum(items)::int AS items
                           FROM (SELECT category_id, spec_set, items FROM search_facet_counts WHERE token = $1 AND items <> 0
                                 UNION ALL SELECT category_id, spec_set, items FROM pending) x
                          GROUP BY 1, 2 HAVING sum(items) <> 0)`,
    // The pending deltas per whole-unit cell (mostly none: the fold keeps up).
    `pcells AS MATERIALIZED (SELECT cents / 100 AS cell, sum(items)::int AS items FROM pending GROUP BY 1)`,
    CLOSURE,
    `cat_counts AS (SELECT cl.anc, sum(fc.items)::int AS count FROM fc JOIN closure cl ON cl.des = fc.category_id GROUP BY cl.anc)`,
    // The bounds: the cheapest and dearest match, in the token's first and last cell of a whole unit,
    // by the items' price index (a walk of that unit's items until the first match).
    // A cell holds a match when its kept count plus its pending deltas is not 0: the first and last
    // such kept cell, walked in order, or a cell only the pending deltas hold.
    `cells AS MATERIALIZED (SELECT LEAST((SELECT c.cell FROM search_price_counts c WHERE c.token = $1 AND c.scale = 2
                                           AND c.items + COALESCE((SELECT p.items FROM pcells p WHERE p.cell = c.cell), 0) <> 0
                                         ORDER BY c.cell LIMIT 1), (SELECT min(p.cell) FROM pcells p WHERE ${PENDING_CELL_HELD})) AS lo,
                                   GREATEST((SELECT c.cell FROM search_price_counts c WHERE c.token = $1 AND c.scale = 2
                                           AND c.items + COALESCE((SELECT p.items FROM pcells p WHERE p.cell = c.cell), 0) <> 0
                                         ORDER BY c.cell DESC LIMIT 1), (SELECT max(p.cell) FROM pcells p WHERE ${PENDING_CELL_HELD})) AS hi)`,
    `bounds AS (SELECT (SELECT i.price FROM items i WHERE i.price >= cells.lo AND i.price < cells.lo + 1 AND ${MATCHED_ITEM}
                         ORDER BY i.price LIMIT 1) AS lo,
                       (SELECT i.price FROM items i WHERE i.price >= cells.hi AND i.price < cells.hi + 1 AND ${MATCHED_ITEM}
                         ORDER BY i.price DESC LIMIT 1) AS hi
                  FROM cells)`,
    width(p),
    // The scale of the cells summed: the largest whose cell (10^k cents) divides the width.
    `unit AS (SELECT k, (10 ^ k)::bigint AS unit
                FROM width, LATERAL (SELECT max(k) AS k FROM unnest('{2,4,6}'::int[]) k WHERE mod(w * 100, (10 ^ k)::numeric) = 0) x)`,
    `buckets AS (SELECT LEAST(floor((c.cell * u.unit / 100.0 - w.start) / w.w), w.n - 1)::int AS b, sum(c.items)::int AS count
                   FROM (SELECT c.cell, c.items FROM search_price_counts c, unit u WHERE c.token = $1 AND c.scale = u.k AND c.items <> 0
                         UNION ALL SELECT p.cents / u.unit, p.items FROM pending p, unit u) c, unit u, width w
                  GROUP BY 1 HAVING sum(c.items) <> 0)`,
    `sig AS (SELECT s.spellings, s.names, s."values" AS vals, sum(fc.items)::int AS items
               FROM fc JOIN spec_sets s ON s.id = fc.spec_set GROUP BY s.id)`,
    ...spellingCtes(),
    `total AS (SELECT COALESCE(sum(items), 0)::int AS n FROM fc)`,
    // The matches out of stock: each item out of stock probed for the token's posting while they are
    // few against the matches (at most a quarter as many), else the token's postings joined with them.
    `in_stock AS (SELECT total.n - CASE
                    WHEN (SELECT count(*) FROM (SELECT FROM items_out_of_stock LIMIT total.n / 4 + 1) x) <= total.n / 4
                    THEN (SELECT count(*) FROM items_out_of_stock o,
                                 LATERAL (SELECT FROM search_postings sp WHERE sp.item_id = o.item_id AND sp.token = $1 AND sp.visible LIMIT 1) x)
                    ELSE (SELECT count(*) FROM search_postings sp JOIN items_out_of_stock o ON o.item_id = sp.item_id
                           WHERE sp.token = $1 AND sp.visible) END::int AS count
                    FROM total)`,
  ];
  return `WITH RECURSIVE ${ctes.join(', ')}
     SELECT CASE WHEN EXISTS (SELECT 1 FROM search_facet_tokens WHERE token = $1)
                  AND COALESCE((SELECT w >= 1 FROM width), true) THEN ${FACETS_JSON} END AS facets`;
})();

/**
 * A kept token's facets (prisma/migrations/20261210000000_kept_facet_counts), or null when its counts
 * are not kept. Every facet counts every match (no filter but the keyword's), from the token's rows:
 * per category and spec set, per price cell, and its matches among the items out of stock. Each count
 * is the kept one plus the token's pending deltas not folded yet (search/facet-fold.ts), read in the
 * same statement: a fold deletes the rows it adds in one transaction, so the sum is exact in any snapshot.
 *
 * Price: a bucket of width w (in cents a multiple of 10^k, k the largest of 2, 4, 6 that divides it)
 * starts at a multiple of w, so each cell of scale k lies in one bucket: the buckets are sums of that
 * scale's cells (at most 6 × 50 + 1 of them). A width under a whole unit (every match's price within
 * 6 units) has no cells to sum: null, and the facets are counted from the matches.
 */
export async function keptFacets(sql: SqlReader, token: string): Promise<Facets | null> {
  const [row] = await sql.query<{ facets: string | null }>(KEPT_FACETS_SQL, [token, WIDTHS], { prepare: true });
  return row?.facets ? (JSON.parse(row.facets) as Facets) : null;
}

export async function findFacets(sql: SqlReader, filter: ItemFilter): Promise<Facets> {
  // A one-word keyword's items come from the one-word index (search/postings.ts), not its SQL — its
  // visible postings, for the public's counts.
  const token = filter.search && isPublic(filter.visibility) ? oneWordToken(filter.search) : undefined;
  const query = compileItemQuery(token === undefined ? filter : { ...filter, search: undefined });
  const { p } = query;
  // The keyword alone: every facet counts every match, which a common token's kept counts hold.
  if (
    token !== undefined &&
    KEEPABLE.test(token) &&
    !query.category &&
    !query.price &&
    !query.stock &&
    query.specs.length === 0
  ) {
    const kept = await keptFacets(sql, token);
    if (kept) return kept;
  }
  const flag = (condition: string | undefined) => condition ?? 'true';
  const allSpecs = someSku(query.specs.map((f) => f.onSku));
  const summarised = query.specs.length === 0;
  // Without spec filters, each item's spec summary (search/spec-summary.ts) holds all the spec
  // counts need; with them, a name's counts hold the other names on the same SKU, so they are read
  // from the SKUs.
  const matched =
    token === undefined
      ? matchingItems(query, { keywordOnly: true, specSummaries: summarised })
      : `FROM search_postings sp JOIN items i ON i.id = sp.item_id${summarised ? SUMMARIES : ''} WHERE sp.token = ${p(token)} AND sp.visible`;
  const summary = summarised ? ', ss.names, ss."values", ss.spellings' : '';
  const ctes = [
    `m AS MATERIALIZED (
       SELECT i.id, i.category_id, i.price, i.stock,
              ${flag(query.category)} AS c_ok, ${flag(query.price)} AS p_ok, ${flag(query.stock)} AS s_ok,
              ${flag(allSpecs)} AS sp_ok${summary}
         ${matched})`,
    CLOSURE,
    `cat_counts AS (SELECT cl.anc, count(*)::int AS count FROM m JOIN closure cl ON cl.des = m.category_id
                     WHERE m.p_ok AND m.s_ok AND m.sp_ok GROUP BY cl.anc)`,
    `bounds AS (SELECT min(price) AS lo, max(price) AS hi FROM m WHERE c_ok AND s_ok AND sp_ok)`,
    width(p),
    `buckets AS (SELECT LEAST(floor((m.price - w.start) / w.w), w.n - 1)::int AS b, count(*)::int AS count
                   FROM m, width w WHERE m.c_ok AND m.s_ok AND m.sp_ok GROUP BY 1)`,
    ...(summarised ? summaryCtes : skuCtes(query)),
    `in_stock AS (SELECT count(*)::int AS count FROM m WHERE m.c_ok AND m.p_ok AND m.sp_ok AND m.stock > 0)`,
  ];
  const [row] = await sql.query<{ facets: string }>(
    `${withClause(query, ctes)} SELECT ${FACETS_JSON} AS facets`,
    query.params,
  );
  return JSON.parse(row!.facets) as Facets;
}
