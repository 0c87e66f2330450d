/**
 * The items a list request matches, as SQL parts that the page (catalog/item.repository.ts) and the
 * facets (facets.ts) assemble in their own ways — one definition of each filter, so every facet
 * count is the total the list would answer (contract §9.2).
 */

import type { KeywordSearch } from './keyword.ts';
import { type KeywordSql, keywordSql, type Param } from './keyword-sql.ts';
import { type Visibility, visibilitySql } from './visibility.ts';

/** One spec filter: an item matches when one SKU has, for every name, one of its values. */
export interface SpecFilter {
  name: string;
  values: string[];
}

export interface ItemFilter {
  categoryId?: number;
  search?: KeywordSearch;
  /** Inclusive bounds, as canonical decimal text. */
  minPrice?: string;
  maxPrice?: string;
  /** Only items with stock > 0. */
  inStock?: true;
  specs?: SpecFilter[];
  /** Which items may match at all (visibility.ts); default: those the public sees now. */
  visibility?: Visibility;
}

/** Each filter as a condition on `i` (items) — the facets count with all but one of them at a time. */
export interface ItemQuery {
  params: unknown[];
  p: Param;
  /** Common table expressions the parts need (`tree AS (…)` for a category filter), for one `WITH RECURSIVE`. */
  ctes: string[];
  keyword?: KeywordSql;
  category?: string;
  price?: string;
  stock?: string;
  /** Per spec filter, its name and its condition on a SKU `s` (the facets drop one name at a time). */
  specs: Array<{ name: string; onSku: string }>;
  /** Which items may match (not a filter the facets drop: every count holds it); none: every item. */
  visibility?: string;
}

/** A SKU `s` has spec `name` with one of `values` (names and values compared case-insensitively, trimmed). */
function skuHas(filter: SpecFilter, p: Param): string {
  return `EXISTS (SELECT 1 FROM jsonb_each_text(s.specs) e WHERE lower(btrim(e.key)) = lower(btrim(${p(filter.name)}))
            AND lower(btrim(e.value)) IN (SELECT lower(btrim(v)) FROM unnest(${p(filter.values)}::text[]) v))`;
}

/** Items with a SKU meeting every given condition on `s`. */
export const someSku = (onSku: string[]) =>
  onSku.length ? `EXISTS (SELECT 1 FROM skus s WHERE s.item_id = i.id AND ${onSku.join(' AND ')})` : undefined;

export function compileItemQuery(filter: ItemFilter, params: unknown[] = []): ItemQuery {
  const p: Param = (value) => {
    params.push(value);
    return `$${params.length}`;
  };
  const query: ItemQuery = { params, p, ctes: [], specs: [], visibility: visibilitySql(filter.visibility, p) };
  if (filter.categoryId !== undefined) {
    query.ctes.push(`tree AS (
      SELECT id FROM categories WHERE id = ${p(filter.categoryId)}
      UNION SELECT c.id FROM categories c JOIN tree t ON c.parent_id = t.id)`);
    query.category = 'i.category_id IN (SELECT id FROM tree)';
  }
  if (filter.search) query.keyword = keywordSql(filter.search, p);
  const bounds: string[] = [];
  if (filter.minPrice !== undefined) bounds.push(`i.price >= ${p(filter.minPrice)}::numeric`);
  if (filter.maxPrice !== undefined) bounds.push(`i.price <= ${p(filter.maxPrice)}::numeric`);
  if (bounds.length) query.price = bounds.join(' AND ');
  if (filter.inStock) query.stock = 'i.stock > 0';
  query.specs = (filter.specs ?? []).map((f) => ({ name: f.name, onSku: skuHas(f, p) }));
  return query;
}

/** `WITH RECURSIVE …` of the query's and `more` common table expressions, or nothing. */
export const withClause = (query: ItemQuery, more: string[] = []) => {
  const ctes = [...query.ctes, ...more];
  return ctes.length ? `WITH RECURSIVE ${ctes.join(', ')}` : '';
};

/** Each matching item's spec summary `ss`, for the facets (an item not yet summarised has none). */
export const SUMMARIES = ' LEFT JOIN item_spec_summaries ss ON ss.item_id = i.id';

/**
 * `FROM … WHERE …` of the matching items: every filter, or (`keywordOnly`, for the facets, which hold
 * the other filters as flags) the keyword alone — and always the visibility. With a keyword, the documents `d` are joined and each
 * term's tier is the LATERAL `t`. `specSummaries` joins each item's spec summary `ss`. `also`: more
 * conditions on `i` (an export's `i.id > $n`, which walks the matches a batch at a time).
 */
export function matchingItems(
  query: ItemQuery,
  { keywordOnly = false, specSummaries = false, also = [] as string[] } = {},
): string {
  const conditions: string[] = [];
  let from = 'items i';
  if (query.keyword) {
    // OFFSET 0 keeps the tiers a subquery of their own: computed once per row, not inlined into each use.
    from = `item_search_documents d JOIN items i ON i.id = d.item_id CROSS JOIN LATERAL (${query.keyword.tiers} OFFSET 0) t`;
    conditions.push(query.keyword.candidates, query.keyword.matches);
  }
  if (specSummaries) from += SUMMARIES;
  if (query.visibility) conditions.push(query.visibility);
  if (!keywordOnly) {
    const specs = someSku(query.specs.map((f) => f.onSku));
    for (const condition of [query.category, query.price, query.stock, specs])
      if (condition) conditions.push(condition);
  }
  conditions.push(...also);
  return `FROM ${from}${conditions.length ? ` WHERE ${conditions.join(' AND ')}` : ''}`;
}
