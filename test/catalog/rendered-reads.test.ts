/**
 * Rendered reads (src/catalog/catalog-json.ts, rest/run.ts): the list's, one item's and the
 * categories' answers are written by PostgreSQL in the shape of the route's GraphQL selection. They must be exactly what the
 * same document answers when GraphQL executes it — for awkward values too (the largest and smallest
 * money, text that JSON must escape, a SKU without code or specs, an item without SKUs or images, images
 * tied on their order) — and they must be PostgreSQL's text, passed through.
 */
import { type FieldNode, Kind, type OperationDefinitionNode, parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itemSelectionJson } from '../../src/catalog/catalog-json.ts';
import { categoryRoutes } from '../../src/catalog/category.rest.ts';
import { findItemPageJson } from '../../src/catalog/item.repository.ts';
import { itemRoutes } from '../../src/catalog/item.rest.ts';
import { compileKeyword } from '../../src/search/keyword.ts';
import { suggestionRoutes } from '../../src/search/suggestions.rest.ts';
import { makeCategory, makeItem } from '../helpers/catalog.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

let app: TestApp;
const ids: number[] = [];

const route = (path: string) => itemRoutes.find((r) => r.method === 'GET' && r.path === path)!;
const LIST = route('/api/v1/items');
const ITEM = route('/api/v1/items/:id');
const CATEGORIES = categoryRoutes.find((r) => r.path === '/api/v1/categories')!;

beforeAll(async () => {
  app = await startTestApp({ CATALOG_CACHE_MB: '0' });
  const parent = await makeCategory(app, { name: 'Rendered "quotes" \\ 路径' });
  // Its items sit in a sub-category: a rendered `parent_id` that is a number, beside the roots' null.
  const category = await makeCategory(app, { name: 'Rendered child', parentId: parent.id, sortOrder: -1 });
  const at = (n: number) => `2026-02-0${n}T01:02:03.004Z`;
  const made = [
    await makeItem(app, {
      categoryId: category.id,
      name: 'Edge "lamp"\t\\ 头灯 😀',
      description: 'line one\nline two, "quoted", \u0001 control',
      price: '99999999.99',
      stock: 2147483647,
      createdAt: at(1),
      skus: [
        { skuCode: 'Z-1', specs: { 颜色: '红 "深"', size: '42', 'a\\b': 'tab\there' }, price: '0.01', stock: 3 },
        { skuCode: null, specs: {}, price: '0.10', stock: 0 },
        { skuCode: 'Z-0', specs: { size: ' 43 ' }, price: '1234567.80', stock: 1 },
      ],
      images: [
        { url: 'https://cdn.example.com/b.jpg', sortOrder: 1 },
        { url: 'https://cdn.example.com/a.jpg', sortOrder: 0 },
        { url: 'https://cdn.example.com/c.jpg', sortOrder: 1 },
      ],
    }),
    await makeItem(app, { categoryId: category.id, name: 'Edge bare', price: '0.00', stock: 0, createdAt: at(2) }),
    await makeItem(app, { categoryId: category.id, name: 'Edge round', price: '20', stock: 5, createdAt: at(3) }),
  ];
  ids.push(...made.map((m) => m.id));
});
afterAll(() => app.close());

/** The route's own document, executed by GraphQL: the answer it gives without rendering. */
async function executed(document: string, variables: Record<string, unknown>, result: string) {
  const res = await app.graphql(document, variables);
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  return res.body.data[result];
}

describe('rendered reads', () => {
  it('when a page is read, then its items are PostgreSQL’s text, passed through, and the rest the page’s numbers', async () => {
    const op = parse(LIST.document).definitions[0] as OperationDefinitionNode;
    const page = op.selectionSet.selections.find((s): s is FieldNode => s.kind === Kind.FIELD)!;
    const itemsNode = page.selectionSet!.selections.find(
      (s): s is FieldNode => s.kind === Kind.FIELD && s.name.value === 'items',
    )!;
    const res = await app.request('/api/v1/items?keyword=edge');
    const { items } = await findItemPageJson(
      app.db.sql,
      { search: compileKeyword('edge') },
      'relevance',
      20,
      0,
      itemSelectionJson(itemsNode),
    );
    expect(res.text).toBe(`{"items":${items},"page":1,"limit":20,"total":3,"total_pages":1}`);
  });

  it('when pages are listed, searched and sorted, then each is the GraphQL execution of the route’s document', async () => {
    const queries: Array<Record<string, unknown>> = [
      { keyword: 'edge', limit: 2 },
      { keyword: 'edge', limit: 2, page: 2 },
      { keyword: 'edge', sort: 'price_desc' },
      { keyword: 'lamp 头灯' },
      { sort: 'name_asc', limit: 100, minPrice: '0.00', maxPrice: '99999999.99' },
      { keyword: 'no-such-thing-rendered' },
      { keyword: 'edge', page: 9 },
    ];
    for (const variables of queries) {
      const params = new URLSearchParams(
        Object.entries(variables).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), String(v)]),
      );
      const res = await app.request(`/api/v1/items?${params}`);
      expect(res.status, res.text).toBe(200);
      expect(res.body, JSON.stringify(variables)).toEqual(await executed(LIST.document, variables, 'items'));
    }
  });

  it('when one item is read, then its answer is the GraphQL execution of the route’s document; an unknown one is 404', async () => {
    for (const id of ids) {
      const res = await app.request(`/api/v1/items/${id}`);
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual(await executed(ITEM.document, { id }, 'item'));
      // Compact, as JSON.stringify writes it (json_build_object writes `"id" : 1`, json_agg `}, {`).
      expect(res.text).toMatch(/^\{"id":\d+,"name":/);
      expect(res.text).not.toMatch(/" : |\}, \{/);
    }
    const missing = await app.request('/api/v1/items/2147483647');
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('NOT_FOUND');
  });

  it('when the categories are listed, then the answer is the GraphQL execution of the route’s document', async () => {
    const res = await app.request('/api/v1/categories');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ categories: await executed(CATEGORIES.document, {}, 'categories') });
    // A root category's parent is JSON null, not left out (concat drops a NULL).
    expect(res.body.categories.some((c: { parent_id: unknown }) => c.parent_id === null)).toBe(true);
    expect(res.body.categories.map((c: { name: string }) => c.name)).toContain('Rendered "quotes" \\ 路径');
  });

  it('when suggestions are asked for, then the answer is the GraphQL execution of the route’s document', async () => {
    const [route] = suggestionRoutes;
    for (const variables of [{ q: 'edge' }, { q: ' Edge ', limit: 1 }, { q: 'rendered' }, { q: 'nothing-here' }]) {
      const params = new URLSearchParams(Object.entries(variables).map(([k, v]) => [k, String(v)]));
      const res = await app.request(`/api/v1/search/suggestions?${params}`);
      expect(res.status, res.text).toBe(200);
      expect(res.body, JSON.stringify(variables)).toEqual({
        suggestions: await executed(route!.document, variables, 'suggestions'),
      });
    }
    expect((await app.request('/api/v1/search/suggestions?q=edge')).body.suggestions.length).toBeGreaterThan(1);
  });

  it('when facets are asked for, then the operation runs (facets are not rendered) and the items are the same', async () => {
    const rendered = await app.request('/api/v1/items?keyword=edge');
    const withFacets = await app.request('/api/v1/items?keyword=edge&facets=true');
    expect(withFacets.status).toBe(200);
    // The items' category and its parent.
    expect(withFacets.body.facets.categories).toHaveLength(2);
    const { facets: _facets, ...page } = withFacets.body;
    expect(page).toEqual(rendered.body);
  });
});
