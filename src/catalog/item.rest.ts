/** REST routes of contract §4.1, §4.2, §4.4: each row runs an item operation with snake_case aliases. */
import { notFound } from '../errors/app-error.ts';
import type { RestRequest, RestRoute } from '../http/rest-route.ts';
import { INT32_MAX } from '../validation/rules.ts';
import { createItemInput, listItemsInput } from './item.schema.ts';

/** The Item shape of contract §4, as a selection with REST names. */
export const REST_ITEM_FIELDS = /* GraphQL */ `
  id name category_id: categoryId category { id name } price stock
  skus { id sku_code: skuCode specs price stock }
  images { id url sort_order: sortOrder }
  created_at: createdAt updated_at: updatedAt`;

/** A path id; anything that cannot be an item id is simply not found (contract §4.2). */
function itemIdOf(req: RestRequest): { id: number } {
  const id = Number(req.params.id);
  if (!/^[1-9]\d{0,9}$/.test(req.params.id) || id > INT32_MAX) throw notFound('item');
  return { id };
}

export const itemRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/api/v1/items',
    summary: 'List items, newest first (filter by category, including sub-categories, and by keyword)',
    tag: 'Catalogue',
    document: /* GraphQL */ `
      query RestItems($page: Int, $limit: Int, $categoryId: Int, $keyword: String) {
        items(page: $page, limit: $limit, categoryId: $categoryId, keyword: $keyword) {
          items { ${REST_ITEM_FIELDS} }
          page limit total total_pages: totalPages
        }
      }`,
    input: { from: 'query', schema: listItemsInput },
    result: 'items',
  },
  {
    method: 'GET',
    path: '/api/v1/items/:id',
    summary: 'One item',
    tag: 'Catalogue',
    document: /* GraphQL */ `
      query RestItem($id: Int!) {
        item(id: $id) { ${REST_ITEM_FIELDS} }
      }`,
    variables: itemIdOf,
    result: 'item',
    errors: ['NOT_FOUND'],
  },
  {
    method: 'POST',
    path: '/admin/api/items',
    summary: 'Create an item with its SKUs and images (admin; optional Idempotency-Key header)',
    tag: 'Catalogue administration',
    realm: 'admin',
    document: /* GraphQL */ `
      mutation RestCreateItem($input: CreateItemInput!, $idempotencyKey: String) {
        createItem(input: $input, idempotencyKey: $idempotencyKey) { ${REST_ITEM_FIELDS} }
      }`,
    input: { from: 'body', schema: createItemInput, variable: 'input' },
    variables: (req) => ({ idempotencyKey: req.header('idempotency-key') ?? null }),
    result: 'createItem',
    status: 201,
    headers: (item: { id: number }) => ({ Location: `/api/v1/items/${item.id}` }),
    errors: ['IDEMPOTENCY_CONFLICT'],
  },
];
