-- The postings' foreign key checked every posting's item as it was inserted: ~100 postings an item, a
-- look-up and a row lock each — a third of the time of an import's (or any index write's) posting
-- insert. What it kept is kept otherwise:
-- * no posting for a missing item: the one statement that inserts postings (src/search/documents.ts
--   indexItems) takes them from the items' rows joined and locked FOR KEY SHARE — once per item, as the
--   key's check did per posting — so a concurrent delete of the item waits for it, or it sees the item gone;
-- * a deleted item's postings go with it (the key's ON DELETE CASCADE): the triggers below, per
--   statement, for DELETE and TRUNCATE of items.
ALTER TABLE "search_postings" DROP CONSTRAINT "search_postings_item_id_fkey";

CREATE FUNCTION "items_postings_deleted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    TRUNCATE "search_postings";
  ELSE
    DELETE FROM "search_postings" p USING old_rows o WHERE p.item_id = o.id;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "items_postings_deleted" AFTER DELETE ON "items"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "items_postings_deleted"();
CREATE TRIGGER "items_postings_truncated" AFTER TRUNCATE ON "items"
  FOR EACH STATEMENT EXECUTE FUNCTION "items_postings_deleted"();
