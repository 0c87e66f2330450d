/** REST routes of contract §12.2: the admin's item list, item, change and delete, each a GraphQL operation. */
import type { RestRoute } from '../rest/route.ts';
import { specFiltersFromQuery } from '../search/spec-filter.ts';
import { FACETS_PARAMETER, itemIdOf, itemListDocument, SPEC_PARAMETER } from './item.rest.ts';
import { ITEM_STATUSES } from './item.schema.ts';
import { REST_ITEM_FIELDS } from './item-rest-fields.ts';
import { expectedVersionOf, IF_MATCH_HEADER, VERSION_TAG_HEADER, versionTag } from './item-version-tag.ts';

/** `status`: repeatable, REST's spelling of the list argument. */
const STATUS_PARAMETER = {
  name: 'status',
  description: `Repeatable (\`status=draft&status=archived\`): the states to show, of ${ITEM_STATUSES.join(', ')}; default all three.`,
  schema: { type: 'array', items: { type: 'string', enum: [...ITEM_STATUSES] } },
  style: 'form',
  explode: true,
  replaces: 'status',
} as const;

/** An item path whose id is an item's `id` (documentation). */
const ITEM_ID = { description: "An item's `id`.", schema: { type: 'integer', minimum: 1 } };

const ETAG = { ETag: VERSION_TAG_HEADER };

export const itemAdminRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/admin/api/items',
    summary:
      'List items in every state (draft, active, archived) with the public list’s filters, orders and facets (admin)',
    tag: 'Catalogue administration',
    document: itemListDocument('RestAdminItems', 'adminItems', { status: '[ItemStatus!]' }),
    input: { from: 'query' },
    variables: (req) => ({ status: req.queryAll('status'), specs: specFiltersFromQuery(req.queryAll('spec')) }),
    queryParameters: [STATUS_PARAMETER, SPEC_PARAMETER, FACETS_PARAMETER],
    result: 'adminItems',
    example: { query: { status: 'active', limit: 5 } },
  },
  {
    method: 'GET',
    path: '/admin/api/items/:id',
    summary: 'One item, whatever its state, with its version as ETag (admin)',
    tag: 'Catalogue administration',
    document: /* GraphQL */ `
      query RestAdminItem($id: Int!) {
        adminItem(id: $id) { ${REST_ITEM_FIELDS} }
      }`,
    variables: itemIdOf,
    pathParameter: ITEM_ID,
    result: 'adminItem',
    headers: versionTag,
    successHeaders: ETAG,
    errors: ['NOT_FOUND'],
    example: { params: { id: 1 } },
  },
  {
    method: 'PATCH',
    path: '/admin/api/items/:id',
    summary:
      'Change the given fields of an item (`skus`, `images`: whole lists); with If-Match, only that version (admin)',
    tag: 'Catalogue administration',
    document: /* GraphQL */ `
      mutation RestUpdateItem($id: Int!, $input: UpdateItemInput!, $expectedVersion: Int) {
        updateItem(id: $id, input: $input, expectedVersion: $expectedVersion) { ${REST_ITEM_FIELDS} }
      }`,
    input: { from: 'body', variable: 'input' },
    variables: (req) => ({ ...itemIdOf(req), expectedVersion: expectedVersionOf(req) ?? null }),
    pathParameter: ITEM_ID,
    result: 'updateItem',
    headers: versionTag,
    requestHeaders: [IF_MATCH_HEADER],
    successHeaders: ETAG,
    errors: ['NOT_FOUND', 'VERSION_CONFLICT'],
    // Item 1 of the demo catalogue; its stock as the demo has it, so the example can be sent again.
    example: { params: { id: 1 }, body: { stock: 40 }, description: 'The item as changed, at its next version.' },
  },
  {
    method: 'DELETE',
    path: '/admin/api/items/:id',
    summary: 'Delete an item with its SKUs and images; with If-Match, only that version (admin)',
    tag: 'Catalogue administration',
    document: /* GraphQL */ `
      mutation RestDeleteItem($id: Int!, $expectedVersion: Int) {
        deleteItem(id: $id, expectedVersion: $expectedVersion)
      }`,
    variables: (req) => ({ ...itemIdOf(req), expectedVersion: expectedVersionOf(req) ?? null }),
    pathParameter: {
      description: "An item's `id`, from GET /admin/api/items (the example's names none: put one there).",
      schema: { type: 'integer', minimum: 1 },
    },
    result: 'deleteItem',
    status: 204,
    requestHeaders: [IF_MATCH_HEADER],
    errors: ['NOT_FOUND', 'VERSION_CONFLICT'],
    example: {
      params: { id: 999999 },
      answers: 'NOT_FOUND',
      description: 'Deleted. The example id is a placeholder: put an id from GET /admin/api/items.',
    },
  },
];
