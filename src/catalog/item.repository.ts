/**
 * The storefront's hot reads (contract §4.1–4.3) as single SQL statements that build the whole
 * answer — items with category, SKUs and images — as JSON inside PostgreSQL, through the same
 * connection pool Prisma uses. Measured on the bench machine, one Prisma 7 query costs 1.3–2.6 ms of
 * Node CPU against 0.3–0.4 ms for the same rows through `pg`, and an item page needs four of them;
 * here a page or an item is one statement. The rows come back in exactly the shape Prisma would
 * return with `ITEM_INCLUDE`, so the Pothos types cannot tell the two paths apart, and a test
 * holds them equal.
 */
import type { SqlDriver } from '../db/database.ts';
import { Prisma, type Category, type Item, type ItemImage, type Sku } from '../generated/prisma/client.ts';

/** What an item is read with everywhere: its category, SKUs by id, images by sort order then id. */
export const ITEM_INCLUDE = {
  category: true,
  skus: { orderBy: { id: 'asc' } },
  images: { orderBy: [{ sortOrder: 'asc' }, { id: 'asc' }] },
} as const satisfies Prisma.ItemInclude;

export type ItemWithRelations = Item & { category: Category; skus: Sku[]; images: ItemImage[] };

const iso = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** One item (`i`, joined with its category `c`) as JSON with Prisma's field names. */
const ITEM_JSON = `json_build_object(
  'id', i.id, 'name', i.name, 'categoryId', i.category_id, 'price', i.price::text, 'stock', i.stock,
  'createdAt', ${iso('i.created_at')}, 'updatedAt', ${iso('i.updated_at')},
  'category', json_build_object('id', c.id, 'name', c.name, 'parentId', c.parent_id, 'sortOrder', c.sort_order,
                                'createdAt', ${iso('c.created_at')}, 'updatedAt', ${iso('c.updated_at')}),
  'skus', COALESCE((SELECT json_agg(json_build_object('id', s.id, 'itemId', s.item_id, 'skuCode', s.sku_code,
                      'specs', s.specs, 'price', s.price::text, 'stock', s.stock) ORDER BY s.id)
                    FROM skus s WHERE s.item_id = i.id), '[]'),
  'images', COALESCE((SELECT json_agg(json_build_object('id', m.id, 'itemId', m.item_id, 'url', m.url,
                        'sortOrder', m.sort_order) ORDER BY m.sort_order, m.id)
                      FROM item_images m WHERE m.item_id = i.id), '[]'))`;

interface ItemJson extends Omit<ItemWithRelations, 'price' | 'createdAt' | 'updatedAt' | 'category' | 'skus'> {
  price: string;
  createdAt: string;
  updatedAt: string;
  category: Omit<Category, 'createdAt' | 'updatedAt'> & { createdAt: string; updatedAt: string };
  skus: (Omit<Sku, 'price'> & { price: string })[];
}

/** JSON from the database → the types Prisma returns (exact decimals, dates). */
function fromJson(item: ItemJson): ItemWithRelations {
  return {
    ...item,
    price: new Prisma.Decimal(item.price),
    createdAt: new Date(item.createdAt),
    updatedAt: new Date(item.updatedAt),
    category: { ...item.category, createdAt: new Date(item.category.createdAt), updatedAt: new Date(item.category.updatedAt) },
    skus: item.skus.map((s) => ({ ...s, price: new Prisma.Decimal(s.price) })),
  };
}

export async function findItem(sql: SqlDriver, id: number): Promise<ItemWithRelations | null> {
  const [row] = await sql.query<{ item: string }>(
    `SELECT ${ITEM_JSON}::text AS item FROM items i JOIN categories c ON c.id = i.category_id WHERE i.id = $1`,
    [id],
  );
  return row ? fromJson(JSON.parse(row.item)) : null;
}

export interface ItemFilter {
  categoryId?: number;
  /** An ILIKE pattern. */
  namePattern?: string;
}

/**
 * One page, newest first, and the number of matching items, in one statement. Filters are spliced in
 * only when present, so each combination is planned for its own index: newest-first alone, category
 * + newest-first, or the trigram index on names.
 */
export async function findItemPage(
  sql: SqlDriver,
  filter: ItemFilter,
  limit: number,
  offset: number,
): Promise<{ total: number; items: ItemWithRelations[] }> {
  const params: unknown[] = [limit, offset];
  const conditions: string[] = [];
  let tree = '';
  if (filter.categoryId !== undefined) {
    params.push(filter.categoryId);
    tree = `WITH RECURSIVE tree AS (
      SELECT id FROM categories WHERE id = $${params.length}
      UNION SELECT c.id FROM categories c JOIN tree t ON c.parent_id = t.id)`;
    conditions.push('i.category_id IN (SELECT id FROM tree)');
  }
  if (filter.namePattern !== undefined) {
    params.push(filter.namePattern);
    conditions.push(`i.name ILIKE $${params.length}`);
  }
  const where = conditions.length ? `WHERE ${conditions.join(' AND ')}` : '';
  const [row] = await sql.query<{ total: number; items: string }>(
    `${tree}
     SELECT (SELECT count(*)::int FROM items i ${where}) AS total,
            (SELECT COALESCE(json_agg(${ITEM_JSON} ORDER BY i.created_at DESC, i.id DESC), '[]')::text
               FROM (SELECT i.id FROM items i ${where} ORDER BY i.created_at DESC, i.id DESC LIMIT $1 OFFSET $2) p
               JOIN items i ON i.id = p.id JOIN categories c ON c.id = i.category_id) AS items`,
    params,
  );
  return { total: row.total, items: (JSON.parse(row.items) as ItemJson[]).map(fromJson) };
}

/** Every category, by sort order then id. */
export async function findCategories(sql: SqlDriver): Promise<Category[]> {
  const [row] = await sql.query<{ categories: string }>(
    `SELECT COALESCE(json_agg(json_build_object('id', id, 'name', name, 'parentId', parent_id, 'sortOrder', sort_order,
       'createdAt', ${iso('created_at')}, 'updatedAt', ${iso('updated_at')}) ORDER BY sort_order, id), '[]')::text AS categories
     FROM categories`,
  );
  return (JSON.parse(row.categories) as (Omit<Category, 'createdAt' | 'updatedAt'> & { createdAt: string; updatedAt: string })[]).map(
    (c) => ({ ...c, createdAt: new Date(c.createdAt), updatedAt: new Date(c.updatedAt) }),
  );
}
