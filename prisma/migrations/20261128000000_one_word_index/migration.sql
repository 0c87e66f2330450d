-- The one-word index (src/search/postings.ts): per item, one posting per token a one-word keyword
-- may be, with the relevance tier it gives the item, whether a word of the name (or its pinyin)
-- starts with it (what suggestions offer), and the item's creation time, so a page of such a search
-- and its total come from one B-tree without visiting the items.
CREATE TABLE "search_postings" (
    "item_id" INTEGER NOT NULL,
    "token" TEXT NOT NULL,
    "tier" SMALLINT NOT NULL,
    "in_name" BOOLEAN NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "search_postings_pkey" PRIMARY KEY ("item_id","token")
);

-- CreateIndex
CREATE INDEX "search_postings_token_tier_created_at_item_id_idx" ON "search_postings"("token", "tier", "created_at" DESC, "item_id" DESC);

-- AddForeignKey
ALTER TABLE "search_postings" ADD CONSTRAINT "search_postings_item_id_fkey" FOREIGN KEY ("item_id") REFERENCES "items"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Items that exist before this migration get their postings when the service starts
-- (src/setup/prepare-database.ts indexes every item without them); until then the documents stay,
-- so an instance of the previous version keeps searching during a rolling start.
