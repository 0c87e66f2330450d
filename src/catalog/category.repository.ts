/** The category list (contract §4.3) as one SQL statement building the JSON, like the item reads. */
import type { SqlReader } from '../db/database.ts';
import type { CategoryRow } from './item.repository.ts';

/** Every category, by sort order then id. */
export async function findCategories(sql: SqlReader): Promise<CategoryRow[]> {
  const [row] = await sql.query<{ categories: string }>(
    `SELECT COALESCE(json_agg(json_build_object('id', id, 'name', name, 'parentId', parent_id, 'sortOrder', sort_order)
       ORDER BY sort_order, id), '[]')::text AS categories
     FROM categories`,
  );
  return JSON.parse(row?.categories ?? '[]') as CategoryRow[];
}
