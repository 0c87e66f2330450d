-- Any change to the catalogue tells every instance listening on `shop_catalog` to forget its cached
-- answers (contract §7.6), whether the write came through the service or not (a SQL console, a
-- script). Statement-level, so a bulk change sends one notification; PostgreSQL delivers it at commit.
CREATE FUNCTION "shop_catalog_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('shop_catalog', TG_TABLE_NAME);
  RETURN NULL;
END
$$;

CREATE TRIGGER "items_catalog_changed" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "items"
  FOR EACH STATEMENT EXECUTE FUNCTION "shop_catalog_changed"();
CREATE TRIGGER "skus_catalog_changed" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "skus"
  FOR EACH STATEMENT EXECUTE FUNCTION "shop_catalog_changed"();
CREATE TRIGGER "item_images_catalog_changed" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "item_images"
  FOR EACH STATEMENT EXECUTE FUNCTION "shop_catalog_changed"();
CREATE TRIGGER "categories_catalog_changed" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "categories"
  FOR EACH STATEMENT EXECUTE FUNCTION "shop_catalog_changed"();
