-- Kept facet counts (contract §9.2 at scale; issue 39). The storefront's commonest facets request is
-- one word alone (`keyword=trail&facets=true`): with no other filter every facet counts every match,
-- so for a common token the counts are kept, as its total is (search_token_counts), and a facets
-- request reads a few hundred rows instead of visiting every match (src/search/facets.ts):
--
-- * search_facet_counts: token → the item's category and spec set → visible items;
-- * search_price_counts: token → price cell (cents ÷ 10^scale, scales 2, 4, 6: a whole unit, 100 and
--   10,000 units) → visible items: a price bucket of a width of whole units is a sum of whole cells
--   of one scale (≤ ~300 rows); the exact min and max are found in the token's first and last cell of
--   scale 2, walking the items' price index there (a bucket narrower than a unit — a token whose
--   matches' prices all lie within 6 units — is counted from the matches instead);
-- * in stock: the kept total less the token's visible matches among items_out_of_stock (so a stock
--   adjustment moves no count and takes no lock, §12.3).
--
-- Only tokens of at least search_facet_settings.min_items visible items are kept (search_facet_tokens):
-- most of an item's ~100 postings are of rare tokens (the pieces of its number, long word starts),
-- whose facets cost little to count from the matches and whose counts would cost every write. A token
-- is kept from the statement whose postings take its count to the threshold (counted then from its
-- postings), and stays kept.
--
-- The triggers' statements touch the rows of a statement's few items, so each is an index look-up,
-- whatever the statistics say: `SET enable_seqscan = off` on their functions. PL/pgSQL keeps a
-- statement's plan for the session, and a plan made while a table looked empty (a catalogue being
-- filled, a table just rewritten) scanned every posting once per moved item: 2,000 items took 12 s to
-- index instead of 2 s, and 100,000 items ~50× longer.
--
-- Everything is kept by statement triggers (transition tables), whatever writes: the indexer's posting
-- diff (src/search/documents.ts: an edit that changes no word moves no posting), a visibility flip
-- (items_visible_spread updates the postings' `visible`), an item's price or category, its spec
-- summary, a delete's cascade, a TRUNCATE. Each item is counted under the attributes in
-- search_facet_items, so a delta is always "the item as counted" out and "as it now is" in.
--
-- Off the write's path: a statement's trigger only appends its deltas as plain rows to
-- search_facet_pending, one per item (its kept tokens in an array, ~43 of them for a new item): no
-- upsert, no row two writes share (the count upserts of an import's 100 items were ~4,300 kept
-- postings × ~2.5, in the write's transaction). After commit, a background step of
-- every serving process (src/search/facet-fold.ts) folds them into the counts: search_facets_fold
-- deletes the rows it adds, in one statement, so the counts plus the pending rows are exact in any
-- snapshot — and that sum is what the facets read (src/search/facets.ts: keptFacets).

-- CreateTable
CREATE TABLE "search_facet_settings" (
    "id" INTEGER NOT NULL,
    "min_items" INTEGER NOT NULL,

    CONSTRAINT "search_facet_settings_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "search_facet_tokens" (
    "token" TEXT NOT NULL,

    CONSTRAINT "search_facet_tokens_pkey" PRIMARY KEY ("token")
);

-- CreateTable
CREATE TABLE "search_facet_items" (
    "item_id" INTEGER NOT NULL,
    "category_id" INTEGER NOT NULL,
    "cents" BIGINT NOT NULL,
    "spec_set" BIGINT NOT NULL,

    CONSTRAINT "search_facet_items_pkey" PRIMARY KEY ("item_id")
);

-- CreateTable
CREATE TABLE "search_facet_counts" (
    "token" TEXT NOT NULL,
    "category_id" INTEGER NOT NULL,
    "spec_set" BIGINT NOT NULL,
    "items" INTEGER NOT NULL,

    CONSTRAINT "search_facet_counts_pkey" PRIMARY KEY ("token","category_id","spec_set")
);

-- CreateTable
CREATE TABLE "search_price_counts" (
    "token" TEXT NOT NULL,
    "scale" SMALLINT NOT NULL,
    "cell" BIGINT NOT NULL,
    "items" INTEGER NOT NULL,

    CONSTRAINT "search_price_counts_pkey" PRIMARY KEY ("token","scale","cell")
);

-- CreateTable
CREATE TABLE "search_facet_pending" (
    "seq" BIGSERIAL NOT NULL,
    "category_id" INTEGER NOT NULL,
    "spec_set" BIGINT NOT NULL,
    "cents" BIGINT NOT NULL,
    "items" INTEGER NOT NULL,
    "tokens" TEXT[],

    CONSTRAINT "search_facet_pending_pkey" PRIMARY KEY ("seq")
);

-- CreateTable
CREATE TABLE "spec_sets" (
    "id" BIGINT NOT NULL,
    "names" BIGINT[],
    "values" BIGINT[],
    "spellings" BIGINT[],

    CONSTRAINT "spec_sets_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "items_out_of_stock" (
    "item_id" INTEGER NOT NULL,

    CONSTRAINT "items_out_of_stock_pkey" PRIMARY KEY ("item_id")
);

-- A spec summary's set: its spellings sorted (each once per SKU entry), hashed. 0: no specs.
CREATE FUNCTION "spec_set_of"(spellings BIGINT[]) RETURNS BIGINT LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN cardinality(spellings) > 0
              THEN hashtextextended(array_to_string(ARRAY(SELECT s FROM unnest(spellings) s ORDER BY s), ','), 0)
              ELSE 0 END
$$;

-- One fold at a time (and none while a TRUNCATE of the postings empties the counts): its own lock,
-- never the catalogue writes' (search_index_lock), so a fold never holds up a write.
CREATE FUNCTION "search_facets_fold_lock"() RETURNS void LANGUAGE sql AS $$
  SELECT pg_advisory_xact_lock(7254019302)
$$;

-- Folds every committed pending delta into the counts, in one statement: the rows it deletes are the
-- rows it adds (upserts in key order), so a reader's "counts + pending" is the same before and after.
-- Returns how many pending rows it folded.
CREATE FUNCTION "search_facets_fold"() RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  folded INTEGER;
BEGIN
  PERFORM "search_facets_fold_lock"();
  WITH d AS (
    DELETE FROM "search_facet_pending" RETURNING category_id, spec_set, cents, items, tokens
  ), x AS (
    SELECT t AS token, d.category_id, d.spec_set, d.cents, d.items FROM d, unnest(d.tokens) t
  ), counts AS (
    INSERT INTO "search_facet_counts" AS c (token, category_id, spec_set, items)
    SELECT token, category_id, spec_set, sum(items)::int FROM x
     GROUP BY 1, 2, 3 HAVING sum(items) <> 0 ORDER BY 1, 2, 3
    ON CONFLICT (token, category_id, spec_set) DO UPDATE SET items = c.items + EXCLUDED.items
  ), prices AS (
    INSERT INTO "search_price_counts" AS c (token, scale, cell, items)
    SELECT x.token, sc.scale, x.cents / sc.unit, sum(x.items)::int
      FROM x CROSS JOIN (VALUES (2::smallint, 100::bigint), (4, 10000), (6, 1000000)) AS sc(scale, unit)
     GROUP BY 1, 2, 3 HAVING sum(x.items) <> 0 ORDER BY 1, 2, 3
    ON CONFLICT (token, scale, cell) DO UPDATE SET items = c.items + EXCLUDED.items
  )
  SELECT count(*)::int INTO folded FROM d;
  RETURN folded;
END
$$;

-- Which tokens may be kept: Chinese ones, and Latin ones of 3 characters or more. A one- or two-letter
-- keyword (`t`, `tr`: a word being typed, a suggestion's business) is the start of every other word:
-- its postings are nearly half of all, and keeping them would double what every item write counts.
-- Their facets are counted from the matches.
CREATE FUNCTION "search_facets_keepable"(token TEXT) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT length(token) >= 3 OR token !~ '^[a-z0-9]+$'
$$;

-- Keeps `tokens` (those not kept yet): their counts from their visible postings, as they are now.
CREATE FUNCTION "search_facets_keep_tokens"(tokens TEXT[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  fresh TEXT[];
BEGIN
  PERFORM "search_index_lock"();
  WITH added AS (
    INSERT INTO "search_facet_tokens" (token) SELECT DISTINCT t FROM unnest(tokens) t ORDER BY 1
    ON CONFLICT (token) DO NOTHING RETURNING token
  ) SELECT array_agg(token) INTO fresh FROM added;
  IF fresh IS NULL THEN
    RETURN;
  END IF;
  DELETE FROM "search_facet_counts" WHERE token = ANY(fresh);
  DELETE FROM "search_price_counts" WHERE token = ANY(fresh);
  INSERT INTO "search_facet_counts" (token, category_id, spec_set, items)
  SELECT p.token, f.category_id, f.spec_set, count(*)::int
    FROM unnest(fresh) t JOIN "search_postings" p ON p.token = t
    JOIN "search_facet_items" f ON f.item_id = p.item_id
   WHERE p.visible GROUP BY 1, 2, 3 ORDER BY 1, 2, 3;
  INSERT INTO "search_price_counts" (token, scale, cell, items)
  SELECT p.token, sc.scale, f.cents / sc.unit, count(*)::int
    FROM unnest(fresh) t JOIN "search_postings" p ON p.token = t
    JOIN "search_facet_items" f ON f.item_id = p.item_id
   CROSS JOIN (VALUES (2::smallint, 100::bigint), (4, 10000), (6, 1000000)) AS sc(scale, unit)
   WHERE p.visible GROUP BY 1, 2, 3 ORDER BY 1, 2, 3;
END
$$;

-- Keeps every token of at least `min_items` visible items from now on (the threshold's one setter).
CREATE FUNCTION "search_facets_keep"(min_items INTEGER) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM "search_index_lock"();
  INSERT INTO "search_facet_settings" (id, min_items) VALUES (1, min_items)
  ON CONFLICT (id) DO UPDATE SET min_items = EXCLUDED.min_items;
  PERFORM "search_facets_keep_tokens"(array_agg(token)) FROM "search_token_counts"
    WHERE items >= min_items AND "search_facets_keepable"(token)
  HAVING count(*) > 0;
END
$$;

-- Counts every kept token again from the postings, as search_facets_keep first did: after a bulk write
-- with the postings' triggers off (the bench's fill, bench/data.ts), whose postings moved no count.
CREATE FUNCTION "search_facets_recount"() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM "search_index_lock"();
  PERFORM "search_facets_fold_lock"();
  DELETE FROM "search_facet_pending";
  DELETE FROM "search_facet_counts";
  DELETE FROM "search_price_counts";
  DELETE FROM "search_facet_tokens";
  PERFORM "search_facets_keep"(COALESCE((SELECT min_items FROM "search_facet_settings" WHERE id = 1), 500));
END
$$;

-- The postings' side: their kept tokens' counts follow every posting that comes, goes or changes
-- visibility (a tier's change nets to nothing); then tokens whose count reached the threshold are kept.
CREATE FUNCTION "search_postings_faceted"() RETURNS trigger LANGUAGE plpgsql
  SET enable_seqscan = off AS $$
DECLARE
  changed TEXT;
BEGIN
  PERFORM "search_index_lock"();
  IF TG_OP = 'TRUNCATE' THEN
    -- After any fold under way: rows it adds are then seen, and deleted.
    PERFORM "search_facets_fold_lock"();
    DELETE FROM "search_facet_counts";
    DELETE FROM "search_price_counts";
    DELETE FROM "search_facet_pending";
    RETURN NULL;
  END IF;
  -- Each posting counted in (+1) or out (-1); an update's old and new rows net per posting, so a
  -- tier's change counts nothing and a visibility flip counts the posting once.
  changed := CASE TG_OP
    WHEN 'INSERT' THEN 'SELECT token, item_id, 1 AS n FROM new_rows WHERE visible'
    WHEN 'DELETE' THEN 'SELECT token, item_id, -1 AS n FROM old_rows WHERE visible'
    ELSE 'SELECT token, item_id, sum(n)::int AS n
            FROM (SELECT token, item_id, -1 AS n FROM old_rows WHERE visible
                  UNION ALL SELECT token, item_id, 1 FROM new_rows WHERE visible) u
           GROUP BY token, item_id HAVING sum(n) <> 0' END;
  -- Pending, one row per item and direction: its kept tokens, under what the item is counted.
  EXECUTE format(
    'INSERT INTO "search_facet_pending" (category_id, spec_set, cents, items, tokens)
     SELECT f.category_id, f.spec_set, f.cents, d.n, array_agg(d.token)
       FROM (%s) d
       JOIN "search_facet_items" f ON f.item_id = d.item_id
      WHERE EXISTS (SELECT 1 FROM "search_facet_tokens" t WHERE t.token = d.token)
      GROUP BY f.item_id, d.n', changed);
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    PERFORM "search_facets_keep_tokens"(array_agg(c.token))
       FROM (SELECT DISTINCT token FROM new_rows WHERE visible) n
       JOIN "search_token_counts" c ON c.token = n.token
      WHERE c.items >= COALESCE((SELECT min_items FROM "search_facet_settings" WHERE id = 1), 2147483647)
        AND "search_facets_keepable"(n.token)
        AND NOT EXISTS (SELECT 1 FROM "search_facet_tokens" t WHERE t.token = n.token)
     HAVING count(*) > 0;
  END IF;
  RETURN NULL;
END
$$;

-- After the token counts' triggers (search_postings_counted_*: triggers fire in name order), whose
-- counts the threshold reads.
CREATE TRIGGER "search_postings_faceted_insert" AFTER INSERT ON "search_postings"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "search_postings_faceted"();
CREATE TRIGGER "search_postings_faceted_delete" AFTER DELETE ON "search_postings"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "search_postings_faceted"();
CREATE TRIGGER "search_postings_faceted_update" AFTER UPDATE ON "search_postings"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "search_postings_faceted"();
CREATE TRIGGER "search_postings_faceted_truncate" AFTER TRUNCATE ON "search_postings"
  FOR EACH STATEMENT EXECUTE FUNCTION "search_postings_faceted"();

-- An item counted under other attributes: its kept postings move from the old ones to the new.
CREATE FUNCTION "search_facet_items_moved"() RETURNS trigger LANGUAGE plpgsql
  SET enable_seqscan = off AS $$
BEGIN
  INSERT INTO "search_facet_pending" (category_id, spec_set, cents, items, tokens)
  SELECT x.category_id, x.spec_set, x.cents, x.n, p.tokens
     FROM (SELECT o.item_id, o.category_id, o.spec_set, o.cents, -1 AS n
             FROM old_rows o JOIN new_rows n ON n.item_id = o.item_id
            WHERE (o.category_id, o.spec_set, o.cents) <> (n.category_id, n.spec_set, n.cents)
           UNION ALL
           SELECT n.item_id, n.category_id, n.spec_set, n.cents, 1
             FROM old_rows o JOIN new_rows n ON n.item_id = o.item_id
            WHERE (o.category_id, o.spec_set, o.cents) <> (n.category_id, n.spec_set, n.cents)) x
     -- Each moved item's postings by its key (OFFSET 0: kept a per-item look-up, never a scan of
     -- every posting, whatever the statistics say of a catalogue still filling).
     CROSS JOIN LATERAL (SELECT array_agg(p.token) AS tokens
                           FROM (SELECT p.token FROM "search_postings" p WHERE p.item_id = x.item_id AND p.visible OFFSET 0) p
                          WHERE EXISTS (SELECT 1 FROM "search_facet_tokens" t WHERE t.token = p.token)) p
    WHERE p.tokens IS NOT NULL;
  RETURN NULL;
END
$$;

CREATE TRIGGER "search_facet_items_moved" AFTER UPDATE ON "search_facet_items"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "search_facet_items_moved"();

-- The items' side: a new item is counted under its category and price (no specs until its summary
-- comes); a changed category or price moves it (under the lock, only then: a stock adjustment or a
-- version claim only compares); its stock crossing zero moves it in or out of items_out_of_stock
-- (no lock: no count changes).
CREATE FUNCTION "items_faceted"() RETURNS trigger LANGUAGE plpgsql
  SET enable_seqscan = off AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "search_facet_items" (item_id, category_id, cents, spec_set)
    SELECT id, category_id, (price * 100)::bigint, 0 FROM new_rows;
    INSERT INTO "items_out_of_stock" (item_id) SELECT id FROM new_rows WHERE stock <= 0;
    RETURN NULL;
  END IF;
  -- UPDATE
  IF EXISTS (SELECT 1 FROM new_rows n JOIN old_rows o ON o.id = n.id
              WHERE n.category_id <> o.category_id OR n.price <> o.price) THEN
    PERFORM "search_index_lock"();
    UPDATE "search_facet_items" f SET category_id = n.category_id, cents = (n.price * 100)::bigint
      FROM new_rows n JOIN old_rows o ON o.id = n.id
     WHERE f.item_id = n.id AND (n.category_id <> o.category_id OR n.price <> o.price);
  END IF;
  IF EXISTS (SELECT 1 FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE (n.stock <= 0) <> (o.stock <= 0)) THEN
    DELETE FROM "items_out_of_stock" s USING new_rows n JOIN old_rows o ON o.id = n.id
     WHERE s.item_id = n.id AND n.stock > 0 AND o.stock <= 0;
    INSERT INTO "items_out_of_stock" (item_id)
    SELECT n.id FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.stock <= 0 AND o.stock > 0
    ON CONFLICT (item_id) DO NOTHING;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "items_faceted_insert" AFTER INSERT ON "items"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "items_faceted"();
CREATE TRIGGER "items_faceted_update" AFTER UPDATE ON "items"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "items_faceted"();

-- A deleted item: its postings go first (their trigger counts them out under the item's attributes,
-- still in search_facet_items), then what it was counted under.
CREATE OR REPLACE FUNCTION "items_postings_deleted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    TRUNCATE "search_postings";
    TRUNCATE "search_facet_items";
    TRUNCATE "items_out_of_stock";
  ELSE
    DELETE FROM "search_postings" p USING old_rows o WHERE p.item_id = o.id;
    DELETE FROM "search_facet_items" f USING old_rows o WHERE f.item_id = o.id;
    DELETE FROM "items_out_of_stock" s USING old_rows o WHERE s.item_id = o.id;
  END IF;
  RETURN NULL;
END
$$;

-- The summaries' side: a summary's set is recorded (spec_sets: what the facets read of it) and the
-- item counted under it. (A summary deleted goes with its item, which the items' side handles.)
CREATE FUNCTION "item_spec_summaries_faceted"() RETURNS trigger LANGUAGE plpgsql
  SET enable_seqscan = off AS $$
BEGIN
  INSERT INTO "spec_sets" (id, names, "values", spellings)
  SELECT DISTINCT ON (s) s, n.names, n."values", ARRAY(SELECT x FROM unnest(n.spellings) x ORDER BY x)
    FROM (SELECT "spec_set_of"(spellings) AS s, names, "values", spellings FROM new_rows) n
   WHERE s <> 0 ORDER BY s
  ON CONFLICT (id) DO NOTHING;
  IF EXISTS (SELECT 1 FROM new_rows n JOIN "search_facet_items" f ON f.item_id = n.item_id
              WHERE f.spec_set <> "spec_set_of"(n.spellings)) THEN
    PERFORM "search_index_lock"();
    UPDATE "search_facet_items" f SET spec_set = "spec_set_of"(n.spellings)
      FROM new_rows n WHERE f.item_id = n.item_id AND f.spec_set <> "spec_set_of"(n.spellings);
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "item_spec_summaries_faceted_insert" AFTER INSERT ON "item_spec_summaries"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "item_spec_summaries_faceted"();
CREATE TRIGGER "item_spec_summaries_faceted_update" AFTER UPDATE ON "item_spec_summaries"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "item_spec_summaries_faceted"();

-- What is there already: the empty set, each item as it is counted, the out-of-stock items, and the
-- tokens of at least 500 visible items, counted from their postings (the costly part: see docs/search.md).
INSERT INTO "spec_sets" (id, names, "values", spellings) VALUES (0, '{}', '{}', '{}');
INSERT INTO "spec_sets" (id, names, "values", spellings)
SELECT DISTINCT ON (s) s, names, "values", ARRAY(SELECT x FROM unnest(spellings) x ORDER BY x)
  FROM (SELECT "spec_set_of"(spellings) AS s, names, "values", spellings FROM "item_spec_summaries") n
 WHERE s <> 0 ORDER BY s
ON CONFLICT (id) DO NOTHING;
INSERT INTO "search_facet_items" (item_id, category_id, cents, spec_set)
SELECT i.id, i.category_id, (i.price * 100)::bigint, COALESCE("spec_set_of"(ss.spellings), 0)
  FROM "items" i LEFT JOIN "item_spec_summaries" ss ON ss.item_id = i.id;
INSERT INTO "items_out_of_stock" (item_id) SELECT id FROM "items" WHERE stock <= 0;
SELECT "search_facets_keep"(500);
