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

export async function findFacets(sql: SqlReader, filter: ItemFilter): Promise<Facets> {
  // A one-word keyword's items come from the one-word index (search/postings.ts), not its SQL — its
  // visible postings, for the public's counts.
  const token = filter.search && isPublic(filter.visibility) ? oneWordToken(filter.search) : undefined;
  const query = compileItemQuery(token === undefined ? filter : { ...filter, search: undefined });
  const { p } = query;
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
    `closure AS (SELECT id AS anc, id AS des FROM categories
                 UNION ALL SELECT cl.anc, c.id FROM closure cl JOIN categories c ON c.parent_id = cl.des)`,
    `bounds AS (SELECT min(price) AS lo, max(price) AS hi FROM m WHERE c_ok AND s_ok AND sp_ok)`,
    `width AS (SELECT w, floor(lo / w) * w AS start, GREATEST(1, ceil((hi - floor(lo / w) * w) / w))::int AS n
                 FROM bounds, unnest(${p(WIDTHS)}::numeric[]) w
                WHERE lo IS NOT NULL AND GREATEST(1, ceil((hi - floor(lo / w) * w) / w)) <= ${MAX_PRICE_BUCKETS}
                ORDER BY w LIMIT 1)`,
    ...(summarised ? summaryCtes : skuCtes(query)),
  ];
  const [row] = await sql.query<{ facets: string }>(
    `${withClause(query, ctes)}
     SELECT json_build_object(
       'categories', COALESCE((
         SELECT json_agg(json_build_object('id', c.id, 'name', c.name, 'parentId', c.parent_id, 'count', x.count)
                         ORDER BY x.count DESC, c.id)
           FROM (SELECT cl.anc, count(*)::int AS count FROM m JOIN closure cl ON cl.des = m.category_id
                  WHERE m.p_ok AND m.s_ok AND m.sp_ok GROUP BY cl.anc) x
           JOIN categories c ON c.id = x.anc), '[]'),
       'price', (
         SELECT json_build_object('min', b.lo::text, 'max', b.hi::text, 'buckets', (
                  SELECT json_agg(json_build_object('from', (w.start + k.b * w.w)::text,
                                                    'to', (w.start + (k.b + 1) * w.w)::text, 'count', k.count) ORDER BY k.b)
                    FROM (SELECT LEAST(floor((m.price - w.start) / w.w), w.n - 1)::int AS b, count(*)::int AS count
                            FROM m, width w WHERE m.c_ok AND m.s_ok AND m.sp_ok GROUP BY 1) k, width w))
           FROM bounds b WHERE b.lo IS NOT NULL),
       'specs', COALESCE((
         SELECT json_agg(json_build_object('name', n.name, 'values', (
                  SELECT json_agg(json_build_object('value', v.value, 'count', v.count) ORDER BY v.place)
                    FROM vals v WHERE v.nk = n.nk AND v.place <= ${TOP_SPEC_VALUES})) ORDER BY n.count DESC, n.name COLLATE "C")
           FROM names n), '[]'),
       'inStock', (SELECT count(*)::int FROM m WHERE m.c_ok AND m.p_ok AND m.sp_ok AND m.stock > 0)
     )::text AS facets`,
    query.params,
  );
  return JSON.parse(row!.facets) as Facets;
}
