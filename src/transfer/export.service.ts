/**
 * Export (contract §13.3): every item a filter of the admin list matches, with all its SKUs, written as
 * a file of §13.1 (item-file.ts makes the rows and lines) in `id` order. The items are read a batch at
 * a time by keyset (`id > last ORDER BY id LIMIT n`, each a short statement of its own, so the embedded
 * database's one connection serves other requests between two batches) and each batch is written
 * before the next is read, at the reader's pace (paced-writer.ts): the memory stays that of one batch,
 * for 1,000 items or 1,000,000. The HTTP route and the CLI write the same bytes through this module.
 *
 * The batches are not one snapshot: an item changed while the export runs is written as its batch
 * found it. A CSV's spec columns are read first (its header needs them); a SKU that gains a spec name
 * meanwhile would lose that value in the file, so the export stops instead (ExportOutdatedError).
 */
import { stringify } from 'csv-stringify/sync';
import type { SqlReader } from '../db/database.ts';
import { compileItemQuery, type ItemFilter, matchingItems, withClause } from '../search/item-query.ts';
import type { ExportFormat } from './export.schema.ts';
import { csvHeader, csvRows, jsonLine, STORED_ITEMS_SQL, type StoredItem } from './item-file.ts';
import type { PacedWriter } from './paced-writer.ts';

/** Items read and written per statement. */
export const EXPORT_BATCH = 500;
/** Items whose spec names one statement gathers (a CSV's header): a cheap read, so larger steps. */
const SPEC_NAMES_BATCH = 10_000;

/** What an export wrote: items, and rows (CSV: one per SKU, the header aside; JSON Lines: one per item). */
export interface ExportCount {
  items: number;
  rows: number;
}

/** A SKU gained a spec name the CSV's header had not while the export ran: its file would lose the value. */
export class ExportOutdatedError extends Error {
  constructor(itemId: number, name: string) {
    super(`item ${itemId} gained the spec "${name}" while the export ran; export again`);
    this.name = 'ExportOutdatedError';
  }
}

/** The matching items' ids after `after`, by id, at most `limit` of them, as a common table `name`. */
function idsAfter(filter: ItemFilter, after: number, limit: number, name: string) {
  const query = compileItemQuery(filter);
  const keyset = `i.id > ${query.p(after)}`;
  const ids = `${name} AS MATERIALIZED (SELECT i.id ${matchingItems(query, { also: [keyset] })} ORDER BY i.id LIMIT ${limit})`;
  return { query, ids };
}

/**
 * The distinct spec names of the matching items' SKUs, sorted by code point (the CSV's `spec:` columns,
 * contract §13.1), gathered a step of ids at a time so no statement reads the whole catalogue.
 */
export async function specNamesOf(sql: SqlReader, filter: ItemFilter): Promise<string[]> {
  const names = new Set<string>();
  for (let after = 0; ; ) {
    const { query, ids } = idsAfter(filter, after, SPEC_NAMES_BATCH, 'step');
    // The SKUs by `= ANY(array)`: their index, item by item (a join with the step was planned as a
    // scan of every SKU, once per step). A `specs` that is no object (written behind the service) has
    // no names rather than failing the export.
    const [row] = await sql.query<{ last: number | null; n: number; names: string[] }>(
      `${withClause(query, [ids])}
       SELECT (SELECT max(id) FROM step) AS last, (SELECT count(*) FROM step)::int AS n,
              ARRAY(SELECT DISTINCT k.name FROM skus s
                      CROSS JOIN LATERAL jsonb_object_keys(
                        CASE WHEN jsonb_typeof(s.specs) = 'object' THEN s.specs ELSE '{}'::jsonb END) k(name)
                     WHERE s.item_id = ANY(ARRAY(SELECT id FROM step))) AS names`,
      query.params,
    );
    for (const name of row?.names ?? []) names.add(name);
    if (!row || row.last === null || row.n < SPEC_NAMES_BATCH) break;
    after = row.last;
  }
  return [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The matching items, a batch at a time in `id` order, each as the files write it. */
export async function* storedItemBatches(
  sql: SqlReader,
  filter: ItemFilter,
  batchSize = EXPORT_BATCH,
): AsyncGenerator<StoredItem[]> {
  for (let after = 0; ; ) {
    const { query, ids } = idsAfter(filter, after, batchSize, 'batch');
    const found = await sql.query<{ id: number }>(
      `${withClause(query, [ids])} SELECT id FROM batch ORDER BY id`,
      query.params,
    );
    if (found.length === 0) return;
    // Not prepared: its plan is a small part of its cost (measured: 25.5 against 26.2 ms a batch on
    // PostgreSQL, and slower on the embedded database).
    const rows = await sql.query<{ item: StoredItem }>(
      `${STORED_ITEMS_SQL} WHERE i.id = ANY($1::int[]) ORDER BY i.id`,
      [found.map((r) => r.id)],
    );
    // An item deleted between the two statements is simply not written.
    yield rows.map((r) => r.item);
    if (found.length < batchSize) return;
    after = found[found.length - 1]!.id;
  }
}

/**
 * RFC 4180 as contract §13.1 reads it: CRLF between records, every field holding a line break quoted
 * (csv-stringify quotes a field with the record delimiter, but not a lone `\n` in it when the delimiter
 * is CRLF), and a byte order mark first, so spreadsheet programs read the UTF-8 (Chinese names) as such.
 */
const CSV_OPTIONS = { record_delimiter: 'windows', quoted_match: /[\r\n]/ } as const;

/** How a format writes the file: what comes before the items, and a batch of items with its row count. */
interface FileWriter {
  head: string;
  batch(items: StoredItem[]): { text: string; rows: number };
}

function csvWriter(specNames: string[]): FileWriter {
  const header = csvHeader(specNames);
  const known = new Set(specNames);
  return {
    head: stringify([header], { ...CSV_OPTIONS, bom: true }),
    batch(items) {
      const rows: string[][] = [];
      for (const item of items) {
        const unheaded = item.skus.flatMap((sku) => Object.keys(sku.specs)).find((name) => !known.has(name));
        if (unheaded !== undefined) throw new ExportOutdatedError(item.id, unheaded);
        rows.push(...csvRows(item, header));
      }
      return { text: stringify(rows, CSV_OPTIONS), rows: rows.length };
    },
  };
}

const jsonLinesWriter: FileWriter = {
  head: '',
  batch: (items) => ({ text: items.map((item) => `${jsonLine(item)}\n`).join(''), rows: items.length }),
};

/** An export whose file can begin: the reads its first bytes need (a CSV's spec columns) are done. */
export interface ItemExport {
  /**
   * Writes the whole file to `out`, a batch at a time at the reader's pace; stops reading when `out`
   * closes (SinkClosedError). The caller ends the stream (or destroys it, when this throws).
   */
  writeTo(out: PacedWriter): Promise<ExportCount>;
}

/** Prepares the export of the items `filter` matches as `format`. */
export async function prepareItemExport(sql: SqlReader, filter: ItemFilter, format: ExportFormat): Promise<ItemExport> {
  const writer = format === 'csv' ? csvWriter(await specNamesOf(sql, filter)) : jsonLinesWriter;
  return {
    async writeTo(out) {
      const count: ExportCount = { items: 0, rows: 0 };
      if (writer.head) await out.write(writer.head);
      for await (const items of storedItemBatches(sql, filter)) {
        const { text, rows } = writer.batch(items);
        if (text) await out.write(text);
        count.items += items.length;
        count.rows += rows;
        // The reader went away meanwhile: no further batch is read for it.
        out.assertOpen();
      }
      return count;
    },
  };
}

/** Each format's media type, its `Content-Type` as sent, and its file extension. */
export const EXPORT_MEDIA: Record<ExportFormat, { mediaType: string; contentType: string; extension: string }> = {
  csv: { mediaType: 'text/csv', contentType: 'text/csv; charset=utf-8', extension: 'csv' },
  jsonl: { mediaType: 'application/x-ndjson', contentType: 'application/x-ndjson', extension: 'jsonl' },
};
