/**
 * Contract §9.1–9.3 through the real HTTP server: what a keyword matches (Chinese words, category
 * paths, SKU codes and spec values, descriptions, pinyin, synonyms), the relevance order tier by tier,
 * spec filters, facets whose every count is the total the list would answer, suggestions, and writes
 * that search sees at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, gqlCode, loginAsAdmin } from '../helpers/accounts.ts';
import { makeCategory, makeItem } from '../helpers/catalog.ts';
import { expectCountsAreTotals as expectCountsAreTotalsOf, type ListQuery } from '../helpers/facet-counts.ts';
import { expectDocumentedResponse } from '../helpers/openapi.ts';
import { sample } from '../helpers/prometheus.ts';
import { type ApiResponse, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { TEST_DB } from '../helpers/test-database.ts';

let app: TestApp;
let admin: string;
const ids = new Map<string, number>();
const cats = new Map<string, number>();

/** Items created one second apart in this order, so "newest first" ties are predictable. */
let clock = Date.parse('2026-01-01T00:00:00.000Z');
const at = () => new Date((clock += 1000)).toISOString();

async function item(name: string, category: string, extra: Partial<Parameters<typeof makeItem>[1]> = {}) {
  const made = await makeItem(app, { categoryId: cats.get(category)!, name, createdAt: at(), ...extra });
  ids.set(name, made.id);
  return made;
}

beforeAll(async () => {
  app = await startTestApp();
  admin = await loginAsAdmin(app);
  const category = async (name: string, parent?: string) =>
    cats.set(name, (await makeCategory(app, { name, parentId: parent ? cats.get(parent)! : null })).id);
  await category('鞋靴');
  await category('跑鞋', '鞋靴');
  await category('服装');
  await category('上衣', '服装');
  await category('Outdoor');
  await category('Trail gear', 'Outdoor');
  await category('Glow gear');
  await category('Lamps');

  await item('跑鞋 男士款', '跑鞋', {
    price: '299.00',
    skus: [{ skuCode: 'PX-M-42', specs: { 颜色: '红色', size: '42' } }],
  });
  await item('轻量跑鞋 Air', '跑鞋', {
    price: '459.00',
    stock: 0,
    skus: [
      { skuCode: 'AIR-R42', specs: { color: 'Red', size: '42' } },
      { skuCode: 'AIR-B43', specs: { Color: ' blue ', size: '43' } },
    ],
  });
  await item('纯棉T恤', '上衣', { price: '59.90', skus: [{ skuCode: 'TEE-W', specs: { color: 'white', size: 'M' } }] });
  await item('Trail boot', 'Trail gear', { price: '129.00', skus: [{ skuCode: 'TB-42', specs: { size: '42' } }] });
  await item('Camp lantern', 'Outdoor', { price: '9.90', description: 'Bright enough for a trail at night.' });
  await item('Paoxie cleaner', 'Outdoor', { price: '12.00' });

  // One item per relevance tier for the keyword `glow lamp` (created in reverse of the expected order).
  await item('Reading lamp', 'Lamps', { description: 'A soft glow for the evening.' });
  await item('Desk lamp', 'Lamps', { skus: [{ skuCode: 'DL-1', specs: { finish: 'Glow' } }] });
  await item('Lamp that glows', 'Glow gear');
  await item('Lamp, brass, with a warm glow', 'Lamps');
  await item('Lamp with glow', 'Lamps');
  await item('Super glow lamp', 'Lamps');
  await item('Glow lamp deluxe', 'Lamps');
  await item('Glow Lamp', 'Lamps');
});
afterAll(() => app.close());

const list = (query: Record<string, string | number | boolean | string[]>) => {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) for (const one of [v].flat()) params.append(k, String(one));
  return app.request(`/api/v1/items?${params}`);
};
const names = (res: ApiResponse) => {
  expect(res.status, res.text).toBe(200);
  return res.body.items.map((i: { name: string }) => i.name) as string[];
};
const search = async (keyword: string, extra: Record<string, string | number | boolean | string[]> = {}) =>
  names(await list({ keyword, limit: 100, ...extra }));

describe('what a keyword matches (contract §9.1)', () => {
  it('when Chinese words are typed in another order or joined, then dictionary words find the item', async () => {
    expect(await search('男士跑鞋')).toEqual(['跑鞋 男士款']);
    expect(await search('跑鞋 男士')).toEqual(['跑鞋 男士款']);
    // Two-character keywords (the commonest kind) and one-character ones work as substrings too.
    expect(await search('跑鞋')).toEqual(['跑鞋 男士款', '轻量跑鞋 Air']);
    expect(await search('鞋')).toEqual(expect.arrayContaining(['跑鞋 男士款', '轻量跑鞋 Air']));
  });

  it("when a term names the category or an ancestor, then the category's items match", async () => {
    expect(await search('服装')).toEqual(['纯棉T恤']);
    expect(await search('鞋靴 男士')).toEqual(['跑鞋 男士款']);
    expect(await search('outdoor trail')).toEqual(['Trail boot', 'Camp lantern']);
  });

  it('when a term is a SKU code or spec value, then it matches; spec names do not', async () => {
    expect(await search('tb-42')).toEqual(['Trail boot']);
    expect(await search('BLUE')).toEqual(['轻量跑鞋 Air']);
    expect(await search('红色')).toEqual(['跑鞋 男士款']);
    expect(await search('finish')).toEqual([]);
    expect(await search('颜色')).toEqual([]);
  });

  it('when the last word is the start of a word, then it matches; an earlier word must be whole', async () => {
    expect(await search('tra')).toEqual(expect.arrayContaining(['Trail boot', 'Camp lantern']));
    expect(await search('boot tra')).toEqual(['Trail boot']);
    expect(await search('tra boot')).toEqual([]);
  });

  it('when pinyin is typed, whole, spaced or as initials, then the Chinese words match, below a literal match', async () => {
    expect(await search('paoxie')).toEqual(['Paoxie cleaner', '轻量跑鞋 Air', '跑鞋 男士款']);
    // Spaced, it also matches its joined form (contract §9.6), after every match as typed.
    expect(await search('pao xie')).toEqual(['轻量跑鞋 Air', '跑鞋 男士款', 'Paoxie cleaner']);
    expect(await search('px')).toEqual(['轻量跑鞋 Air', '跑鞋 男士款']);
    expect(await search('fuzhuang')).toEqual(['纯棉T恤']);
    expect(await search('nanshi paoxie')).toEqual(['跑鞋 男士款']);
  });

  it('when the keyword is only punctuation, then the revision-1 substring rule alone applies', async () => {
    expect(await search('%')).toEqual([]);
    expect(await search(',')).toEqual(['Lamp, brass, with a warm glow']);
  });
});

describe('relevance (contract §9.1)', () => {
  it('when items match at every tier, then equal, starts-with, contains, all terms in the name (closer first), category, SKU, description', async () => {
    expect(await search('glow lamp', { limit: 100 })).toEqual([
      'Glow Lamp',
      'Glow lamp deluxe',
      'Super glow lamp',
      'Lamp with glow',
      'Lamp, brass, with a warm glow',
      'Lamp that glows',
      'Desk lamp',
      'Reading lamp',
    ]);
  });

  it('when items tie, then newest first; an explicit sort wins over relevance; without a keyword, newest first', async () => {
    expect(await search('lamp', { category_id: cats.get('Lamps')! }).then((n) => n.slice(-2))).toEqual([
      'Desk lamp',
      'Reading lamp',
    ]);
    expect(await search('glow lamp', { sort: 'name_asc' })).toEqual([
      'Desk lamp',
      'Glow Lamp',
      'Glow lamp deluxe',
      'Lamp that glows',
      'Lamp with glow',
      'Lamp, brass, with a warm glow',
      'Reading lamp',
      'Super glow lamp',
    ]);
    expect(names(await list({ limit: 1 }))).toEqual(['Glow Lamp']);
    expect(names(await list({ limit: 1, sort: 'relevance' }))).toEqual(['Glow Lamp']);
  });

  it('when asked through GraphQL, then the same order and total as REST', async () => {
    const gql = await app.graphql('query ($k: String) { items(keyword: $k, limit: 100) { items { name } total } }', {
      k: 'glow lamp',
    });
    expect(gql.body.data.items.items.map((i: { name: string }) => i.name)).toEqual(await search('glow lamp'));
    expect(gql.body.data.items.total).toBe(8);
  });
});

describe('synonym groups (contract §9.4)', () => {
  const SAVE = 'mutation ($id: Int, $terms: [String!]!) { saveSynonymGroup(id: $id, terms: $terms) { id terms } }';

  it('when a group is saved, then a term finds the others at once, below literal matches; replaced or deleted, no more', async () => {
    expect(await search('衣服')).toEqual([]);
    const saved = await app.graphql(SAVE, { terms: [' 衣服 ', '服装', 'CLOTHES'] }, { token: admin });
    expect(saved.body.errors).toBeUndefined();
    const group = saved.body.data.saveSynonymGroup;
    expect(group.terms).toEqual(['衣服', '服装', 'clothes']);
    expect(await search('衣服')).toEqual(['纯棉T恤']);
    expect(await search('clothes')).toEqual(['纯棉T恤']);

    const listed = await app.graphql('{ synonymGroups { id terms } }', {}, { token: admin });
    expect(listed.body.data.synonymGroups).toContainEqual(group);

    const replaced = await app.graphql(SAVE, { id: group.id, terms: ['衣服', '上衣'] }, { token: admin });
    expect(replaced.body.data.saveSynonymGroup.terms).toEqual(['衣服', '上衣']);
    expect(await search('clothes')).toEqual([]);
    expect(await search('衣服')).toEqual(['纯棉T恤']);

    const deleted = await app.graphql(
      'mutation ($id: Int!) { deleteSynonymGroup(id: $id) }',
      { id: group.id },
      { token: admin },
    );
    expect(deleted.body.data.deleteSynonymGroup).toBe(true);
    expect(await search('衣服')).toEqual([]);
  });

  it('when the terms break a rule or no admin asks, then VALIDATION_FAILED / 401 and nothing is saved', async () => {
    for (const terms of [
      ['only'],
      ['a', '  '],
      ['x'.repeat(65), 'y'],
      Array.from({ length: 21 }, (_, i) => `t${i}`),
      ['same', 'SAME'],
    ]) {
      const res = await app.graphql(SAVE, { terms }, { token: admin });
      expect(gqlCode(res), `${JSON.stringify(terms)}: ${res.text}`).toBe('VALIDATION_FAILED');
    }
    expect(gqlCode(await app.graphql(SAVE, { terms: ['a', 'b'] }))).toBe('UNAUTHENTICATED');
    expect(gqlCode(await app.graphql(SAVE, { id: 999999, terms: ['a', 'b'] }, { token: admin }))).toBe('NOT_FOUND');
    const listed = await app.graphql('{ synonymGroups { id } }', {}, { token: admin });
    expect(listed.body.data.synonymGroups).toEqual([]);
  });
});

describe('writes are searched at once (contract §9.1, §7.6)', () => {
  it('when an item is renamed, its category renamed or the item deleted, then the next search follows', async () => {
    const outdoor = cats.get('Outdoor')!;
    const made = await app.graphql(
      'mutation ($input: CreateItemInput!) { createItem(input: $input) { id } }',
      {
        input: {
          name: 'Ridge tent',
          categoryId: cats.get('Trail gear')!,
          price: '199.00',
          stock: 3,
          skus: [{ skuCode: 'RT-2', specs: { 颜色: '橙色' } }],
          images: [],
        },
      },
      { token: admin },
    );
    const id = made.body.data.createItem.id;
    expect(await search('ridge')).toEqual(['Ridge tent']);
    expect(await search('橙色')).toEqual(['Ridge tent']);

    await app.graphql(
      'mutation ($id: Int!) { updateItem(id: $id, input: { name: "Summit tent" }) { id } }',
      { id },
      { token: admin },
    );
    expect(await search('ridge')).toEqual([]);
    expect(await search('summit')).toEqual(['Summit tent']);

    const renamed = await app.graphql(
      'mutation ($id: Int!, $p: Int) { updateCategory(id: $id, input: { name: "远足装备", parentId: $p }) { id } }',
      { id: cats.get('Trail gear')!, p: outdoor },
      { token: admin },
    );
    expect(renamed.body.errors).toBeUndefined();
    expect(await search('远足 tent')).toEqual(['Summit tent']);
    expect(await search('yuanzu')).toEqual(['Summit tent', 'Trail boot']);

    await app.graphql('mutation ($id: Int!) { deleteItem(id: $id) }', { id }, { token: admin });
    expect(await search('summit')).toEqual([]);
    // Restore the fixture's category name for the other tests.
    await app.graphql(
      'mutation ($id: Int!, $p: Int) { updateCategory(id: $id, input: { name: "Trail gear", parentId: $p }) { id } }',
      { id: cats.get('Trail gear')!, p: outdoor },
      { token: admin },
    );
  });

  it('when a search finds nothing, then shop_search_zero_results_total counts it (never the keyword)', async () => {
    const counted = async () => sample((await app.request('/metrics')).text, 'shop_search_zero_results_total') ?? 0;
    const before = await counted();
    expect(await search('nothing-like-this-zzz')).toEqual([]);
    expect(await counted()).toBe(before + 1);
    expect((await app.request('/metrics')).text).not.toContain('nothing-like-this-zzz');
  });
});

describe('spec filters (contract §9.2)', () => {
  it('when specs are given, then one SKU must hold every name with one of its values, case-insensitively after trimming', async () => {
    expect(await search('', { spec: 'color:red' })).toEqual(['轻量跑鞋 Air']);
    expect(await search('', { spec: [' COLOR : Red ', 'size:42'] })).toEqual(['轻量跑鞋 Air']);
    // Red is size 42 and blue is size 43: no single SKU is red and 43.
    expect(await search('', { spec: ['color:red', 'size:43'] })).toEqual([]);
    expect(await search('', { spec: ['color:red', 'color:blue', 'size:43'] })).toEqual(['轻量跑鞋 Air']);
    expect(await search('', { spec: 'size:42' })).toEqual(['Trail boot', '轻量跑鞋 Air', '跑鞋 男士款']);
    const gql = await app.graphql('query ($s: [SpecFilter!]) { items(specs: $s) { items { name } total } }', {
      s: [
        { name: 'size', values: ['42'] },
        { name: 'COLOR', values: ['x', 'RED'] },
      ],
    });
    expect(gql.body.data.items).toEqual({ items: [{ name: '轻量跑鞋 Air' }], total: 1 });
  });

  it('when a spec is not name:value or there are too many, then 400 VALIDATION_FAILED on spec', async () => {
    for (const spec of [
      'color',
      'color:',
      ':red',
      `${'n'.repeat(65)}:v`,
      Array.from({ length: 11 }, (_, i) => `n${i}:v`),
    ]) {
      const res = await list({ spec });
      expectProblem(res, 400, 'VALIDATION_FAILED');
      expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['spec']);
    }
    const many = await list({ spec: Array.from({ length: 21 }, (_, i) => `color:v${i}`) });
    expectProblem(many, 400, 'VALIDATION_FAILED');
  });

  it('when a bad spec comes with other bad parameters, then every problem is named, spec among them (contract §2)', async () => {
    const res = await list({ spec: 'color', page: 0, limit: 'x' });
    expectProblem(res, 400, 'VALIDATION_FAILED');
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['limit', 'page', 'spec']);
  });
});

describe('facets (contract §9.2)', () => {
  /** Every facet count must be the total the list answers with that choice in place of the facet's filter. */
  const expectCountsAreTotals = (query: ListQuery) => expectCountsAreTotalsOf(app, query);
  it('when facets=true, then counts per category (with sub-categories), price bucket, spec value and stock', async () => {
    const facets = await expectCountsAreTotals({ keyword: '跑鞋' });
    expect(facets.categories).toEqual([
      { id: cats.get('鞋靴'), name: '鞋靴', parent_id: null, count: 2 },
      { id: cats.get('跑鞋'), name: '跑鞋', parent_id: cats.get('鞋靴'), count: 2 },
    ]);
    // Width 50 is the smallest giving at most 6 buckets from 250 to 459; empty ones are left out.
    expect(facets.price).toEqual({
      min: 299,
      max: 459,
      buckets: [
        { from: 250, to: 300, count: 1 },
        { from: 450, to: 500, count: 1 },
      ],
    });
    expect(facets.specs).toEqual([
      {
        name: 'size',
        values: [
          { value: '42', count: 2 },
          { value: '43', count: 1 },
        ],
      },
      // `color` and `Color` once each: the tie goes to the smaller code point; values tie on count, then by value.
      {
        name: 'Color',
        values: [
          { value: 'Red', count: 1 },
          { value: 'blue', count: 1 },
        ],
      },
      { name: '颜色', values: [{ value: '红色', count: 1 }] },
    ]);
    expect(facets.in_stock).toBe(1);
  });

  it('when filters are set, then each facet ignores only its own filter', async () => {
    await expectCountsAreTotals({ keyword: 'lamp' });
    await expectCountsAreTotals({ spec: ['size:42', 'color:red'] });
    await expectCountsAreTotals({ keyword: 'pao xie', in_stock: true, min_price: 300 });
    await expectCountsAreTotals({ category_id: cats.get('Outdoor')!, max_price: 100 });
    const all = await expectCountsAreTotals({});
    // 9.90 … 459: width 100 from 0, five buckets at most, empty ones left out.
    expect(all.price.buckets[0]).toMatchObject({ from: 0, to: 100 });
  });

  it('when facets are not asked for, then the page has none; GraphQL computes them only when selected', async () => {
    const plain = await list({ keyword: 'lamp' });
    expect(plain.body).not.toHaveProperty('facets');
    const gql = await app.graphql('{ items(keyword: "lamp") { total facets { inStock price { min max } } } }');
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.items.facets.inStock).toBe(gql.body.data.items.total);
    const none = await app.graphql(
      '{ items(keyword: "no-such-thing-qq") { facets { categories { id } price { min } specs { name } inStock } } }',
    );
    expect(none.body.data.items.facets).toEqual({ categories: [], price: null, specs: [], inStock: 0 });
  });

  it("when specs are spelled several ways, then one group shows the matching SKUs' commonest spelling, and writes are followed at once", async () => {
    const create = async (name: string, skus: Array<Record<string, string>>) =>
      (
        await app.graphql(
          'mutation ($input: CreateItemInput!) { createItem(input: $input) { id } }',
          {
            input: {
              name,
              categoryId: cats.get('Outdoor')!,
              price: '20.00',
              stock: 1,
              skus: skus.map((specs, k) => ({ skuCode: `${name.slice(0, 3)}-${k}`, specs })),
              images: [],
            },
          },
          { token: admin },
        )
      ).body.data.createItem.id as number;
    const a = await create('Zephyr scarf', [{ Colour: 'Navy' }, { colour: 'navy ' }]);
    const b = await create('Zephyr wrap', [{ ' colour ': 'NAVY' }, { colour: 'navy', 尺码: 'M' }]);
    const c = await create('Zephyr cap', [{ colour: 'Teal' }]);
    // Elsewhere in the catalogue another spelling is the commonest: it must not decide Zephyr's.
    const d = await create(
      'Quartz hat',
      [1, 2, 3, 4, 5, 6].map(() => ({ COLOUR: 'NAVY' })),
    );
    const specs = async (keyword: string) => (await expectCountsAreTotals({ keyword })).specs;

    expect(await specs('zephyr')).toEqual([
      {
        name: 'colour',
        values: [
          { value: 'navy', count: 2 },
          { value: 'Teal', count: 1 },
        ],
      },
      { name: '尺码', values: [{ value: 'M', count: 1 }] },
    ]);
    expect(await specs('quartz')).toEqual([{ name: 'COLOUR', values: [{ value: 'NAVY', count: 1 }] }]);

    await app.graphql(
      'mutation ($id: Int!) { updateItem(id: $id, input: { skus: [{ skuCode: "cap-1", specs: { Colour: "navy" } }] }) { id } }',
      { id: c },
      { token: admin },
    );
    expect(await specs('zephyr')).toEqual([
      { name: 'colour', values: [{ value: 'navy', count: 3 }] },
      { name: '尺码', values: [{ value: 'M', count: 1 }] },
    ]);
    for (const id of [a, b, c, d])
      await app.graphql('mutation ($id: Int!) { deleteItem(id: $id) }', { id }, { token: admin });
    expect(await specs('zephyr')).toEqual([]);
  });
});

describe('suggestions (contract §9.3)', () => {
  const suggest = (query: Record<string, string | number>) =>
    app.request(
      `/api/v1/search/suggestions?${new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]))}`,
    );

  it('when a shopper types the start of a word or its pinyin, then categories first, then items by relevance', async () => {
    const res = await suggest({ q: 'pao' });
    expect(res.status, res.text).toBe(200);
    await expectDocumentedResponse(app, 'GET', '/api/v1/search/suggestions', res);
    expect(res.body).toEqual({
      suggestions: [
        { text: '跑鞋', kind: 'category', id: cats.get('跑鞋') },
        { text: 'Paoxie cleaner', kind: 'item', id: ids.get('Paoxie cleaner') },
        { text: '轻量跑鞋 Air', kind: 'item', id: ids.get('轻量跑鞋 Air') },
        { text: '跑鞋 男士款', kind: 'item', id: ids.get('跑鞋 男士款') },
      ],
    });
    expect((await suggest({ q: 'tra' })).body.suggestions.map((s: { text: string }) => s.text)).toEqual([
      'Trail gear',
      'Trail boot',
    ]);
    expect((await suggest({ q: '跑', limit: 2 })).body.suggestions).toHaveLength(2);
    expect(res.headers.get('etag')).toMatch(/^"/);
  });

  it.each([
    ['on', {}],
    ['off', { CATALOG_CACHE_MB: '0' }],
  ])(
    'when a category is created or renamed (the cache %s), then the next suggestion on the instance shows it',
    async (_label, env) => {
      // The categories are kept between suggestions (suggestions.ts SuggestionCategories): a write must
      // end what was kept at once, not after the 500 ms kept where changes go unheard.
      const own = await startTestApp(env);
      try {
        const token = await loginAsAdmin(own);
        const texts = async (q: string) =>
          (await own.request(`/api/v1/search/suggestions?q=${encodeURIComponent(q)}`)).body.suggestions.map(
            (s: { text: string }) => s.text,
          );
        expect(await texts('zephyr')).toEqual([]);
        const made = await own.graphql(
          'mutation ($input: CategoryInput!) { createCategory(input: $input) { id } }',
          { input: { name: 'Zephyr tents' } },
          { token },
        );
        expect(made.body.errors).toBeUndefined();
        expect(await texts('zephyr')).toEqual(['Zephyr tents']);
        const renamed = await own.graphql(
          'mutation ($id: Int!, $input: CategoryInput!) { updateCategory(id: $id, input: $input) { id } }',
          { id: made.body.data.createCategory.id, input: { name: 'Zenith tents' } },
          { token },
        );
        expect(renamed.body.errors).toBeUndefined();
        expect(await texts('zephyr')).toEqual([]);
        expect(await texts('zenith')).toEqual(['Zenith tents']);
      } finally {
        await own.close();
      }
    },
  );

  it('when q or limit break the rules, then 400 VALIDATION_FAILED naming them', async () => {
    for (const [query, field] of [
      [{ q: '   ' }, 'q'],
      [{ q: 'x'.repeat(101) }, 'q'],
      [{ q: 'a', limit: 21 }, 'limit'],
      [{ q: 'a', limit: 0 }, 'limit'],
    ] as const) {
      const res = await suggest(query);
      expectProblem(res, 400, 'VALIDATION_FAILED');
      expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual([field]);
    }
    expectProblem(await app.request('/api/v1/search/suggestions'), 400, 'VALIDATION_FAILED');
  });
});

describe.skipIf(TEST_DB !== 'postgres')('search on another instance (contract §9.1, §7.6)', () => {
  it.each([
    ['the cache on', {}, 'glacier', '冰川'],
    ['the cache off', { CATALOG_CACHE_MB: '0' }, 'tundra', '冻土'],
  ])(
    'when an item or a synonym group is written on one instance (the other with %s), then a search on the other sees it within 1 s',
    async (_label, env, word, chinese) => {
      const title = `${word[0]!.toUpperCase()}${word.slice(1)} mug`;
      const other = await startTestApp(env, { url: app.databaseUrl! });
      try {
        const searchOther = async (keyword: string) =>
          names(await other.request(`/api/v1/items?keyword=${encodeURIComponent(keyword)}&limit=100`));
        // Cached on the other instance first, so a stale answer would be served if nothing told it.
        expect(await searchOther(word)).toEqual([]);
        expect(await searchOther(chinese)).toEqual([]);
        const made = await app.graphql(
          'mutation ($input: CreateItemInput!) { createItem(input: $input) { id } }',
          {
            input: { name: title, categoryId: cats.get('Lamps')!, price: '5.00', stock: 1, skus: [], images: [] },
          },
          { token: admin },
        );
        expect(made.body.errors).toBeUndefined();
        const within = async (probe: () => Promise<string[]>, expected: string[]) => {
          const started = Date.now();
          let seen = await probe();
          while (JSON.stringify(seen) !== JSON.stringify(expected) && Date.now() - started < 1000) {
            await new Promise((r) => setTimeout(r, 20));
            seen = await probe();
          }
          expect(seen).toEqual(expected);
        };
        await within(() => searchOther(word), [title]);
        const group = await app.graphql(
          'mutation ($terms: [String!]!) { saveSynonymGroup(terms: $terms) { id } }',
          { terms: [chinese, word] },
          { token: admin },
        );
        expect(group.body.errors).toBeUndefined();
        await within(() => searchOther(chinese), [title]);
        await app.graphql(
          'mutation ($id: Int!) { deleteSynonymGroup(id: $id) }',
          { id: group.body.data.saveSynonymGroup.id },
          { token: admin },
        );
      } finally {
        await other.close();
      }
    },
  );

  it('when items sharing words are written at once on two instances, then every write succeeds and the one-word totals stay exact', async () => {
    const other = await startTestApp({}, { url: app.databaseUrl! });
    try {
      const otherAdmin = await loginAsAdmin(other);
      const create = (on: typeof app, token: string, name: string) =>
        on.graphql(
          'mutation ($input: CreateItemInput!) { createItem(input: $input) { id } }',
          { input: { name, categoryId: cats.get('Lamps')!, price: '5.00', stock: 1, skus: [], images: [] } },
          { token },
        );
      // Renames change each item's tokens while the others add theirs: count rows locked by many writers.
      const made = await Promise.all(
        Array.from({ length: 8 }, (_, k) =>
          k % 2 ? create(other, otherAdmin, `Kiwi lamp ${k}`) : create(app, admin, `Kiwi shade ${k}`),
        ),
      );
      for (const res of made) expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
      const ids = made.map((res) => res.body.data.createItem.id as number);
      const renamed = await Promise.all(
        ids.map((id, k) =>
          (k % 2 ? other : app).graphql(
            'mutation ($id: Int!, $name: String!) { updateItem(id: $id, input: { name: $name }) { id } }',
            { id, name: k < 4 ? `Kumquat lamp ${k}` : `Kiwi kumquat ${k}` },
            { token: k % 2 ? otherAdmin : admin },
          ),
        ),
      );
      for (const res of renamed) expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
      const total = async (query: string) =>
        (await list({ ...Object.fromEntries(new URLSearchParams(query)), limit: 1 })).body.total;
      for (const [keyword, expected] of [
        ['kiwi', 4],
        ['kumquat', 8],
        ['k', 8],
      ] as const) {
        expect(await total(`keyword=${keyword}`), keyword).toBe(await total(`keyword=${keyword}&min_price=0`));
        if (keyword !== 'k') expect(await total(`keyword=${keyword}`), keyword).toBe(expected);
      }
      await Promise.all(
        ids.map((id) => app.graphql('mutation ($id: Int!) { deleteItem(id: $id) }', { id }, { token: admin })),
      );
      expect(await total('keyword=kumquat')).toBe(0);
    } finally {
      await other.close();
    }
  });
});
