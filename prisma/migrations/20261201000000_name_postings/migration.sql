-- Suggestions walk a token's postings for those of names (`in_name`), in the order of the one-word
-- index (src/search/suggestions.ts). With `in_name` only in the table, every posting passed on the way
-- cost a visit to the table: `to` at 1,000,000 items passes 62,500 substring postings (`stove`)
-- before the first name posting (`tou`, the pinyin of 头) — 185 ms. As the index's last column it
-- is tested in the index (3 ms), and the index keeps its size (the boolean fits the padding after
-- `item_id`). The search's own order is the same four leading columns, so one index still serves both.
--
-- IF EXISTS / IF NOT EXISTS: on a large catalogue the index may be built beforehand without
-- blocking writes (`CREATE INDEX CONCURRENTLY "search_postings_token_tier_created_at_item_id_in_name_idx" …`);
-- this migration then only drops the old one.

-- CreateIndex (first, so a search never runs without an index between the two statements)
CREATE INDEX IF NOT EXISTS "search_postings_token_tier_created_at_item_id_in_name_idx" ON "search_postings"("token", "tier", "created_at" DESC, "item_id" DESC, "in_name");

-- DropIndex
DROP INDEX IF EXISTS "search_postings_token_tier_created_at_item_id_idx";
