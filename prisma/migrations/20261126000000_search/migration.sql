-- Search documents (contract §9.1): one per item, written by the service in each catalogue write's
-- transaction. Items that exist before this migration get theirs when the service starts
-- (src/setup/prepare-database.ts indexes every item without one).
CREATE TABLE "item_search_documents" (
    "item_id" INTEGER NOT NULL,
    "name_text" TEXT NOT NULL,
    "name_words" TEXT NOT NULL,
    "name_pinyin" TEXT NOT NULL,
    "category_text" TEXT NOT NULL,
    "category_words" TEXT NOT NULL,
    "category_pinyin" TEXT NOT NULL,
    "sku_text" TEXT NOT NULL,
    "sku_words" TEXT NOT NULL,
    "description_text" TEXT NOT NULL,
    "description_words" TEXT NOT NULL,
    "lookup" TEXT[],

    CONSTRAINT "item_search_documents_pkey" PRIMARY KEY ("item_id")
);

-- CreateIndex
CREATE INDEX "item_search_documents_lookup_idx" ON "item_search_documents" USING GIN ("lookup");

-- AddForeignKey
ALTER TABLE "item_search_documents" ADD CONSTRAINT "item_search_documents_item_id_fkey" FOREIGN KEY ("item_id") REFERENCES "items"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Synonym groups (contract §9.4).
CREATE TABLE "synonym_groups" (
    "id" SERIAL NOT NULL,
    "terms" TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "synonym_groups_pkey" PRIMARY KEY ("id")
);

-- A change to the synonyms changes search answers: every instance forgets its cached ones (§7.6).
CREATE TRIGGER "synonym_groups_catalog_changed" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "synonym_groups"
  FOR EACH STATEMENT EXECUTE FUNCTION "shop_catalog_changed"();

-- Search replaces the trigram index: a keyword's substring rule is looked up in the documents.
DROP INDEX "items_name_trgm_idx";
