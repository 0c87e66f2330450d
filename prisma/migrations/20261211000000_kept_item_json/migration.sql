-- Kept item JSON (issue 35): every REST read of items (the public list, detail and search, the admin's
-- REST list and detail, the events' `data.item`) answers with the REST item selection
-- (src/catalog/item-rest-fields.ts), which PostgreSQL wrote per item per read: ~15 µs of concat plus
-- the SKUs' and images' subqueries, for every item of every page. Contract §12's five fields made a
-- search at 1,000,000 items 9 % slower (649 → 726 µs of PostgreSQL per request). Now each item's
-- JSON is written when the item, its SKUs or images change, and a page reads it.
--
-- item_rest_json: per item the JSON text before its category's value (`head`) and after it (`tail`);
-- the read splices in `{"id":…,"name":…}` of the joined category (src/catalog/catalog-json.ts), so
-- a category rename touches no item.
--
-- The JSON expression below is what catalog-json.ts generates for REST_ITEM_FIELDS, held literally
-- (test/db/kept-item-json.test.ts compares the two: a change of the REST fields needs a migration
-- that replaces item_rest_json_refresh and refreshes every row).
--
-- Kept by statement triggers (transition tables) on items (insert, update), skus and item_images
-- (insert, update, delete, truncate), each refreshing the statement's items in one upsert; a deleted
-- item's row goes by the cascade. As the kept facet counts' functions, item_rest_json_refresh has
-- `enable_seqscan = off`: its statements touch a statement's few items, index look-ups whatever the
-- statistics said when PL/pgSQL planned them (a table that looked empty while a catalogue was filled).

-- CreateTable
CREATE TABLE "item_rest_json" (
    "item_id" INTEGER NOT NULL,
    "head" TEXT NOT NULL,
    "tail" TEXT NOT NULL,

    CONSTRAINT "item_rest_json_pkey" PRIMARY KEY ("item_id")
);

-- AddForeignKey
ALTER TABLE "item_rest_json" ADD CONSTRAINT "item_rest_json_item_id_fkey" FOREIGN KEY ("item_id") REFERENCES "items"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE FUNCTION "item_rest_json_refresh"(ids INTEGER[]) RETURNS integer LANGUAGE plpgsql
  SET enable_seqscan = off AS $$
DECLARE
  written INTEGER;
BEGIN
  IF ids IS NULL THEN
    -- Every item: a scan, not ~1,000,000 look-ups.
    PERFORM set_config('enable_seqscan', 'on', true);
    INSERT INTO "item_rest_json" AS j (item_id, head, tail)
    SELECT i.id,
           concat('{"id":', i.id, ',"name":', to_json(i.name), ',"description":', to_json(i.description), ',"category_id":', i.category_id, ',"category":'),
           concat(',"price":', i.price::float8, ',"stock":', i.stock, ',"skus":', (SELECT COALESCE('[' || string_agg((concat('{"id":', s.id, ',"sku_code":', COALESCE(to_json(s.sku_code)::text, 'null'), ',"specs":', s.specs, ',"price":', s.price::float8, ',"stock":', s.stock, '}'))::text, ',' ORDER BY s.id) || ']', '[]') FROM skus s WHERE s.item_id = i.id), ',"images":', (SELECT COALESCE('[' || string_agg((concat('{"id":', m.id, ',"url":', to_json(m.url), ',"sort_order":', m.sort_order, '}'))::text, ',' ORDER BY m.sort_order, m.id) || ']', '[]') FROM item_images m WHERE m.item_id = i.id), ',"status":', to_json(i.status::text), ',"publish_at":', COALESCE('"' || to_char(i.publish_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null'), ',"unpublish_at":', COALESCE('"' || to_char(i.unpublish_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null'), ',"handle":', to_json(i.handle), ',"version":', i.version, ',"created_at":"', to_char(i.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), '","updated_at":"', to_char(i.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), '"}')
      FROM "items" i
    ON CONFLICT (item_id) DO UPDATE SET head = EXCLUDED.head, tail = EXCLUDED.tail
     WHERE (j.head, j.tail) IS DISTINCT FROM (EXCLUDED.head, EXCLUDED.tail);
  ELSE
    PERFORM 1 FROM "item_rest_json" WHERE item_id = ANY(ids) ORDER BY item_id FOR UPDATE;
    INSERT INTO "item_rest_json" AS j (item_id, head, tail)
    SELECT i.id,
           concat('{"id":', i.id, ',"name":', to_json(i.name), ',"description":', to_json(i.description), ',"category_id":', i.category_id, ',"category":'),
           concat(',"price":', i.price::float8, ',"stock":', i.stock, ',"skus":', (SELECT COALESCE('[' || string_agg((concat('{"id":', s.id, ',"sku_code":', COALESCE(to_json(s.sku_code)::text, 'null'), ',"specs":', s.specs, ',"price":', s.price::float8, ',"stock":', s.stock, '}'))::text, ',' ORDER BY s.id) || ']', '[]') FROM skus s WHERE s.item_id = i.id), ',"images":', (SELECT COALESCE('[' || string_agg((concat('{"id":', m.id, ',"url":', to_json(m.url), ',"sort_order":', m.sort_order, '}'))::text, ',' ORDER BY m.sort_order, m.id) || ']', '[]') FROM item_images m WHERE m.item_id = i.id), ',"status":', to_json(i.status::text), ',"publish_at":', COALESCE('"' || to_char(i.publish_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null'), ',"unpublish_at":', COALESCE('"' || to_char(i.unpublish_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null'), ',"handle":', to_json(i.handle), ',"version":', i.version, ',"created_at":"', to_char(i.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), '","updated_at":"', to_char(i.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), '"}')
      FROM "items" i WHERE i.id = ANY(ids) ORDER BY i.id
    ON CONFLICT (item_id) DO UPDATE SET head = EXCLUDED.head, tail = EXCLUDED.tail
     WHERE (j.head, j.tail) IS DISTINCT FROM (EXCLUDED.head, EXCLUDED.tail);
  END IF;
  GET DIAGNOSTICS written = ROW_COUNT;
  RETURN written;
END
$$;

-- The items' side: a new or changed item (any column: an unchanged text is not written again).
CREATE FUNCTION "items_rest_json_kept"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM "item_rest_json_refresh"(ARRAY(SELECT id FROM new_rows));
  RETURN NULL;
END
$$;

CREATE TRIGGER "items_rest_json_insert" AFTER INSERT ON "items"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "items_rest_json_kept"();
CREATE TRIGGER "items_rest_json_update" AFTER UPDATE ON "items"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "items_rest_json_kept"();

-- The parts' side (skus, item_images): the items of the rows written, before and after (a row moved
-- to another item changes both). A part deleted with its item finds no item: nothing is written.
CREATE FUNCTION "item_parts_rest_json_kept"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    PERFORM "item_rest_json_refresh"(NULL);
  ELSIF TG_OP = 'INSERT' THEN
    PERFORM "item_rest_json_refresh"(ARRAY(SELECT DISTINCT item_id FROM new_rows));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM "item_rest_json_refresh"(ARRAY(SELECT DISTINCT item_id FROM old_rows));
  ELSE
    PERFORM "item_rest_json_refresh"(
      ARRAY(SELECT item_id FROM new_rows UNION SELECT item_id FROM old_rows));
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "skus_rest_json_insert" AFTER INSERT ON "skus"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "item_parts_rest_json_kept"();
CREATE TRIGGER "skus_rest_json_update" AFTER UPDATE ON "skus"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "item_parts_rest_json_kept"();
CREATE TRIGGER "skus_rest_json_delete" AFTER DELETE ON "skus"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "item_parts_rest_json_kept"();
CREATE TRIGGER "skus_rest_json_truncate" AFTER TRUNCATE ON "skus"
  FOR EACH STATEMENT EXECUTE FUNCTION "item_parts_rest_json_kept"();
CREATE TRIGGER "item_images_rest_json_insert" AFTER INSERT ON "item_images"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "item_parts_rest_json_kept"();
CREATE TRIGGER "item_images_rest_json_update" AFTER UPDATE ON "item_images"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "item_parts_rest_json_kept"();
CREATE TRIGGER "item_images_rest_json_delete" AFTER DELETE ON "item_images"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "item_parts_rest_json_kept"();
CREATE TRIGGER "item_images_rest_json_truncate" AFTER TRUNCATE ON "item_images"
  FOR EACH STATEMENT EXECUTE FUNCTION "item_parts_rest_json_kept"();

-- Every item there is, in one statement (~1,000,000 items: a scan of items with each one's SKUs and images).
SELECT "item_rest_json_refresh"(NULL);
