-- A catalogue write now locks the item rows it changes BEFORE the catalogue writes' lock
-- (search_index_lock), and takes that lock only for what follows — its postings, counts and events —
-- so the writes queue for a shorter hold (src/catalog/catalog-write.ts lockCatalogue has the order).
-- The schedule flip keeps the same order: the due items' rows (in id order), then the lock, then the
-- UPDATE of those rows. Of many processes flipping at once, one locks the rows and flips them; the
-- others wait for their locks, find them no longer due and flip nothing. (An item due only after the
-- rows were locked cannot be: now() is the transaction's time, and every write sets `visible` for it.)
CREATE OR REPLACE FUNCTION "item_visibility_flip"() RETURNS TABLE ("id" integer, "visible" boolean) LANGUAGE plpgsql AS $$
DECLARE
  due INTEGER[];
BEGIN
  IF NOT COALESCE("item_visibility_due"() <= now(), false) THEN
    RETURN;
  END IF;
  SELECT array_agg(d.id) INTO due FROM (
    SELECT i.id FROM "items" i
     WHERE (NOT i.visible AND i.status = 'active' AND i.publish_at <= now()
            AND (i.unpublish_at IS NULL OR i.unpublish_at > now()))
        OR (i.visible AND i.unpublish_at <= now())
     ORDER BY i.id FOR NO KEY UPDATE
  ) d;
  IF due IS NULL THEN
    RETURN;
  END IF;
  PERFORM "search_index_lock"();
  RETURN QUERY
  UPDATE "items" i SET visible = "item_visible"(i.status, i.publish_at, i.unpublish_at, now())
   WHERE i.id = ANY (due) AND i.visible <> "item_visible"(i.status, i.publish_at, i.unpublish_at, now())
  RETURNING i.id, i.visible;
END
$$;
