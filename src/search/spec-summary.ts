/**
 * Spec summaries: what the spec facets (contract §9.2, search/facets.ts) count, kept per item so a
 * facets request reads one narrow row per matching item instead of every SKU's specs (at 100,000
 * items, `trail` matches 13,750 items with 27,500 SKUs and 55,000 spec entries).
 *
 * An item's summary holds, as 64-bit ids hashed from the text, the names (grouped case-insensitively
 * after trimming, each once), the values (grouped likewise within their name, each once) and the
 * spellings (name and value as written, trimmed: once per SKU entry, since the shown spelling is the
 * most frequent). `spec_spellings` holds the text behind each spelling id with its name and value ids;
 * it is only added to — a summary can never name a spelling it lacks.
 *
 * The rules of grouping are PostgreSQL's `lower(btrim(…))`, as the spec filters' (item-query.ts), so
 * a summary groups exactly what a filter matches. The ids are MD5's first 64 bits: the same on every
 * platform and database version; a length prefix keeps a (name, value) pair from colliding with
 * another that joins to the same text.
 */
/** A bigint id from text: MD5's first 64 bits. */
const idOf = (text: string) => `('x' || left(md5(${text}), 16))::bit(64)::bigint`;

/** The summaries' three ids of each spec entry `(rk, rv)` (trimmed name and value as written). */
const ENTRY_IDS = `${idOf('lower(rk)')} AS name_id,
       ${idOf(`length(lower(rk)) || ':' || lower(rk) || lower(rv)`)} AS value_id,
       ${idOf(`length(rk) || ':' || rk || rv`)} AS spelling_id`;

/**
 * The statement that writes the summaries of items `$1` (an int[]) from their SKUs (items that no
 * longer exist are skipped; one that would not change is not written), and the spellings they name, as
 * parts of a WITH whose own query the caller gives (`select`: the indexer reads the items' text in the
 * same statement — one round trip for both). The spellings are added in id order, so two writes adding
 * the same ones wait for each other instead of deadlocking. The summaries' triggers (the kept facet
 * counts) run at the statement's end, before any later statement of the transaction.
 */
export const summariseSpecsThen = (select: string) => `WITH entries AS (
       SELECT s.item_id, btrim(e.key) AS rk, btrim(e.value) AS rv
         FROM skus s CROSS JOIN LATERAL jsonb_each_text(s.specs) e
        WHERE s.item_id = ANY($1::int[])
     ), hashed AS (SELECT item_id, rk, rv, ${ENTRY_IDS} FROM entries),
     spelt AS (
       INSERT INTO spec_spellings (id, name_id, value_id, name, value)
       SELECT DISTINCT ON (spelling_id) spelling_id, name_id, value_id, rk, rv FROM hashed ORDER BY spelling_id
       ON CONFLICT (id) DO NOTHING
     ), summarised AS (
       INSERT INTO item_spec_summaries (item_id, names, "values", spellings)
       SELECT i.id,
              COALESCE(array_agg(DISTINCT h.name_id) FILTER (WHERE h.item_id IS NOT NULL), '{}'),
              COALESCE(array_agg(DISTINCT h.value_id) FILTER (WHERE h.item_id IS NOT NULL), '{}'),
              COALESCE(array_agg(h.spelling_id) FILTER (WHERE h.item_id IS NOT NULL), '{}')
         FROM items i LEFT JOIN hashed h ON h.item_id = i.id
        WHERE i.id = ANY($1::int[])
        GROUP BY i.id
       ON CONFLICT (item_id) DO UPDATE SET names = EXCLUDED.names, "values" = EXCLUDED."values",
                                           spellings = EXCLUDED.spellings
       WHERE (item_spec_summaries.names, item_spec_summaries."values", item_spec_summaries.spellings)
             IS DISTINCT FROM (EXCLUDED.names, EXCLUDED."values", EXCLUDED.spellings)
     )
     ${select}`;
