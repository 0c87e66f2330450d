/** REST routes of the category tree: each row runs a GraphQL operation with snake_case aliases. */
import type { FieldNode } from 'graphql';
import type { Renderer, RestRoute } from '../rest/route.ts';
import { categorySelectionJson } from './catalog-json.ts';
import { findCategoriesJson } from './category.repository.ts';

/** The list written by PostgreSQL (catalog-json.ts), read as the `categories` query reads it (category.graphql.ts). */
function renderCategories(selection: FieldNode): Renderer {
  const categoryJson = categorySelectionJson(selection);
  return (ctx) => findCategoriesJson(ctx.catalogReads, categoryJson);
}

export const categoryRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/api/v1/categories',
    summary: 'List every category (ordered by sort_order, then id)',
    tag: 'Catalogue',
    document: /* GraphQL */ `
      query RestCategories {
        categories { id name parent_id: parentId sort_order: sortOrder }
      }`,
    result: 'categories',
    // Contract §4.3's body is the operation's whole `data`: `{ "categories": [...] }`.
    bodyIsData: true,
    publicRead: true,
    render: renderCategories,
  },
];
