/**
 * Contract §12.1: every public read — list, detail, search (one word and more), facets, suggestions,
 * GraphQL `items`, `item`, `searchSuggestions` — shows visible items only (`active`, publish time null
 * or passed, unpublish time null or not yet passed); a hidden item's detail is 404 as an unknown id;
 * categories are listed whatever their items' states. A schedule is a cache boundary: the moment it
 * passes every instance answers accordingly within 1 s, cache on, without any write.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findItem, findItemPage } from '../../src/catalog/item.repository.ts';
import { findFacets } from '../../src/search/facets.ts';
import { compiledKeyword } from '../../src/search/keyword.ts';
import { EVERY_STATUS, type Visibility } from '../../src/search/visibility.ts';
import { expectProblem, withoutRequestId } from '../helpers/accounts.ts';
import { makeCategory, makeItem } from '../helpers/catalog.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { TEST_DB } from '../helpers/test-database.ts';

type Status = 'draft' | 'active' | 'archived';
interface State {
  status?: Status;
  publishAt?: Date | null;
  unpublishAt?: Date | null;
}

const HOUR = 3_600_000;
const inMs = (ms: number) => new Date(Date.now() + ms);

/** Each state an item may be in, and whether the public sees it. */
const STATES: Array<{ label: string; state: State; shown: boolean }> = [
  { label: 'draft', state: { status: 'draft' }, shown: false },
  { label: 'archived', state: { status: 'archived' }, shown: false },
  { label: 'active', state: { status: 'active' }, shown: true },
  { label: 'scheduled', state: { publishAt: inMs(HOUR) }, shown: false },
  { label: 'published', state: { publishAt: inMs(-HOUR) }, shown: true },
  { label: 'unpublished', state: { publishAt: inMs(-2 * HOUR), unpublishAt: inMs(-HOUR) }, shown: false },
  { label: 'ending', state: { unpublishAt: inMs(HOUR) }, shown: true },
  // Scheduled, but not active: a draft stays hidden when its time comes.
  { label: 'draftdue', state: { status: 'draft', publishAt: inMs(-HOUR) }, shown: false },
];

/** An item written behind the service's back (as an import or a SQL console would) in `state`. */
async function makeItemIn(app: TestApp, categoryId: number, name: string, state: State, price = '10.00') {
  const item = await makeItem(app, {
    categoryId,
    name,
    price,
    skus: [{ skuCode: `SKU-${name.replace(/\W+/g, '-')}`, specs: { colour: 'teal' }, stock: 1 }],
  });
  await app.db.prisma.item.update({ where: { id: item.id }, data: state });
  return item.id;
}

/** The facets of a REST page (contract §9.2), as far as these tests read them. */
interface RestFacets {
  categories: unknown[];
  price: { buckets: Array<{ count: number }> };
  specs: unknown[];
  in_stock: number;
}

const ids = (list: Array<{ id: number }>) => list.map((x) => x.id).sort((a, b) => a - b);

describe('every public read shows visible items only', () => {
  let app: TestApp;
  let categoryId: number;
  let hiddenOnly: number;
  const byLabel = new Map<string, number>();
  let shown: number[];
  let hidden: number[];

  beforeAll(async () => {
    // The cache is on (the default): a hidden item must not come back from it either.
    app = await startTestApp();
    categoryId = (await makeCategory(app, { name: 'Lanterns' })).id;
    hiddenOnly = (await makeCategory(app, { name: 'Backroom' })).id;
    for (const [k, { label, state }] of STATES.entries()) {
      byLabel.set(label, await makeItemIn(app, categoryId, `Zorblat lantern ${label}`, state, `${10 + k}.00`));
    }
    await makeItemIn(app, hiddenOnly, 'Zorblat crate draft', { status: 'draft' });
    shown = STATES.filter((s) => s.shown).map((s) => byLabel.get(s.label)!);
    hidden = [...STATES.filter((s) => !s.shown).map((s) => byLabel.get(s.label)!)];
    shown.sort((a, b) => a - b);
    await app.catalogNotificationsHeard();
  });
  afterAll(() => app?.close());

  const list = async (query: string) => {
    const res = await app.request(`/api/v1/items?limit=100&${query}`);
    expect(res.status, res.text).toBe(200);
    return res.body as { items: Array<{ id: number }>; total: number; facets: RestFacets };
  };

  it('when the list is read with and without filters and sorts, then only visible items, and the total counts them', async () => {
    for (const query of [
      '',
      `category_id=${categoryId}`,
      'sort=price_asc',
      'sort=name_asc',
      'min_price=1&max_price=100',
      'in_stock=true',
      'spec=colour:teal',
    ]) {
      const page = await list(query);
      expect(ids(page.items), query).toEqual(shown);
      expect(page.total, query).toBe(shown.length);
    }
    expect((await list(`category_id=${hiddenOnly}`)).total).toBe(0);
  });

  it('when searched by one word, a word start, several words or a SKU code, then only visible items match', async () => {
    // `zorblat` and `zorb` take the one-word index; the others the general search.
    for (const keyword of ['zorblat', 'zorb', 'zorblat lantern', 'lantern zorblat', 'sku', 'Zorblat lantern d']) {
      const page = await list(`keyword=${encodeURIComponent(keyword)}`);
      const expected = keyword.endsWith(' d') ? [] : shown;
      expect(ids(page.items), keyword).toEqual(expected);
      expect(page.total, keyword).toBe(expected.length);
    }
  });

  it('when a hidden item is read by id, then 404 NOT_FOUND exactly as an unknown id; a visible one is 200', async () => {
    const unknown = await app.request('/api/v1/items/987654');
    for (const id of hidden) {
      const res = await app.request(`/api/v1/items/${id}`);
      expectProblem(res, 404, 'NOT_FOUND');
      expect(withoutRequestId(res.body)).toEqual(withoutRequestId(unknown.body));
    }
    for (const id of shown) expect((await app.request(`/api/v1/items/${id}`)).status).toBe(200);
  });

  it('when facets are asked for, then every count counts visible items only', async () => {
    for (const query of ['', 'keyword=zorblat', 'keyword=zorblat%20lantern', 'spec=colour:teal']) {
      const { facets, total } = await list(`facets=true&${query}`);
      expect(total, query).toBe(shown.length);
      expect(facets.categories, query).toEqual([
        { id: categoryId, name: 'Lanterns', parent_id: null, count: shown.length },
      ]);
      expect(facets.in_stock, query).toBe(shown.length);
      const buckets = facets.price.buckets.reduce((sum, b) => sum + b.count, 0);
      expect(buckets, query).toBe(shown.length);
      expect(facets.specs, query).toEqual([{ name: 'colour', values: [{ value: 'teal', count: shown.length }] }]);
    }
  });

  it('when suggestions are asked for, then only visible items are offered; categories whatever their items', async () => {
    for (const q of ['zorblat', 'zorb', 'zorblat lan']) {
      const res = await app.request(`/api/v1/search/suggestions?q=${encodeURIComponent(q)}&limit=20`);
      expect(res.status, res.text).toBe(200);
      const items = res.body.suggestions.filter((s: { kind: string }) => s.kind === 'item');
      expect(ids(items), q).toEqual(shown);
    }
    const back = await app.request('/api/v1/search/suggestions?q=backroom');
    expect(back.body.suggestions).toEqual([{ text: 'Backroom', kind: 'category', id: hiddenOnly }]);
    const categories = await app.request('/api/v1/categories');
    expect(categories.body.categories.map((c: { id: number }) => c.id)).toEqual([categoryId, hiddenOnly]);
  });

  it('when read through GraphQL, then items, item and searchSuggestions show visible items only', async () => {
    const res = await app.graphql(
      `query ($k: String) {
         all: items(limit: 100) { total items { id } }
         one: items(keyword: "zorblat", limit: 100) { total items { id } facets { inStock } }
         two: items(keyword: $k, limit: 100) { total items { id } }
         searchSuggestions(q: "zorb", limit: 20) { kind id }
       }`,
      { k: 'zorblat lantern' },
    );
    expect(res.body.errors).toBeUndefined();
    const { all, one, two, searchSuggestions } = res.body.data;
    for (const page of [all, one, two]) {
      expect(ids(page.items)).toEqual(shown);
      expect(page.total).toBe(shown.length);
    }
    expect(one.facets.inStock).toBe(shown.length);
    expect(ids(searchSuggestions.filter((s: { kind: string }) => s.kind === 'item'))).toEqual(shown);
    for (const id of [...hidden, ...shown]) {
      const item = await app.graphql('query ($id: Int!) { item(id: $id) { id } }', { id });
      expect(item.body, String(id)).toEqual({ data: { item: shown.includes(id) ? { id } : null } });
    }
  });

  it('when a hidden item is made active, then it is shown at once; made draft again, hidden at once', async () => {
    const id = byLabel.get('draft')!;
    await app.db.prisma.item.update({ where: { id }, data: { status: 'active' } });
    await app.catalogNotificationsHeard();
    expect(ids((await list('keyword=zorblat')).items)).toContain(id);
    expect((await list('keyword=zorblat')).total).toBe(shown.length + 1);
    await app.db.prisma.item.update({ where: { id }, data: { status: 'draft' } });
    await app.catalogNotificationsHeard();
    expect(ids((await list('keyword=zorblat')).items)).toEqual(shown);
    expect((await list('keyword=zorblat')).total).toBe(shown.length);
  });
});

describe('the same reads over statuses, for admin reads (visibility is a parameter of the read)', () => {
  let app: TestApp;
  const byStatus = new Map<string, number>();

  beforeAll(async () => {
    app = await startTestApp({ CATALOG_CACHE_MB: '0' });
    const categoryId = (await makeCategory(app, { name: 'Stockroom' })).id;
    const states: Array<[string, State]> = [
      ['draft', { status: 'draft' }],
      ['archived', { status: 'archived' }],
      ['active', {}],
      ['scheduled', { publishAt: inMs(HOUR) }],
    ];
    for (const [label, state] of states) {
      byStatus.set(label, await makeItemIn(app, categoryId, `Glimmerwick ${label}`, state));
    }
  });
  afterAll(() => app?.close());

  const expected = (...labels: string[]) => labels.map((l) => byStatus.get(l)!).sort((a, b) => a - b);

  it('when a page, a search (one word or more), the facets or one item are read over statuses, then items of those statuses, whatever their schedule', async () => {
    const cases: Array<[Visibility | undefined, number[]]> = [
      [undefined, expected('active')],
      ['public', expected('active')],
      [EVERY_STATUS, expected('draft', 'archived', 'active', 'scheduled')],
      [['draft'], expected('draft')],
      [['active'], expected('active', 'scheduled')],
      [['archived', 'draft'], expected('draft', 'archived')],
    ];
    for (const [visibility, want] of cases) {
      const label = JSON.stringify(visibility);
      for (const keyword of [undefined, 'glimmerwick', 'glimmerwick d']) {
        const search = keyword ? compiledKeyword(keyword) : undefined;
        const page = await findItemPage(app.db.sql, { search, visibility }, keyword ? 'relevance' : 'newest', 100, 0);
        const matching = keyword === 'glimmerwick d' ? want.filter((id) => id === byStatus.get('draft')) : want;
        expect(ids(page.items), `${label} ${keyword}`).toEqual(matching);
        expect(page.total, `${label} ${keyword}`).toBe(matching.length);
      }
      const facets = await findFacets(app.db.sql, { search: compiledKeyword('glimmerwick'), visibility });
      expect(facets.inStock, label).toBe(want.length);
      for (const [, id] of byStatus) {
        expect(Boolean(await findItem(app.db.sql, id, visibility)), `${label} ${id}`).toBe(want.includes(id));
      }
    }
  });
});

/** What the public sees of item `id` at this moment: in the list, found by its one word, by id. */
async function seenBy(app: TestApp, id: number, word: string): Promise<boolean[]> {
  const [page, search, detail] = await Promise.all([
    app.request('/api/v1/items?limit=100'),
    app.request(`/api/v1/items?keyword=${word}`),
    app.request(`/api/v1/items/${id}`),
  ]);
  return [
    page.body.items.some((x: { id: number }) => x.id === id),
    search.body.items.some((x: { id: number }) => x.id === id),
    detail.status === 200,
  ];
}

/**
 * Polls each app until every read shows (`shown`) item `id`; resolves with the milliseconds after
 * `at` when each app first did. Fails when a read changes before `at` (started after it), or when one
 * has not changed 3 s after `at`.
 */
async function whenSeen(apps: TestApp[], id: number, word: string, shown: boolean, at: number): Promise<number[]> {
  return Promise.all(
    apps.map(async (app) => {
      for (;;) {
        const started = Date.now();
        const seen = await seenBy(app, id, word);
        const finished = Date.now();
        if (seen.every((s) => s === shown)) {
          expect(finished, 'changed before the schedule time').toBeGreaterThanOrEqual(at);
          return finished - at;
        }
        // Before the time every read still answers as before it.
        if (finished < at) expect(seen).toEqual([!shown, !shown, !shown]);
        if (started - at > 3_000) throw new Error(`still ${JSON.stringify(seen)} 3 s after the schedule time`);
        await new Promise((r) => setTimeout(r, 25));
      }
    }),
  );
}

/** Sets a schedule `aheadMs` from now behind the service's back; the apps hear it before it passes. */
async function schedule(apps: TestApp[], id: number, field: 'publishAt' | 'unpublishAt', aheadMs: number) {
  const at = new Date(Date.now() + aheadMs);
  await apps[0]!.db.prisma.item.update({ where: { id }, data: { [field]: at } });
  for (const app of apps) await app.catalogNotificationsHeard();
  return at.getTime();
}

describe('a schedule is a cache boundary', () => {
  let app: TestApp;
  let second: TestApp | undefined;
  let categoryId: number;
  let apps: TestApp[];

  beforeAll(async () => {
    app = await startTestApp({ CATALOG_CACHE_MB: '64' });
    // PostgreSQL: a second instance on the same database must follow too, with no write of its own.
    if (TEST_DB === 'postgres') second = await startTestApp({ CATALOG_CACHE_MB: '64' }, { url: app.databaseUrl! });
    apps = second ? [app, second] : [app];
    categoryId = (await makeCategory(app, { name: 'Timed' })).id;
  });
  afterAll(async () => {
    await second?.close();
    await app?.close();
  });

  it('when a publish time passes, then every instance shows the item within 1 s of it, cache on, without a write', async () => {
    const id = await makeItemIn(app, categoryId, 'Quaffle clock', { publishAt: inMs(HOUR) });
    const at = await schedule(apps, id, 'publishAt', 1_500);
    // Hidden now, and that answer is in every cache.
    for (const a of apps) expect(await seenBy(a, id, 'quaffle')).toEqual([false, false, false]);
    const after = await whenSeen(apps, id, 'quaffle', true, at);
    for (const ms of after) expect(ms).toBeLessThanOrEqual(1_000);
  });

  it('when an unpublish time passes, then every instance hides the item within 1 s of it, cache on, without a write', async () => {
    const id = await makeItemIn(app, categoryId, 'Snitchwatch timer', {});
    const at = await schedule(apps, id, 'unpublishAt', 1_500);
    for (const a of apps) expect(await seenBy(a, id, 'snitchwatch')).toEqual([true, true, true]);
    const after = await whenSeen(apps, id, 'snitchwatch', false, at);
    for (const ms of after) expect(ms).toBeLessThanOrEqual(1_000);
    // The one-word search's total (a kept count) follows the flag as well.
    expect((await app.request('/api/v1/items?keyword=snitchwatch')).body.total).toBe(0);
  });

  it('when a publish time is moved later before it passes, then the item stays hidden at the old time', async () => {
    const id = await makeItemIn(app, categoryId, 'Bludger lamp', { publishAt: inMs(HOUR) });
    const first = await schedule(apps, id, 'publishAt', 800);
    const later = await schedule(apps, id, 'publishAt', 2_000);
    expect(later - first).toBeGreaterThan(1_000);
    await new Promise((r) => setTimeout(r, Math.max(0, first - Date.now() + 200)));
    if (Date.now() < later) for (const a of apps) expect((await seenBy(a, id, 'bludger'))[0]).toBe(false);
    const after = await whenSeen(apps, id, 'bludger', true, later);
    for (const ms of after) expect(ms).toBeLessThanOrEqual(1_000);
  });
});
