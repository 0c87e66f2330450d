/** REST routes of contract §4.1, §4.2, §4.4: each row runs an item operation with snake_case aliases. */
import { notFound } from '../errors/app-error.ts';
import type { RestRequest, RestRoute } from '../rest/route.ts';
import { INT32_MAX } from '../validation/rules.ts';
import { IDEMPOTENCY_KEY_HEADER } from './idempotency.ts';

/** The Item shape of contract §4, as a selection with REST names. */
export const REST_ITEM_FIELDS = /* GraphQL */ `
  id name description category_id: categoryId category { id name } price stock
  skus { id sku_code: skuCode specs price stock }
  images { id url sort_order: sortOrder }
  created_at: createdAt updated_at: updatedAt`;

/** A path id; anything that cannot be an item id is simply not found (contract §4.2). */
function itemIdOf(req: RestRequest): { id: number } {
  const raw = req.params.id ?? '';
  const id = Number(raw);
  if (!/^[1-9]\d{0,9}$/.test(raw) || id > INT32_MAX) throw notFound('item');
  return { id };
}

export const itemRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/api/v1/items',
    summary:
      'List items (newest first, or by price or name); filter by category (with sub-categories), keyword, price range, stock',
    tag: 'Catalogue',
    document: /* GraphQL */ `
      query RestItems(
        $page: Int, $limit: Int, $categoryId: Int, $keyword: String,
        $sort: ItemSort, $minPrice: Money, $maxPrice: Money, $inStock: Boolean
      ) {
        items(
          page: $page, limit: $limit, categoryId: $categoryId, keyword: $keyword,
          sort: $sort, minPrice: $minPrice, maxPrice: $maxPrice, inStock: $inStock
        ) {
          items { ${REST_ITEM_FIELDS} }
          page limit total total_pages: totalPages
        }
      }`,
    input: { from: 'query' },
    result: 'items',
    publicRead: true,
    example: { query: { page: 1, limit: 5 } },
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
    publicRead: true,
    errors: ['NOT_FOUND'],
    example: { params: { id: 1 } },
  },
  {
    method: 'POST',
    path: '/admin/api/items',
    summary: 'Create an item with its SKUs and images (admin; optional Idempotency-Key header)',
    tag: 'Catalogue administration',
    document: /* GraphQL */ `
      mutation RestCreateItem($input: CreateItemInput!, $idempotencyKey: String) {
        createItem(input: $input, idempotencyKey: $idempotencyKey) { ${REST_ITEM_FIELDS} }
      }`,
    input: { from: 'body', variable: 'input' },
    variables: (req) => ({ idempotencyKey: req.header('idempotency-key') ?? null }),
    result: 'createItem',
    status: 201,
    headers: (item) => ({ Location: `/api/v1/items/${item.id}` }),
    errors: ['IDEMPOTENCY_CONFLICT'],
    // The example carries a key, so "Try it out" twice answers with the same item instead of a copy.
    requestHeaders: [{ ...IDEMPOTENCY_KEY_HEADER, example: 'docs-example-summit-boot' }],
    successHeaders: { Location: { description: 'The new item: `/api/v1/items/{id}`.', schema: { type: 'string' } } },
    example: {
      // Category 3 is "Boots" in the demo catalogue.
      body: {
        name: 'Summit hiking boot',
        category_id: 3,
        price: '129.00',
        stock: 40,
        skus: [{ sku_code: 'SUMMIT-42', specs: { size: '42' }, stock: 10 }],
        images: ['https://cdn.example.com/boot.jpg'],
      },
      description:
        'The created item. Sent again with the same Idempotency-Key (as this example is), it answers with the item ' +
        'the first request created instead of making another; change the key (or leave it out) for a new item.',
    },
  },
];
