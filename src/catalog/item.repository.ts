/**
 * The storefront's hot reads (contract §4.1–4.2) as single SQL statements that build the whole answer
 * — items with category, SKUs and images — as JSON inside PostgreSQL. Rows stay in wire form (exact
 * decimal strings, ISO timestamps in UTC): the GraphQL scalars pass them through, so no Decimal or Date
 * is made and unmade per field. Only the columns an answer shows are selected. Measured on the bench
 * machine, one Prisma 7 query costs 1.3–2.6 ms of Node CPU against 0.3–0.4 ms for the same rows
 * through `pg`, and an item page needed four of them; here a page or an item is one statement.
 */
import type { SqlReader } from '../db/database.ts';
import { compileItemQuery, type ItemFilter, type ItemQuery, matchingItems, withClause } from '../search/item-query.ts';
import { oneWordToken, postingOrder } from '../search/postings.ts';
import { isPublic, PUBLIC, type Visibility, visibilitySql } from '../search/visibility.ts';
import { MAX_PAGE_SIZE } from '../validation/paging.ts';
import { ITEM_ROW_JSON, jsonArray } from './catalog-json.ts';
import type { ItemSort, ItemStatus } from './item.schema.ts';

/** A category as answers show it. */
export interface CategoryRow {
  id: number;
  name: string;
  parentId: number | null;
  sortOrder: number;
}

export interface SkuRow {
  id: number;
  skuCode: string | null;
  specs: Record<string, string>;
  /** Exact decimal text (`19.90`). */
  price: string;
  stock: number;
}

export interface ImageRow {
  id: number;
  url: string;
  sortOrder: number;
}

/** An item as every answer shows it: SKUs by id, images by sort order then id. */
export interface ItemRow {
  id: number;
  name: string;
  description: string;
  categoryId: number;
  category: CategoryRow;
  price: string;
  stock: number;
  skus: SkuRow[];
  images: ImageRow[];
  status: ItemStatus;
  /** ISO 8601 UTC with milliseconds, or null: no schedule on that side. */
  publishAt: string | null;
  unpublishAt: string | null;
  handle: string;
  /** 1, and one more with every change of the item, its SKUs or images (contract §12.1). */
  version: number;
  /** ISO 8601 UTC with milliseconds. */
  createdAt: string;
  updatedAt: string;
}

/** One item if `visibility` shows it (default: the public's), else null — as for an unknown id. */
export async function findItem(sql: SqlReader, id: number, visibility: Visibility = PUBLIC): Promise<ItemRow | null> {
  const item = await findItemJson(sql, id, ITEM_ROW_JSON, visibility);
  return item === null ? null : (JSON.parse(item) as ItemRow);
}

/**
 * A statement's text per item JSON shape (a few: the row's and each route's selection) and kind, made
 * once: the same text object every time, so naming it for its prepared statement (db/prepared.ts)
 * hashes it once, not per request.
 */
const statementsByShape = new Map<string, Map<string, string>>();
function statementFor(itemJson: string, kind: string, make: () => string): string {
  let texts = statementsByShape.get(itemJson);
  if (!texts) statementsByShape.set(itemJson, (texts = new Map()));
  let text = texts.get(kind);
  if (text === undefined) texts.set(kind, (text = make()));
  return text;
}

/**
 * One item as JSON text in the shape `itemJson` builds (catalog-json.ts), or null — also when
 * `visibility` (default: the public's) does not show it.
 */
export async function findItemJson(
  sql: SqlReader,
  id: number,
  itemJson: string,
  visibility: Visibility = PUBLIC,
): Promise<string | null> {
  const params: unknown[] = [id];
  const shown = visibilitySql(visibility, (value) => `$${params.push(value)}`);
  const text = statementFor(
    itemJson,
    `item ${shown ?? ''}`,
    () =>
      `SELECT ${itemJson}::text AS item FROM items i JOIN categories c ON c.id = i.category_id WHERE i.id = $1${shown ? ` AND ${shown}` : ''}`,
  );
  const [row] = await sql.query<{ item: string }>(text, params, { prepare: true });
  return row ? row.item : null;
}

/**
 * One item by id or by handle (lower case, as every handle is stored: contract §12.1) whatever its
 * state — the admin's read, which no visibility rule of the public reads may narrow; or null.
 */
export async function findItemInAnyState(
  sql: SqlReader,
  by: { id: number } | { handle: string },
): Promise<ItemRow | null> {
  const column = 'id' in by ? 'id' : 'handle';
  const text = statementFor(
    ITEM_ROW_JSON,
    `admin item by ${column}`,
    () =>
      `SELECT ${ITEM_ROW_JSON}::text AS item FROM items i JOIN categories c ON c.id = i.category_id WHERE i.${column} = $1`,
  );
  const [row] = await sql.query<{ item: string }>(text, ['id' in by ? by.id : by.handle], { prepare: true });
  return row ? (JSON.parse(row.item) as ItemRow) : null;
}

/**
 * Each order over the columns of a row source `t` (the items, or the matches' keys); each ends with
 * the id (newest first), so a page is always the same rows, and each has its index.
 */
const ORDER_BY: Record<Exclude<ItemSort, 'relevance'>, (t: string) => string> = {
  newest: (t) => `${t}.created_at DESC, ${t}.id DESC`,
  price_asc: (t) => `${t}.price, ${t}.id DESC`,
  price_desc: (t) => `${t}.price DESC, ${t}.id DESC`,
  name_asc: (t) => `${t}.name, ${t}.id DESC`,
};

/** What every order may sort by, carried out of the matches. */
const SORT_COLUMNS = 'i.id, i.created_at, i.price, i.name';

/**
 * The page's order over the keys of the matches (`t`): best match first (contract §9.1: tier, then
 * terms closer together and earlier in the name), then newest — or the requested order. `keys` are
 * the relevance columns the matches carry for it.
 */
function pageOrder(query: ItemQuery, sort: ItemSort): { keys: string; order: (t: string) => string } {
  const k = query.keyword;
  if (sort === 'relevance' && k) {
    const { rank, span, first } = k.relevance();
    return {
      keys: `, ${rank} AS rel_rank, ${span} AS rel_span, ${first} AS rel_first`,
      order: (t) => `${t}.rel_rank, ${t}.rel_span, ${t}.rel_first, ${ORDER_BY.newest(t)}`,
    };
  }
  return { keys: '', order: ORDER_BY[sort === 'relevance' ? 'newest' : sort] };
}

/** No filter of any kind: the whole catalogue (the items the visibility shows) in some order. */
const isUnfiltered = ({ visibility: _, ...filter }: ItemFilter) =>
  Object.values(filter).every((value) => value === undefined || (Array.isArray(value) && value.length === 0));

/**
 * The token of a search the one-word index answers: a one-word keyword alone, best match first, of
 * the public (the index walks visible postings).
 */
function oneWordSearch(filter: ItemFilter, sort: ItemSort): string | undefined {
  const { search, categoryId, minPrice, maxPrice, inStock, specs } = filter;
  const alone =
    categoryId === undefined &&
    minPrice === undefined &&
    maxPrice === undefined &&
    !inStock &&
    isPublic(filter.visibility);
  if (!search || sort !== 'relevance' || !alone || (specs?.length ?? 0) > 0) return undefined;
  return oneWordToken(search);
}

/**
 * The rows `$2` (offset) to `$2` + `$1` (limit) of `ordered` (a SELECT with its ORDER BY), as a
 * subquery whose columns `order` names. Not `LIMIT $1 OFFSET $2`: for a LIMIT or OFFSET it cannot see,
 * PostgreSQL's generic plan assumes a tenth of the rows (planner.c, preprocess_limit) — for a common
 * token's page ~430 rows where a custom plan counts 20, about 20 times its cost — so it never kept the
 * generic plan of a prepared page statement, and planned every execution again: 0.5–0.6 ms of
 * PostgreSQL CPU per search at 100,000 items (pg_stat_statements), about half of a search's. Here the
 * inner LIMIT is a constant, which no page exceeds (one statement text for every page size up to
 * MAX_PAGE_SIZE), and the page's own LIMIT `$1` cuts it: the generic plan counts a tenth of that
 * constant and costs less than a custom one, so PostgreSQL keeps it. The outer Limit stops the inner
 * one, so no more rows are read than before; the inner order carries through (no second sort).
 */
function pageWindow(ordered: string, order: (t: string) => string, limit: number): string {
  return `SELECT * FROM (${ordered} LIMIT ${Math.max(MAX_PAGE_SIZE, limit)} OFFSET $2) w ORDER BY ${order('w')} LIMIT $1`;
}

/**
 * The statement of one page (`$1` limit, `$2` offset) and — unless `withTotal` is false — the number
 * of matching items, answering `total` and `items` (the JSON array of `itemJson` over `i` and its
 * category `c`). A one-word keyword alone is answered from the one-word index (search/postings.ts):
 * the page walks the token's first entries and the total is the token's kept count, without visiting the items.
 * With another keyword every match is visited once anyway (to rank it, or to check it), so the
 * matches are gathered once and both the count and the page are taken from them; without one, the
 * page walks its order's index and stops, and the count is its own cheap scan. The floor
 * (bench/floor.ts) answers with this same statement.
 */
export function pageSql(
  filter: ItemFilter,
  sort: ItemSort,
  limit: number,
  offset: number,
  itemJson: string,
  withTotal = true,
): { text: string; params: unknown[]; prepare: boolean } {
  /** `source` yields the matches' keys (item id in `id`) as `alias`; the page is cut from it in `order`. */
  const page = (source: string, alias: string, order: (t: string) => string, count: string, id = 'id') => `
     SELECT ${withTotal ? count : 'NULL::int'} AS total,
            (SELECT ${jsonArray(itemJson, order('p'))}
               FROM (${pageWindow(`${source} ORDER BY ${order(alias)}`, order, limit)}) p
               JOIN items i ON i.id = p.${id} JOIN categories c ON c.id = i.category_id) AS items`;
  const token = oneWordSearch(filter, sort);
  if (token !== undefined) {
    // `visible`: the index's last column, tested as it is walked; the kept count is of visible postings.
    const postings = 'FROM search_postings WHERE token = $3 AND visible';
    const text = statementFor(itemJson, withTotal ? 'one-word page and total' : 'one-word page', () =>
      page(
        `SELECT item_id, tier, created_at ${postings}`,
        'search_postings',
        postingOrder,
        // Kept by triggers on the postings (prisma/migrations/…_token_counts): one row, not a count.
        'COALESCE((SELECT items FROM search_token_counts WHERE token = $3), 0)',
        'item_id',
      ),
    );
    return {
      text,
      params: [limit, offset, token],
      // One plan for every token: its postings' index, in its order, cut at the page.
      prepare: true,
    };
  }
  const query = compileItemQuery(filter, [limit, offset]);
  const from = matchingItems(query);
  const { keys, order } = pageOrder(query, sort);
  if (!query.keyword) {
    const count = `(SELECT count(*)::int ${from})`;
    return {
      text: `${withClause(query)} ${page(`SELECT ${SORT_COLUMNS} ${from}`, 'i', order, count)}`,
      params: query.params,
      // No filter at all: the order's index, cut at the page — one plan for every page. (A filter's
      // best plan depends on its values: a small category walks another index than a large one.)
      prepare: isUnfiltered(filter),
    };
  }
  const hits = `hits AS MATERIALIZED (SELECT ${SORT_COLUMNS}${keys} ${from})`;
  return {
    text: `${withClause(query, [hits])} ${page('SELECT * FROM hits', 'hits', order, '(SELECT count(*)::int FROM hits)')}`,
    params: query.params,
    prepare: false,
  };
}

/**
 * One page in the given order and — unless `knownTotal` is given (a cached count) — the number of
 * matching items, in one statement. Filters are spliced in only when present, so each combination is
 * planned for its own index (docs/explain.md): an order's index alone, category + newest-first, the
 * search documents' lookup index for a keyword, or a price index for a price range.
 */
export async function findItemPage(
  sql: SqlReader,
  filter: ItemFilter,
  sort: ItemSort,
  limit: number,
  offset: number,
  knownTotal?: number,
): Promise<{ total: number; items: ItemRow[] }> {
  const { total, items } = await findItemPageJson(sql, filter, sort, limit, offset, ITEM_ROW_JSON, knownTotal);
  return { total, items: JSON.parse(items) as ItemRow[] };
}

/** findItemPage with the items as one JSON array text, each in the shape `itemJson` builds. */
export async function findItemPageJson(
  sql: SqlReader,
  filter: ItemFilter,
  sort: ItemSort,
  limit: number,
  offset: number,
  itemJson: string,
  knownTotal?: number,
): Promise<{ total: number; items: string }> {
  const { text, params, prepare } = pageSql(filter, sort, limit, offset, itemJson, knownTotal === undefined);
  const [row] = await sql.query<{ total: number | null; items: string }>(text, params, { prepare });
  // An aggregate over subqueries: always exactly one row.
  return { total: knownTotal ?? row!.total ?? 0, items: row!.items };
}
