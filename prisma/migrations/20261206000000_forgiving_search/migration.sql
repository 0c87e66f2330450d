-- Forgiving search (contract §9.6; src/search/forgiving.ts): a typed word that is one or two edits
-- from a word of the catalogue also finds it, and a joined word its halves. Its candidates come from
-- this vocabulary — every whole word of letters a-z in the search documents' fields (names, category
-- paths, SKU codes and specs, descriptions; not their pinyin, whose syllables would split every
-- pinyin word: paoxie = pao + xie), with the number of documents holding it — never from the
-- documents themselves, so finding them costs in proportion to the catalogue's words, not its items.
CREATE EXTENSION IF NOT EXISTS "fuzzystrmatch";

-- In byte order ("C"): a word's start is a range of the primary key (`word >= 'shi' AND word < 'shi{'`).
CREATE TABLE "search_words" (
    "word" TEXT COLLATE "C" NOT NULL,
    "items" INTEGER NOT NULL,

    CONSTRAINT "search_words_pkey" PRIMARY KEY ("word")
);

-- Kept by triggers on the documents, whatever writes them (the indexer, a deleted item's cascade, a
-- TRUNCATE), under the one-word index's lock (migration 20261130000000_token_counts), which catalogue
-- writes take first.
CREATE FUNCTION "search_words_counted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM "search_index_lock"();
  IF TG_OP = 'TRUNCATE' THEN
    DELETE FROM "search_words";
    RETURN NULL;
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    UPDATE "search_words" w SET items = w.items - o.n
      FROM (SELECT e AS word, count(DISTINCT r.item_id)::int AS n
              FROM old_rows r, unnest(string_to_array(r.name_words || r.category_words || r.sku_words || r.description_words, ' ')) e
             WHERE e ~ '^[a-z]+$' GROUP BY e) o
     WHERE w.word = o.word;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO "search_words" (word, items)
    SELECT e, count(DISTINCT r.item_id)::int
      FROM new_rows r, unnest(string_to_array(r.name_words || r.category_words || r.sku_words || r.description_words, ' ')) e
     WHERE e ~ '^[a-z]+$' GROUP BY e
    ON CONFLICT (word) DO UPDATE SET items = "search_words".items + EXCLUDED.items;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "search_words_counted_insert" AFTER INSERT ON "item_search_documents"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "search_words_counted"();
CREATE TRIGGER "search_words_counted_delete" AFTER DELETE ON "item_search_documents"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "search_words_counted"();
CREATE TRIGGER "search_words_counted_update" AFTER UPDATE ON "item_search_documents"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "search_words_counted"();
CREATE TRIGGER "search_words_counted_truncate" AFTER TRUNCATE ON "item_search_documents"
  FOR EACH STATEMENT EXECUTE FUNCTION "search_words_counted"();

INSERT INTO "search_words" (word, items)
SELECT e, count(DISTINCT d.item_id)::int
  FROM "item_search_documents" d, unnest(string_to_array(d.name_words || d.category_words || d.sku_words || d.description_words, ' ')) e
 WHERE e ~ '^[a-z]+$' GROUP BY e;
