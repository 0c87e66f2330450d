-- Spec summaries (src/search/spec-summary.ts): per item, the hashed spec names, values and spellings of
-- its SKUs, so the spec facets (contract §9.2) count from one narrow row per matching item instead of
-- reading every SKU's specs. Written in each catalogue write's transaction, with the search document.
CREATE TABLE "item_spec_summaries" (
    "item_id" INTEGER NOT NULL,
    "names" BIGINT[],
    "values" BIGINT[],
    "spellings" BIGINT[],

    CONSTRAINT "item_spec_summaries_pkey" PRIMARY KEY ("item_id")
);

-- The spellings a summary's ids stand for; only ever added to (a summary never names a missing one).
CREATE TABLE "spec_spellings" (
    "id" BIGINT NOT NULL,
    "name_id" BIGINT NOT NULL,
    "value_id" BIGINT NOT NULL,
    "name" TEXT NOT NULL,
    "value" TEXT NOT NULL,

    CONSTRAINT "spec_spellings_pkey" PRIMARY KEY ("id")
);

-- AddForeignKey
ALTER TABLE "item_spec_summaries" ADD CONSTRAINT "item_spec_summaries_item_id_fkey" FOREIGN KEY ("item_id") REFERENCES "items"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The summaries of the items that exist, by the service's own statement (spec-summary.ts) for all.
WITH entries AS (
  SELECT s.item_id, btrim(e.key) AS rk, btrim(e.value) AS rv
    FROM "skus" s CROSS JOIN LATERAL jsonb_each_text(s.specs) e
), hashed AS (
  SELECT item_id, rk, rv,
         ('x' || left(md5(lower(rk)), 16))::bit(64)::bigint AS name_id,
         ('x' || left(md5(length(lower(rk)) || ':' || lower(rk) || lower(rv)), 16))::bit(64)::bigint AS value_id,
         ('x' || left(md5(length(rk) || ':' || rk || rv), 16))::bit(64)::bigint AS spelling_id
    FROM entries
), spelt AS (
  INSERT INTO "spec_spellings" (id, name_id, value_id, name, value)
  SELECT DISTINCT ON (spelling_id) spelling_id, name_id, value_id, rk, rv FROM hashed ORDER BY spelling_id
  ON CONFLICT (id) DO NOTHING
)
INSERT INTO "item_spec_summaries" (item_id, names, "values", spellings)
SELECT i.id,
       COALESCE(array_agg(DISTINCT h.name_id) FILTER (WHERE h.item_id IS NOT NULL), '{}'),
       COALESCE(array_agg(DISTINCT h.value_id) FILTER (WHERE h.item_id IS NOT NULL), '{}'),
       COALESCE(array_agg(h.spelling_id) FILTER (WHERE h.item_id IS NOT NULL), '{}')
  FROM "items" i LEFT JOIN hashed h ON h.item_id = i.id
 GROUP BY i.id;
