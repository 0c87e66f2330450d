/**
 * Contract §8.2: the list's `sort` (newest, price_asc, price_desc, name_asc; ties by id desc),
 * `min_price` / `max_price` (inclusive money) and `in_stock`, on REST and GraphQL alike, with totals
 * that count what the filters match — also when they come from the catalogue cache.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, gqlCode, loginAsAdmin } from '../helpers/accounts.ts';
import { errorFields, makeCategory, makeItem } from '../helpers/catalog.ts';
import { UPDATE_ITEM } from '../helpers/catalog-admin.ts';
import { type ApiResponse, startTestApp, type TestApp } from '../helpers/test-app.ts';

let app: TestApp;
const id: Record<string, number> = {};
let parent: number;
let child: number;

const day = (d: number) => new Date(Date.UTC(2024, 4, d, 12)).toISOString();

// Ties on purpose: two prices of 10.00, two names "alpha", two items created at the same instant.
beforeAll(async () => {
  app = await startTestApp();
  parent = (await makeCategory(app, { name: 'Parent' })).id;
  child = (await makeCategory(app, { name: 'Child', parentId: parent })).id;
  const rows: Array<[key: string, name: string, price: string, stock: number, created: number, category: number]> = [
    ['d', 'delta', '10.00', 5, 1, parent],
    ['a2', 'alpha', '25.50', 0, 2, child],
    ['c', 'charlie', '10.00', 3, 3, parent],
    ['b', 'bravo', '99.99', 1, 4, child],
    ['e', 'echo', '0.00', 0, 5, parent],
    ['a6', 'alpha', '50.00', 7, 5, parent],
  ];
  for (const [key, name, price, stock, created, categoryId] of rows) {
    id[key] = (await makeItem(app, { name, price, stock, categoryId, createdAt: day(created) })).id;
  }
});
afterAll(() => app.close());

const list = (params: Record<string, string | number | boolean> = {}) => {
  const query = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString();
  return app.request(`/api/v1/items${query ? `?${query}` : ''}`);
};
const keysOf = (res: ApiResponse) =>
  res.body.items.map((i: { id: number }) => Object.keys(id).find((k) => id[k] === i.id));

const GQL_ITEMS = /* GraphQL */ `
  query ($page: Int, $limit: Int, $categoryId: Int, $keyword: String, $sort: ItemSort, $minPrice: Money,
         $maxPrice: Money, $inStock: Boolean) {
    items(page: $page, limit: $limit, categoryId: $categoryId, keyword: $keyword, sort: $sort, minPrice: $minPrice,
          maxPrice: $maxPrice, inStock: $inStock) {
      items { id name description price stock createdAt } page limit total totalPages
    }
  }`;

describe('sort', () => {
  const cases: Array<[sort: string | undefined, expected: string[]]> = [
    [undefined, ['a6', 'e', 'b', 'c', 'a2', 'd']],
    ['newest', ['a6', 'e', 'b', 'c', 'a2', 'd']],
    ['price_asc', ['e', 'c', 'd', 'a2', 'a6', 'b']],
    ['price_desc', ['b', 'a6', 'a2', 'c', 'd', 'e']],
    ['name_asc', ['a6', 'a2', 'b', 'c', 'd', 'e']],
  ];
  for (const [sort, expected] of cases) {
    it(`when sort is ${sort ?? 'omitted'}, then items come in that order with ties by id desc, on REST and GraphQL`, async () => {
      const res = await list(sort ? { sort } : {});
      expect(res.status, res.text).toBe(200);
      expect(keysOf(res)).toEqual(expected);
      expect(res.body).toMatchObject({ page: 1, limit: 20, total: 6, total_pages: 1 });
      const gql = await app.graphql(GQL_ITEMS, { sort });
      expect(gql.body.errors).toBeUndefined();
      expect(gql.body.data.items.items.map((i: { id: number }) => i.id)).toEqual(
        res.body.items.map((i: { id: number }) => i.id),
      );
      expect(gql.body.data.items.items).toEqual(
        res.body.items.map((i: any) => ({
          id: i.id,
          name: i.name,
          description: i.description,
          price: i.price,
          stock: i.stock,
          createdAt: i.created_at,
        })),
      );
    });
  }

  it('when a sorted list is paged, then the pages follow the order without gaps or repeats', async () => {
    const pages = await Promise.all([1, 2, 3, 4].map((page) => list({ sort: 'price_asc', limit: 2, page })));
    expect(pages.map(keysOf)).toEqual([['e', 'c'], ['d', 'a2'], ['a6', 'b'], []]);
    expect(pages[3]!.body).toMatchObject({ total: 6, total_pages: 3 });
  });
});

describe('price range and stock', () => {
  it('when min_price and max_price are given, then both bounds are inclusive and the total counts the matches', async () => {
    const res = await list({ min_price: 10, max_price: '50.00', sort: 'price_asc' });
    expect(res.status, res.text).toBe(200);
    expect(keysOf(res)).toEqual(['c', 'd', 'a2', 'a6']);
    expect(res.body).toMatchObject({ total: 4, total_pages: 1 });
  });

  it('when only one bound is given, then only it applies; min = max selects exactly that price', async () => {
    expect(keysOf(await list({ min_price: '25.5' }))).toEqual(['a6', 'b', 'a2']);
    expect(keysOf(await list({ max_price: 0 }))).toEqual(['e']);
    const exact = await list({ min_price: '10', max_price: '10.00' });
    expect(keysOf(exact)).toEqual(['c', 'd']);
    expect(exact.body.total).toBe(2);
  });

  it('when in_stock=true, then only items with stock > 0; in_stock=false is no filter', async () => {
    const only = await list({ in_stock: true });
    expect(keysOf(only)).toEqual(['a6', 'b', 'c', 'd']);
    expect(only.body.total).toBe(4);
    const all = await list({ in_stock: false });
    expect(all.body.total).toBe(6);
  });

  it('when every filter and a sort are combined, then they all apply together', async () => {
    const res = await list({ category_id: parent, in_stock: true, min_price: 5, max_price: 99.99, sort: 'name_asc' });
    expect(keysOf(res)).toEqual(['a6', 'b', 'c', 'd']);
    const sub = await list({ category_id: child, sort: 'price_desc' });
    expect(keysOf(sub)).toEqual(['b', 'a2']);
    const kw = await list({ keyword: 'ALPHA', sort: 'price_desc', in_stock: true });
    expect(keysOf(kw)).toEqual(['a6']);
    expect(kw.body.total).toBe(1);
  });

  it('when nothing is in the range, then an empty page with total 0', async () => {
    const res = await list({ min_price: 100, max_price: 200 });
    expect(res.body).toMatchObject({ items: [], total: 0, total_pages: 0 });
  });

  it('when GraphQL asks with the same filters, then it answers the same page as REST', async () => {
    const params = { categoryId: parent, inStock: true, minPrice: '5', maxPrice: 60, sort: 'price_desc', limit: 2 };
    const gql = await app.graphql(GQL_ITEMS, params);
    expect(gql.body.errors).toBeUndefined();
    const rest = await list({
      category_id: parent,
      in_stock: true,
      min_price: 5,
      max_price: 60,
      sort: 'price_desc',
      limit: 2,
    });
    expect(gql.body.data.items.items.map((i: { id: number }) => i.id)).toEqual(rest.body.items.map((i: any) => i.id));
    expect(gql.body.data.items).toMatchObject({ page: 1, limit: 2, total: rest.body.total, totalPages: 2 });
    expect(rest.body.total).toBe(3);
  });
});

describe('totals and the catalogue cache', () => {
  it('when filters differ only in price or stock, then each gets its own total and page (cached or not)', async () => {
    for (let round = 0; round < 2; round++) {
      expect((await list()).body.total).toBe(6);
      expect((await list({ min_price: 10 })).body.total).toBe(5);
      expect((await list({ max_price: 10 })).body.total).toBe(3);
      expect((await list({ in_stock: true })).body.total).toBe(4);
      expect(keysOf(await list({ sort: 'name_asc', limit: 1 }))).toEqual(['a6']);
      expect(keysOf(await list({ sort: 'price_desc', limit: 1 }))).toEqual(['b']);
      const gql = await app.graphql(GQL_ITEMS, { minPrice: 10, inStock: true });
      expect(gql.body.data.items.total).toBe(4);
    }
  });

  it('when an item price changes, then the price filters and orders see it at once', async () => {
    const token = await loginAsAdmin(app);
    const before = await list({ min_price: 60 });
    expect(keysOf(before)).toEqual(['b']);
    const res = await app.graphql(UPDATE_ITEM, { id: id.e, input: { price: '75.00' } }, { token });
    expect(res.body.errors).toBeUndefined();
    try {
      const after = await list({ min_price: 60 });
      expect(keysOf(after)).toEqual(['e', 'b']);
      expect(after.body.total).toBe(2);
      expect(keysOf(await list({ sort: 'price_asc', limit: 1 }))).toEqual(['c']);
    } finally {
      await app.graphql(UPDATE_ITEM, { id: id.e, input: { price: '0.00' } }, { token });
    }
  });
});

describe('validation', () => {
  const bad: Array<[query: string, fields: string[]]> = [
    ['sort=cheapest', ['sort']],
    ['sort=', ['sort']],
    ['sort=PRICE_ASC', ['sort']],
    ['sort=newest&sort=price_asc', ['sort']],
    ['min_price=abc', ['min_price']],
    ['min_price=', ['min_price']],
    ['min_price=-1', ['min_price']],
    ['max_price=1.999', ['max_price']],
    ['max_price=100000000', ['max_price']],
    ['min_price=1e3', ['min_price']],
    ['min_price=20&max_price=10', ['min_price']],
    ['min_price=10.01&max_price=10', ['min_price']],
    ['in_stock=yes', ['in_stock']],
    ['in_stock=1', ['in_stock']],
    ['in_stock=', ['in_stock']],
    ['sort=up&min_price=x&in_stock=maybe', ['sort', 'min_price', 'in_stock']],
  ];
  for (const [query, fields] of bad) {
    it(`when the query is ?${query}, then 400 VALIDATION_FAILED naming ${fields.join(', ')}`, async () => {
      const res = await app.request(`/api/v1/items?${query}`);
      expectProblem(res, 400, 'VALIDATION_FAILED');
      expect(errorFields(res.body.errors).sort()).toEqual([...fields].sort());
    });
  }

  it('when GraphQL gets an unknown sort, a bad amount or min > max, then VALIDATION_FAILED naming the argument', async () => {
    expect(gqlCode(await app.graphql('{ items(sort: cheapest) { total } }'))).toBe('VALIDATION_FAILED');
    expect(gqlCode(await app.graphql(GQL_ITEMS, { sort: 'PRICE_ASC' }))).toBe('VALIDATION_FAILED');
    const amount = await app.graphql(GQL_ITEMS, { minPrice: '1.999' });
    expect(gqlCode(amount)).toBe('VALIDATION_FAILED');
    expect(errorFields(amount.body.errors[0].extensions.errors)).toEqual(['minPrice']);
    const range = await app.graphql(GQL_ITEMS, { minPrice: 20, maxPrice: '19.99' });
    expect(gqlCode(range)).toBe('VALIDATION_FAILED');
    expect(errorFields(range.body.errors[0].extensions.errors)).toEqual(['minPrice']);
    const literal = await app.graphql(
      '{ items(minPrice: 5, maxPrice: "5.00", inStock: false, sort: price_desc) { total } }',
    );
    expect(literal.body.errors).toBeUndefined();
    expect(literal.body.data.items.total).toBe(0);
  });
});
