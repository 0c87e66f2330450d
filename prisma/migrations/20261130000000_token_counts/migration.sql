-- How many items each token of the one-word index finds (src/search/postings.ts), so a one-word
-- search's total is one row instead of a count of the token's postings (137,500 of them for `trail`
-- at 1,000,000 items: 8 ms of every such search). Kept by triggers on the postings, whatever writes
-- them: the indexer, a cascade from a deleted item, a TRUNCATE.
CREATE TABLE "search_token_counts" (
    "token" TEXT NOT NULL,
    "items" INTEGER NOT NULL,

    CONSTRAINT "search_token_counts_pkey" PRIMARY KEY ("token")
);

-- One writer of the counts at a time, until it commits: two writes whose items share tokens would
-- otherwise lock the same count rows in different orders. A catalogue write takes it first
-- (src/catalog/catalog-write.ts), before the rows the postings' foreign key would make it wait for.
CREATE FUNCTION "search_index_lock"() RETURNS void LANGUAGE sql AS $$
  SELECT pg_advisory_xact_lock(7254019301)
$$;

CREATE FUNCTION "search_postings_counted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM "search_index_lock"();
  IF TG_OP = 'TRUNCATE' THEN
    DELETE FROM "search_token_counts";
    RETURN NULL;
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    UPDATE "search_token_counts" c SET items = c.items - o.n
      FROM (SELECT token, count(*)::int AS n FROM old_rows GROUP BY token) o
     WHERE c.token = o.token;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO "search_token_counts" (token, items)
    SELECT token, count(*)::int FROM new_rows GROUP BY token
    ON CONFLICT (token) DO UPDATE SET items = "search_token_counts".items + EXCLUDED.items;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "search_postings_counted_insert" AFTER INSERT ON "search_postings"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "search_postings_counted"();
CREATE TRIGGER "search_postings_counted_delete" AFTER DELETE ON "search_postings"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "search_postings_counted"();
CREATE TRIGGER "search_postings_counted_update" AFTER UPDATE ON "search_postings"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "search_postings_counted"();
CREATE TRIGGER "search_postings_counted_truncate" AFTER TRUNCATE ON "search_postings"
  FOR EACH STATEMENT EXECUTE FUNCTION "search_postings_counted"();

INSERT INTO "search_token_counts" (token, items) SELECT token, count(*)::int FROM "search_postings" GROUP BY token;
