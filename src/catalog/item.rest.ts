/** REST routes of contract §4.1, §4.2, §4.4: each row runs an item operation with snake_case aliases. */

import { type FieldNode, Kind } from 'graphql';
import { pathIdOf } from '../rest/path-id.ts';
import type { Renderer, RestRequest, RestRoute } from '../rest/route.ts';
import { specFiltersFromQuery } from '../search/spec-filter.ts';
import { pageOf } from '../validation/paging.ts';
import { itemSelectionJson } from './catalog-json.ts';
import { IDEMPOTENCY_KEY_HEADER } from './idempotency.ts';
import type { ListItemsInput } from './item.schema.ts';
import { readItemJson, readItemPage } from './item.service.ts';
import { REST_ITEM_FIELDS } from './item-rest-fields.ts';
import { VERSION_TAG_HEADER, versionTag } from './item-version-tag.ts';

/** The facets of contract §9.2 with REST names. */
const REST_FACET_FIELDS = /* GraphQL */ `
  categories { id name parent_id: parentId count }
  price { min max buckets { from to count } }
  specs { name values { value count } }
  in_stock: inStock`;

/** `spec`: REST's spelling of `specs`, documented by hand (it is no variable of the operation). */
export const SPEC_PARAMETER = {
  name: 'spec',
  description:
    'Repeatable `name:value` (`spec=color:red&spec=color:blue&spec=size:42`): an item matches when one of its SKUs ' +
    'has, for every named spec, one of the listed values (values of one name are OR, names are AND; compared ' +
    'case-insensitively after trimming). At most 10 names and 20 values each, each 1..64 characters.',
  schema: { type: 'array', items: { type: 'string', pattern: '^[^:]+:.+$' } },
  style: 'form',
  explode: true,
  replaces: 'specs',
} as const;

/** `facets`: a variable of the operation (it selects `facets`), not an argument of `items`. */
export const FACETS_PARAMETER = {
  name: 'facets',
  description:
    '`true` adds `facets` to the page: counts per category, price bucket, spec value and in stock, each ignoring ' +
    'its own filter (contract §9.2).',
  schema: { type: 'boolean', default: false },
} as const;

/**
 * The list's answer written by PostgreSQL (catalog-json.ts): the page's fields in the document's order
 * and names — `items` as PostgreSQL writes them, the numbers as pageOf makes them. A field under
 * `@include(if: $x)` (the facets) is left out while `$x` is false; while it is true the operation runs.
 */
function renderPage(selection: FieldNode): Renderer {
  const fields = (selection.selectionSet?.selections ?? []).map((s) => {
    if (s.kind !== Kind.FIELD) throw new Error('only plain fields can be rendered');
    const include = s.directives?.find((d) => d.name.value === 'include')?.arguments?.[0]?.value;
    if (s.directives?.length && include?.kind !== Kind.VARIABLE) throw new Error('only @include(if: $x) is rendered');
    return {
      key: s.alias?.value ?? s.name.value,
      node: s,
      includeIf: include?.kind === Kind.VARIABLE ? include.name.value : undefined,
    };
  });
  const itemsNode = fields.find((f) => f.node.name.value === 'items')?.node;
  if (!itemsNode) throw new Error('a rendered page selects its items');
  const itemJson = itemSelectionJson(itemsNode);
  const numbered = Object.keys(pageOf([], { page: 1, limit: 1 }, 0));
  for (const f of fields)
    if (f.includeIf === undefined && !numbered.includes(f.node.name.value))
      throw new Error(`\`${f.node.name.value}\` cannot be rendered`);
  return async (ctx, args, variables) => {
    const shown = fields.filter((f) => f.includeIf === undefined || variables[f.includeIf] === true);
    if (shown.some((f) => f.includeIf !== undefined)) return undefined;
    const read = await readItemPage(ctx, args as ListItemsInput, itemJson);
    const numbers = pageOf([], read, read.total) as unknown as Record<string, unknown>;
    const parts = shown.map(({ key, node }) => {
      const name = node.name.value;
      return `${JSON.stringify(key)}:${name === 'items' ? read.items : JSON.stringify(numbers[name])}`;
    });
    return `{${parts.join(',')}}`;
  };
}

/** One item's answer written by PostgreSQL (catalog-json.ts); none: null (404 NOT_FOUND). */
function renderItem(selection: FieldNode): Renderer {
  const itemJson = itemSelectionJson(selection);
  return (ctx, args) => readItemJson(ctx, (args as { id: number }).id, itemJson);
}

/** A path id; anything that cannot be an item id is simply not found (contract §4.2). */
export const itemIdOf = (req: RestRequest): { id: number } => ({ id: pathIdOf(req.params.id, 'item') });

/**
 * A list route's operation: `field` (`items`, `adminItems`) with every argument of the list (§4.1,
 * §8.2, §9) and `extra` ones (`status`), the page in REST's names, its facets when `facets=true`.
 */
export function itemListDocument(operation: string, field: string, extra: Record<string, string> = {}): string {
  const declared = Object.entries(extra)
    .map(([name, type]) => `$${name}: ${type}, `)
    .join('');
  const passed = Object.keys(extra)
    .map((name) => `${name}: $${name}, `)
    .join('');
  return /* GraphQL */ `
      query ${operation}(
        ${declared}$page: Int, $limit: Int, $categoryId: Int, $keyword: String, $sort: ItemSort,
        $minPrice: Money, $maxPrice: Money, $inStock: Boolean, $specs: [SpecFilter!], $facets: Boolean = false
      ) {
        ${field}(
          ${passed}page: $page, limit: $limit, categoryId: $categoryId, keyword: $keyword, sort: $sort,
          minPrice: $minPrice, maxPrice: $maxPrice, inStock: $inStock, specs: $specs
        ) {
          items { ${REST_ITEM_FIELDS} }
          page limit total total_pages: totalPages
          facets @include(if: $facets) { ${REST_FACET_FIELDS} }
        }
      }`;
}

export const itemRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/api/v1/items',
    summary:
      'List or search items: keyword (Chinese, pinyin, synonyms, forgiving typos and homophones; best match first), ' +
      'category (with sub-categories), ' +
      'price range, stock, SKU specs; facets on request',
    tag: 'Catalogue',
    document: itemListDocument('RestItems', 'items'),
    input: { from: 'query' },
    // `spec=color:red&spec=size:42` (repeatable) is GraphQL's `specs: [{name, values}]`.
    variables: (req) => ({ specs: specFiltersFromQuery(req.queryAll('spec')) }),
    queryParameters: [SPEC_PARAMETER, FACETS_PARAMETER],
    result: 'items',
    publicRead: true,
    render: renderPage,
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
    render: renderItem,
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
    headers: (item) => ({ Location: `/api/v1/items/${item.id}`, ...versionTag(item) }),
    errors: ['IDEMPOTENCY_CONFLICT'],
    // The example carries a key, so "Try it out" twice answers with the same item instead of a copy.
    requestHeaders: [{ ...IDEMPOTENCY_KEY_HEADER, example: 'docs-example-summit-boot' }],
    successHeaders: {
      Location: { description: 'The new item: `/api/v1/items/{id}`.', schema: { type: 'string' } },
      ETag: VERSION_TAG_HEADER,
    },
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
