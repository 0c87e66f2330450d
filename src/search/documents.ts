/**
 * Keeps search documents current (contract §9.1): written in the transaction of the catalogue write
 * that changed what they cover (catalog/catalog-write.ts calls `indexItems` / `indexCategoryTree`),
 * at start for items that have none (migrated data, rows written behind the service's back), and on
 * demand for all (`npm run cli -- reindex`).
 */
import { cooperative } from '../process/cooperative.ts';
import { buildDocument, type DocumentSource, type SearchDocument } from './document.ts';
import type { IndexerSql } from './indexer-sql.ts';
import { postingsOf } from './postings.ts';
import { summariseSpecsThen } from './spec-summary.ts';

/** Items are indexed this many at a time: one read (with the spec summaries' write) per batch, one write per chunk. */
const BATCH = 500;

interface SourceRow {
  id: number;
  name: string;
  description: string;
  category_id: number;
  skus: Array<{ skuCode: string | null; specs: Record<string, string> }>;
}

interface CategoryRow {
  id: number;
  parent_id: number | null;
  name: string;
}

/**
 * A batch's spec summaries written, then its items' text and every category read — one statement, one
 * row: each is a round trip, made while a catalogue write holds its lock (`$1`: the items' ids).
 * Categories are few; they are read again per batch, under the same lock as the items.
 */
const SUMMARISED_SOURCE = summariseSpecsThen(`SELECT
  (SELECT COALESCE(json_agg(json_build_object('id', c.id, 'parent_id', c.parent_id, 'name', c.name)), '[]')
     FROM categories c) AS categories,
  (SELECT COALESCE(json_agg(json_build_object(
            'id', i.id, 'name', i.name, 'description', i.description, 'category_id', i.category_id,
            'skus', COALESCE((SELECT json_agg(json_build_object('skuCode', s.sku_code, 'specs', s.specs) ORDER BY s.id)
                                FROM skus s WHERE s.item_id = i.id), '[]'))), '[]')
     FROM items i WHERE i.id = ANY($1::int[])) AS items`);

/** Every category's path of names, root first. */
function categoryPaths(rows: CategoryRow[]): Map<number, string[]> {
  const byId = new Map(rows.map((r) => [r.id, r]));
  const paths = new Map<number, string[]>();
  const pathOf = (id: number, seen = new Set<number>()): string[] => {
    const known = paths.get(id);
    if (known) return known;
    const row = byId.get(id);
    // A cycle cannot be written through the service; a hand-made one ends the path instead of looping.
    if (!row || seen.has(id)) return [];
    seen.add(id);
    const path = [...(row.parent_id === null ? [] : pathOf(row.parent_id, seen)), row.name];
    paths.set(id, path);
    return path;
  };
  for (const id of byId.keys()) pathOf(id);
  return paths;
}

/** A document under its table's column names (`nameText` → `name_text`). */
const asColumns = (document: SearchDocument) =>
  Object.fromEntries(Object.entries(document).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), v]));

/** Items per chunk of indexItems' overlapped work (a chunk's statements run while the next is made). */
const PIPELINE_CHUNK = 100;

/** The document's columns but its key: an upsert that would change none of them writes nothing. */
const DOCUMENT_COLUMNS = [
  'name_text',
  'name_words',
  'name_pinyin',
  'category_text',
  'category_words',
  'category_pinyin',
  'sku_text',
  'sku_words',
  'description_text',
  'description_words',
  'lookup',
];

/**
 * A chunk's documents upserted and its postings brought to what they should be, in one statement.
 * Only what changed is written — a document whose text is the same stays as it is, and of an
 * item's ~100 postings only those whose token came or went, or whose tier or `in_name` moved — so an
 * edit that changes no word (a price, a stock, a status) moves no posting, and the statement triggers
 * kept on these tables (the token counts, the forgiving search's words) count only that churn.
 */
async function writeChunk(
  sql: IndexerSql,
  documents: SearchDocument[],
  columns: { item: number[]; token: string[]; tier: number[]; inName: boolean[] },
  existing: number[],
): Promise<void> {
  // ONE statement per chunk (each statement is a round trip, made while a catalogue write holds its
  // lock): the documents upserted, the postings that went deleted and the new or moved ones written, as
  // parts of one WITH. Their keys never meet — a posting deleted is one whose token is not in the new
  // set, one written is in it — and every part reads the statement's one snapshot, as the three
  // statements read the same rows one after another. The tables' statement triggers (token counts,
  // facet counts, forgiving search's words) each see their table's rows of the whole statement.
  //
  // The documents travel as JSON in the table's own column names. The one-word index as arrays, one
  // element per posting. An item's `created_at` and `visible` are the same on each of its ~100
  // postings: the insert takes them from the item's row rather than from a copy per posting sent over
  // the wire and parsed again. The postings have no foreign key (it checked each one): the items' rows
  // are locked here instead, once each, so an item deleted meanwhile either waits for this transaction
  // (and its trigger then deletes these postings) or is gone and gets none (migration
  // 20261207000000_postings_item_lock).
  const documentsUpserted = `d AS (INSERT INTO item_search_documents
     SELECT * FROM json_populate_recordset(NULL::item_search_documents, $6::json)
     ON CONFLICT (item_id) DO UPDATE SET ${DOCUMENT_COLUMNS.map((c) => `${c} = EXCLUDED.${c}`).join(', ')}
     WHERE (${DOCUMENT_COLUMNS.map((c) => `item_search_documents.${c}`).join(', ')})
           IS DISTINCT FROM (${DOCUMENT_COLUMNS.map((c) => `EXCLUDED.${c}`).join(', ')}))`;
  const postings = 'unnest($2::int[], $3::text[], $4::smallint[], $5::boolean[]) AS p(item_id, token, tier, in_name)';
  const items = 'i AS MATERIALIZED (SELECT id, created_at, visible FROM items WHERE id = ANY($1::int[]) FOR KEY SHARE)';
  const ids = documents.map((d) => d.itemId);
  const params = [
    ids,
    columns.item,
    columns.token,
    columns.tier,
    columns.inName,
    JSON.stringify(documents.map(asColumns)),
  ];
  if (existing.length === 0) {
    // New items (an import's): nothing to compare with.
    await sql.$executeRawUnsafe(
      `WITH ${documentsUpserted}, ${items}
       INSERT INTO search_postings (item_id, token, tier, in_name, created_at, visible)
       SELECT p.item_id, p.token, p.tier, p.in_name, i.created_at, i.visible FROM ${postings} JOIN i ON i.id = p.item_id`,
      ...params,
    );
    return;
  }
  // Items that may have postings: the diff. Tokens they no longer have go; new ones come, and those
  // whose tier or in_name moved are updated in place (ON CONFLICT) — the rest are not written at all
  // (not even locked).
  await sql.$executeRawUnsafe(
    `WITH ${documentsUpserted},
     gone AS (DELETE FROM search_postings o
               WHERE o.item_id = ANY($7::int[])
                 AND NOT EXISTS (SELECT 1 FROM unnest($2::int[], $3::text[]) AS p(item_id, token)
                                  WHERE p.item_id = o.item_id AND p.token = o.token)),
     ${items}
     INSERT INTO search_postings (item_id, token, tier, in_name, created_at, visible)
     SELECT p.item_id, p.token, p.tier, p.in_name, i.created_at, i.visible
       FROM ${postings} JOIN i ON i.id = p.item_id
       LEFT JOIN search_postings o ON o.item_id = p.item_id AND o.token = p.token
      WHERE o.item_id IS NULL OR o.tier <> p.tier OR o.in_name <> p.in_name
     ON CONFLICT (item_id, token) DO UPDATE SET tier = EXCLUDED.tier, in_name = EXCLUDED.in_name`,
    ...params,
    existing,
  );
}

/**
 * Writes the documents, postings and spec summaries of `ids` (items that no longer exist are skipped).
 * `existing`: those of `ids` that may have postings already (all, unless told), compared with what
 * they should be — an import's new items have none, and comparing with nothing still costs statements.
 */
export async function indexItems(
  sql: IndexerSql,
  ids: number[],
  { existing = ids }: { existing?: readonly number[] } = {},
): Promise<void> {
  if (ids.length === 0) return;
  const replaced = new Set(existing);
  for (let start = 0; start < ids.length; start += BATCH) {
    const batch = ids.slice(start, start + BATCH);
    // The spec summaries first, in the statement that reads the items' text: the postings' facet
    // counts (search/facets.ts) count each item under its summary's set, so a new item's postings are
    // counted once, under the set they end in.
    const [source] = await sql.$queryRawUnsafe<Array<{ categories: CategoryRow[]; items: SourceRow[] }>>(
      SUMMARISED_SOURCE,
      batch,
    );
    const paths = categoryPaths(source?.categories ?? []);
    const rows = source?.items ?? [];
    // In chunks, overlapped: while one chunk's statements run in the database, the next chunk's
    // documents and postings (CPU work of this process) are made. Still one statement at a time on
    // the transaction's connection, in the order written; requests are let in between the CPU steps
    // (process/cooperative.ts).
    const pause = cooperative();
    let inFlight: Promise<void> = Promise.resolve();
    try {
      for (let from = 0; from < rows.length; from += PIPELINE_CHUNK) {
        const chunk = rows.slice(from, from + PIPELINE_CHUNK);
        const documents: SearchDocument[] = [];
        const columns = { item: [] as number[], token: [] as string[], tier: [] as number[], inName: [] as boolean[] };
        for (const r of chunk) {
          await pause();
          const document = buildDocument({
            itemId: r.id,
            name: r.name,
            description: r.description,
            categoryPath: paths.get(r.category_id) ?? [],
            skus: r.skus,
          } satisfies DocumentSource);
          documents.push(document);
          for (const { token, tier, inName } of postingsOf(r.name, document)) {
            columns.item.push(r.id);
            columns.token.push(token);
            columns.tier.push(tier);
            columns.inName.push(inName);
          }
        }
        await inFlight;
        inFlight = writeChunk(
          sql,
          documents,
          columns,
          chunk.filter((r) => replaced.has(r.id)).map((r) => r.id),
        );
        // Awaited at the next chunk or below; a failure meanwhile is not "unhandled" in between.
        inFlight.catch(() => undefined);
      }
    } finally {
      // Nothing of this batch left running when it returns or throws (the caller commits or rolls back).
      await inFlight.catch(() => undefined);
    }
    await inFlight;
  }
}

/** Re-indexes every item of category `id` and its sub-categories (a rename or move changes their paths). */
export async function indexCategoryTree(sql: IndexerSql, id: number): Promise<void> {
  const rows = await sql.$queryRawUnsafe<Array<{ id: number }>>(
    `WITH RECURSIVE tree AS (SELECT id FROM categories WHERE id = $1
                             UNION SELECT c.id FROM categories c JOIN tree t ON c.parent_id = t.id)
     SELECT i.id FROM items i WHERE i.category_id IN (SELECT id FROM tree) ORDER BY i.id`,
    id,
  );
  await indexItems(
    sql,
    rows.map((r) => r.id),
  );
}

/** The ids of items without a search document, a posting or a spec summary. */
export const UNINDEXED_ITEMS = `SELECT i.id FROM items i
   WHERE NOT EXISTS (SELECT 1 FROM item_search_documents d WHERE d.item_id = i.id)
      OR NOT EXISTS (SELECT 1 FROM search_postings p WHERE p.item_id = i.id)
      OR NOT EXISTS (SELECT 1 FROM item_spec_summaries s WHERE s.item_id = i.id)`;

/**
 * Indexes the items that have no document, posting or spec summary (a batch's statements outside a transaction
 * may have stopped half-way); returns how many.
 */
export async function indexMissing(sql: IndexerSql): Promise<number> {
  const rows = await sql.$queryRawUnsafe<Array<{ id: number }>>(`${UNINDEXED_ITEMS} ORDER BY i.id`);
  await indexItems(
    sql,
    rows.map((r) => r.id),
  );
  return rows.length;
}

/** Rebuilds every document (`npm run cli -- reindex`); returns how many items were indexed. */
export async function reindexAll(sql: IndexerSql): Promise<number> {
  const rows = await sql.$queryRawUnsafe<Array<{ id: number }>>('SELECT id FROM items ORDER BY id');
  await indexItems(
    sql,
    rows.map((r) => r.id),
  );
  await sql.$executeRawUnsafe(
    'DELETE FROM item_search_documents d WHERE NOT EXISTS (SELECT 1 FROM items i WHERE i.id = d.item_id)',
  );
  return rows.length;
}
