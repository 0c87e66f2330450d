/**
 * The kept item JSON's maintenance (prisma/migrations/20261211000000_kept_item_json; catalog-json.ts):
 * triggers keep `item_rest_json` whatever writes the catalogue, so these are only for rows written
 * with those triggers off (the bench's fill) or a database whose rows are in doubt.
 */
import type { IndexerSql } from '../search/indexer-sql.ts';

/** Writes the kept JSON of every item that has none; returns how many (start-up: normally 0, one anti-join). */
export async function keepMissingItemJson(sql: IndexerSql): Promise<number> {
  const [row] = await sql.$queryRawUnsafe<Array<{ written: number }>>(
    `SELECT item_rest_json_refresh(ARRAY(
       SELECT i.id FROM items i WHERE NOT EXISTS (SELECT 1 FROM item_rest_json j WHERE j.item_id = i.id) ORDER BY i.id
     )) AS written`,
  );
  return row?.written ?? 0;
}

/** Writes again every item's kept JSON that differs from a fresh one (`reindex`); returns how many rows changed. */
export async function refreshAllItemJson(sql: IndexerSql): Promise<number> {
  const [row] = await sql.$queryRawUnsafe<Array<{ written: number }>>('SELECT item_rest_json_refresh(NULL) AS written');
  return row?.written ?? 0;
}
