/** The category list (contract §4.3) as one SQL statement building the JSON, like the item reads. */
import type { SqlReader } from '../db/database.ts';
import { CATEGORY_ROW_JSON, jsonArray } from './catalog-json.ts';
import type { CategoryRow } from './item.repository.ts';

/** Every category, by sort order then id. */
export async function findCategories(sql: SqlReader): Promise<CategoryRow[]> {
  return JSON.parse(await findCategoriesJson(sql, CATEGORY_ROW_JSON)) as CategoryRow[];
}

/** Every category, by sort order then id, as one JSON array text of `categoryJson` (catalog-json.ts) over `c`. */
export async function findCategoriesJson(sql: SqlReader, categoryJson: string): Promise<string> {
  const [row] = await sql.query<{ categories: string }>(
    `SELECT ${jsonArray(categoryJson, 'c.sort_order, c.id')} AS categories FROM categories c`,
    [],
    { prepare: true },
  );
  // An aggregate without GROUP BY: always exactly one row.
  return row!.categories;
}
