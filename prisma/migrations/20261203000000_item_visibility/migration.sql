-- Which items the public sees (contract §12.1): visible means `active`, `publish_at` null or passed,
-- `unpublish_at` null or not yet passed. The rule is `item_visible` below, the one place it is written;
-- every public read tests its result, kept in `items.visible` and copied to each posting of the
-- one-word index (`search_postings.visible`), so hiding an item costs the reads nothing: the list
-- filters a column of a row it reads anyway, the one-word index tests the flag in the index (its last
-- column, in the padding after `in_name`: the index keeps its size) and a token's kept count is of
-- visible postings only.
--
-- The flag is set by every write of the item (a trigger, whoever writes), and when a schedule passes
-- without any write by `item_visibility_flip()`, which each serving process calls when the next
-- schedule time (`item_visibility_due()`) comes (src/catalog/visibility-schedule.ts). The flip is one
-- conditional UPDATE: many processes may run it at once, one of them changes the rows, and the
-- catalogue trigger's notification tells every instance to empty its cache.

-- AlterTable (a constant default: no table rewrite)
ALTER TABLE "items" ADD COLUMN "visible" BOOLEAN NOT NULL DEFAULT true;
ALTER TABLE "search_postings" ADD COLUMN "visible" BOOLEAN NOT NULL DEFAULT true;

-- The rule, at time `at`.
CREATE FUNCTION "item_visible"(status "ItemStatus", publish_at TIMESTAMPTZ, unpublish_at TIMESTAMPTZ, at TIMESTAMPTZ)
RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT status = 'active' AND (publish_at IS NULL OR publish_at <= at) AND (unpublish_at IS NULL OR unpublish_at > at)
$$;

-- Every write of an item's status or schedule sets its flag (a write cannot set it otherwise).
CREATE FUNCTION "items_visible_set"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.visible := "item_visible"(NEW.status, NEW.publish_at, NEW.unpublish_at, now());
  RETURN NEW;
END
$$;
CREATE TRIGGER "items_visible_set" BEFORE INSERT OR UPDATE OF "status", "publish_at", "unpublish_at", "visible" ON "items"
  FOR EACH ROW EXECUTE FUNCTION "items_visible_set"();

-- A changed flag is copied to the item's postings (their counts' trigger follows). Only when a flag
-- changed: any other update of items (a price, a stock adjustment) neither touches the postings nor
-- takes the postings' count lock.
CREATE FUNCTION "items_visible_spread"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.visible <> o.visible) THEN
    UPDATE "search_postings" p SET visible = n.visible
      FROM new_rows n JOIN old_rows o ON o.id = n.id
     WHERE n.visible <> o.visible AND p.item_id = n.id;
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER "items_visible_spread" AFTER UPDATE ON "items"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "items_visible_spread"();

-- A token's count is of visible postings: the public one-word search's total.
CREATE OR REPLACE FUNCTION "search_postings_counted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM "search_index_lock"();
  IF TG_OP = 'TRUNCATE' THEN
    DELETE FROM "search_token_counts";
    RETURN NULL;
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    UPDATE "search_token_counts" c SET items = c.items - o.n
      FROM (SELECT token, count(*)::int AS n FROM old_rows WHERE visible GROUP BY token) o
     WHERE c.token = o.token;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO "search_token_counts" (token, items)
    SELECT token, count(*)::int FROM new_rows WHERE visible GROUP BY token
    ON CONFLICT (token) DO UPDATE SET items = "search_token_counts".items + EXCLUDED.items;
  END IF;
  RETURN NULL;
END
$$;

-- When the next flag changes without a write: the earliest `publish_at` of an active item waiting to
-- be shown, or `unpublish_at` of a shown one; in the past when one is overdue; NULL when none waits.
-- (An item whose flag lags its rule for another reason — a write committed after its own publish time
-- — is overdue as well, so the flip catches it. A hidden active item without a publish time was hidden
-- by its unpublish time, which stays passed.) Each part walks its index in time order and stops at the
-- first row (LEAST skips a NULL).
CREATE FUNCTION "item_visibility_due"() RETURNS TIMESTAMPTZ LANGUAGE sql STABLE AS $$
  SELECT LEAST(
    (SELECT publish_at FROM "items"
      WHERE NOT visible AND status = 'active' AND publish_at IS NOT NULL
        AND (unpublish_at IS NULL OR unpublish_at > now())
      ORDER BY publish_at LIMIT 1),
    (SELECT unpublish_at FROM "items" WHERE visible AND unpublish_at IS NOT NULL ORDER BY unpublish_at LIMIT 1))
$$;

-- Sets the flags of every item whose schedule has passed; returns how many changed. Safe to run from
-- every process at once: the postings' lock comes first (as in a catalogue write, so the two cannot
-- deadlock), and whoever comes second finds nothing left to change and changes nothing.
CREATE FUNCTION "item_visibility_flip"() RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  flipped integer;
BEGIN
  IF NOT COALESCE("item_visibility_due"() <= now(), false) THEN
    RETURN 0;
  END IF;
  PERFORM "search_index_lock"();
  -- Read again under the lock: another process may have flipped them meanwhile.
  IF NOT COALESCE("item_visibility_due"() <= now(), false) THEN
    RETURN 0;
  END IF;
  UPDATE "items" SET visible = "item_visible"(status, publish_at, unpublish_at, now())
   WHERE (NOT visible AND status = 'active' AND publish_at <= now()
          AND (unpublish_at IS NULL OR unpublish_at > now()))
      OR (visible AND unpublish_at <= now());
  GET DIAGNOSTICS flipped = ROW_COUNT;
  RETURN flipped;
END
$$;

-- What item_visibility_due walks: the hidden active items by publish time, the shown ones by unpublish time.
-- CreateIndex
CREATE INDEX "items_visible_status_publish_at_idx" ON "items"("visible", "status", "publish_at");
CREATE INDEX "items_visible_unpublish_at_idx" ON "items"("visible", "unpublish_at");

-- The price indexes with the flag as their last column: a price range's count (of visible items) stays
-- an index-only scan, as before. (The other orders' pages visit each row anyway, for the answer.)
-- DropIndex / CreateIndex
DROP INDEX "items_price_asc_idx";
CREATE INDEX "items_price_asc_idx" ON "items"("price", "id" DESC, "visible");
DROP INDEX "items_price_desc_idx";
CREATE INDEX "items_price_desc_idx" ON "items"("price" DESC, "id" DESC, "visible");

-- The one-word index with the flag as its last column (tested in the index, as `in_name`). On a large
-- catalogue build it beforehand without blocking writes (`CREATE INDEX CONCURRENTLY
-- "search_postings_walk_idx" …`); this migration then only drops the old one.
-- CreateIndex (first, so a search never runs without an index between the two statements)
CREATE INDEX IF NOT EXISTS "search_postings_walk_idx" ON "search_postings"("token", "tier", "created_at" DESC, "item_id" DESC, "in_name", "visible");

-- DropIndex
DROP INDEX IF EXISTS "search_postings_token_tier_created_at_item_id_in_name_idx";

-- Items hidden already (written since the lifecycle columns came): their flags, their postings and counts.
UPDATE "items" SET visible = false WHERE NOT "item_visible"(status, publish_at, unpublish_at, now());
