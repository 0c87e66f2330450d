import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, gqlCode } from '../helpers/accounts.ts';
import {
  errorFields,
  graphqlItemOfRest,
  ITEM_GQL_FIELDS,
  makeBulkItems,
  makeCategory,
  makeItem,
  type StoredItem,
} from '../helpers/catalog.ts';
import { expectDocumentedResponse } from '../helpers/openapi.ts';
import { type ApiResponse, startTestApp, type TestApp } from '../helpers/test-app.ts';

let app: TestApp;
type Category = { id: number; name: string; parentId: number | null; sortOrder: number };
const categories = new Map<number, Category>();
let root: Category;
let sub: Category;
let other: Category;
let lamp: StoredItem;

const ITEMS_GQL = /* GraphQL */ `
  query ($page: Int, $limit: Int, $categoryId: Int, $keyword: String) {
    items(page: $page, limit: $limit, categoryId: $categoryId, keyword: $keyword) {
      items { ${ITEM_GQL_FIELDS} }
      page limit total totalPages
    }
  }`;
const ITEM_GQL = /* GraphQL */ `query ($id: Int!) { item(id: $id) { ${ITEM_GQL_FIELDS} } }`;

beforeAll(async () => {
  app = await startTestApp();
  const remember = <T extends Category>(c: T) => {
    categories.set(c.id, c);
    return c;
  };
  root = remember(await makeCategory(app, { name: 'Outdoor', sortOrder: 3 }));
  sub = remember(await makeCategory(app, { name: '照明', parentId: root.id, sortOrder: 7 }));
  other = remember(await makeCategory(app, { name: 'Home' }));
  lamp = await makeItem(app, {
    categoryId: sub.id,
    name: '超亮头灯 Pro',
    price: '99999999.99',
    createdAt: '2025-01-01T00:00:00.000Z',
    skus: [
      { skuCode: 'L-2', specs: { color: 'red', 尺码: 'L' }, price: '0.10', stock: 4 },
      { skuCode: null, price: '19.90', stock: 0 },
    ],
    images: [
      { url: 'https://cdn.example.com/2.jpg', sortOrder: 1 },
      { url: 'https://cdn.example.com/1.jpg', sortOrder: 0 },
      { url: 'https://cdn.example.com/0.jpg', sortOrder: 0 },
    ],
  });
  await makeItem(app, {
    categoryId: root.id,
    name: 'Trail boot',
    price: '19.90',
    createdAt: '2025-01-02T00:00:00.000Z',
    skus: [{ skuCode: 'B' }],
  });
  await makeItem(app, {
    categoryId: root.id,
    name: '100% cotton trail tee',
    price: '0.10',
    createdAt: '2025-01-02T00:00:00.000Z',
  });
  await makeItem(app, {
    categoryId: other.id,
    name: 'Trail blanket',
    price: '7',
    images: ['https://cdn.example.com/blanket.jpg'],
  });
  await makeBulkItems(app, other.id, 25, 'Filler');
});
afterAll(() => app.close());

/** Both protocols' answers for the same list query (REST snake_case parameters, GraphQL camelCase). */
async function bothLists(params: { page?: number; limit?: number; categoryId?: number; keyword?: string }) {
  const query = new URLSearchParams();
  if (params.page !== undefined) query.set('page', String(params.page));
  if (params.limit !== undefined) query.set('limit', String(params.limit));
  if (params.categoryId !== undefined) query.set('category_id', String(params.categoryId));
  if (params.keyword !== undefined) query.set('keyword', params.keyword);
  const rest = await app.request(`/api/v1/items?${query}`);
  const gql = await app.graphql(ITEMS_GQL, params);
  return { rest, gql };
}

function expectSameList(rest: ApiResponse, gql: ApiResponse) {
  expect(rest.status, rest.text).toBe(200);
  expect(gql.status, gql.text).toBe(200);
  expect(gql.body.errors, gql.text).toBeUndefined();
  const page = gql.body.data.items;
  expect(page).toEqual({
    items: rest.body.items.map((i: any) => graphqlItemOfRest(i, categories.get(i.category_id)!)),
    page: rest.body.page,
    limit: rest.body.limit,
    total: rest.body.total,
    totalPages: rest.body.total_pages,
  });
}

describe('REST and GraphQL parity — items', () => {
  it('when the list is read without filters, then both protocols return the same items field by field', async () => {
    const { rest, gql } = await bothLists({});
    expect(rest.body).toMatchObject({ page: 1, limit: 20, total: 29, total_pages: 2 });
    expectSameList(rest, gql);
    await expectDocumentedResponse(app, 'GET', '/api/v1/items', rest);
  });

  it('when the list is filtered and paged, then both protocols agree for every combination', async () => {
    const cases = [
      { page: 2 },
      { limit: 7, page: 3 },
      { limit: 100 },
      { categoryId: root.id },
      { categoryId: sub.id },
      { categoryId: other.id, limit: 5, page: 2 },
      { keyword: 'TRAIL' },
      { keyword: '%' },
      { keyword: '头灯' },
      { keyword: '   ' },
      { categoryId: root.id, keyword: 'trail' },
      { categoryId: 2147483647 },
      { page: 99, limit: 10 },
    ];
    for (const params of cases) {
      const { rest, gql } = await bothLists(params);
      expect(rest.status, JSON.stringify(params)).toBe(200);
      expectSameList(rest, gql);
    }
    // Spot-check that the filters did filter, so the comparisons above were not of empty lists.
    const { rest } = await bothLists({ categoryId: root.id, keyword: 'trail' });
    // Best match first: the name that starts with the keyword before the one that has it as a later word.
    expect(rest.body.items.map((i: any) => i.name)).toEqual(['Trail boot', '100% cotton trail tee']);
  });

  it('when one item is read, then REST and GraphQL agree field by field, money and timestamps included', async () => {
    const rest = await app.request(`/api/v1/items/${lamp.id}`);
    expect(rest.status, rest.text).toBe(200);
    const gql = await app.graphql(ITEM_GQL, { id: lamp.id });
    expect(gql.body.errors, gql.text).toBeUndefined();
    expect(gql.body.data.item).toEqual(graphqlItemOfRest(rest.body, sub));
    expect(gql.body.data.item).toMatchObject({
      price: 99999999.99,
      category: { id: sub.id, name: '照明', parentId: root.id, sortOrder: 7 },
      skus: [
        { skuCode: 'L-2', specs: { color: 'red', 尺码: 'L' }, price: 0.1, stock: 4 },
        { skuCode: null, specs: {}, price: 19.9 },
      ],
      images: [
        { url: 'https://cdn.example.com/1.jpg' },
        { url: 'https://cdn.example.com/0.jpg' },
        { url: 'https://cdn.example.com/2.jpg' },
      ],
      createdAt: '2025-01-01T00:00:00.000Z',
    });
    await expectDocumentedResponse(app, 'GET', '/api/v1/items/{id}', rest);
  });

  it('when the id is unknown, then GraphQL item is null without errors and REST is 404', async () => {
    const gql = await app.graphql(ITEM_GQL, { id: 2147483647 });
    expect(gql.status).toBe(200);
    expect(gql.body).toEqual({ data: { item: null } });
    const rest = await app.request('/api/v1/items/2147483647');
    expectProblem(rest, 404, 'NOT_FOUND');
    await expectDocumentedResponse(app, 'GET', '/api/v1/items/{id}', rest);
  });
});

describe('REST and GraphQL parity — validation', () => {
  it('when limit is 101, then GraphQL answers VALIDATION_FAILED naming limit, like REST', async () => {
    const gql = await app.graphql(ITEMS_GQL, { limit: 101 });
    expect(gqlCode(gql)).toBe('VALIDATION_FAILED');
    expect(gql.body.data).toBeNull();
    expect(errorFields(gql.body.errors[0].extensions.errors)).toEqual(['limit']);

    const rest = await app.request('/api/v1/items?limit=101');
    expectProblem(rest, 400, 'VALIDATION_FAILED');
    expect(rest.body.errors).toEqual(gql.body.errors[0].extensions.errors);
    await expectDocumentedResponse(app, 'GET', '/api/v1/items', rest);
  });

  it('when every argument is bad, then both protocols list every field with the same messages', async () => {
    const gql = await app.graphql(ITEMS_GQL, { page: 0, limit: 0, categoryId: -1, keyword: 'k'.repeat(101) });
    expect(gqlCode(gql)).toBe('VALIDATION_FAILED');
    const gqlErrors = gql.body.errors[0].extensions.errors as Array<{ field: string; message: string }>;
    expect(errorFields(gqlErrors).sort()).toEqual(['categoryId', 'keyword', 'limit', 'page']);

    const rest = await app.request(`/api/v1/items?page=0&limit=0&category_id=-1&keyword=${'k'.repeat(101)}`);
    expectProblem(rest, 400, 'VALIDATION_FAILED');
    const restErrors = rest.body.errors as Array<{ field: string; message: string }>;
    expect(errorFields(restErrors).sort()).toEqual(['category_id', 'keyword', 'limit', 'page']);
    const byField = (errors: Array<{ field: string; message: string }>) =>
      Object.fromEntries(errors.map((e) => [e.field.replace('category_id', 'categoryId'), e.message]));
    expect(byField(restErrors)).toEqual(byField(gqlErrors));
  });

  it('when the GraphQL arguments are null or the keyword is blank, then the defaults apply', async () => {
    const gql = await app.graphql(ITEMS_GQL, { page: null, limit: null, categoryId: null, keyword: '  ' });
    expect(gql.body.errors, gql.text).toBeUndefined();
    expect(gql.body.data.items).toMatchObject({ page: 1, limit: 20, total: 29, totalPages: 2 });
  });
});
