/**
 * The one-word index (src/search/postings.ts) answers a one-word keyword alone; every other search
 * takes the general path. Both must answer alike, so on the relevance suite's 360 items every token
 * the index holds (every one of one character, a sample of the longer ones) is searched through the HTTP
 * server both ways: as typed (the index) and with `min_price=0` added (a filter every item passes,
 * which sends the same search down the general path). Totals, order and pages must be equal; and
 * each token's suggestions (REST) must be those of the general path (src/search/suggestions.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSuite, suiteItems } from '../../bench/relevance-suite.ts';
import { indexItems } from '../../src/search/documents.ts';
import { findSuggestions } from '../../src/search/suggestions.ts';
import { loginAsAdmin } from '../helpers/accounts.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
  await loadSuite(app.db.prisma, suiteItems());
}, 120_000);
afterAll(() => app.close());

/** A page of a search: its total and its items' ids in order. */
async function page(keyword: string, extra = '', limit = 40): Promise<{ total: number; ids: number[] }> {
  const res = await app.request(`/api/v1/items?keyword=${encodeURIComponent(keyword)}&limit=${limit}${extra}`);
  expect(res.status, `${keyword}${extra}: ${res.text}`).toBe(200);
  return { total: res.body.total, ids: res.body.items.map((i: { id: number }) => i.id) };
}

/**
 * Every one-character token of the index, every 5th of two characters and every 20th longer one: about
 * 240 of the corpus's 1,668 (sorted, so the same each run).
 */
async function tokens(): Promise<string[]> {
  const rows = await app.db.sql.query<{ token: string }>(
    'SELECT token FROM (SELECT DISTINCT token FROM search_postings) t ORDER BY token COLLATE "C"',
  );
  const all = rows.map((r) => r.token);
  return [
    ...all.filter((t) => [...t].length === 1),
    ...all.filter((t) => [...t].length === 2).filter((_, k) => k % 5 === 0),
    ...all.filter((t) => [...t].length > 2).filter((_, k) => k % 20 === 0),
  ];
}

describe('the one-word index (contract §9.1 for a one-word keyword)', () => {
  it('when any token it holds is searched, then the answer equals the general search: total, order and pages', {
    timeout: 240_000,
  }, async () => {
    const list = await tokens();
    // Latin starts and pieces, Chinese pieces, pinyin, digits.
    expect(list.length).toBeGreaterThan(200);
    expect(list.some((t) => /\p{Script=Han}/u.test(t))).toBe(true);
    const differing: string[] = [];
    for (const token of list) {
      const fast = await page(token);
      const general = await page(token, '&min_price=0');
      if (JSON.stringify(fast) !== JSON.stringify(general)) differing.push(token);
    }
    expect(differing).toEqual([]);
  });

  it('when any token it holds is typed for suggestions, then they equal the general path’s', {
    timeout: 240_000,
  }, async () => {
    const differing: string[] = [];
    for (const token of await tokens()) {
      const res = await app.request(`/api/v1/search/suggestions?q=${encodeURIComponent(token)}&limit=20`);
      expect(res.status, token).toBe(200);
      const general = await findSuggestions(app.db.sql, token, 20, {
        oneWordIndex: false,
        forgive: (search) => app.services.forgiving.forgive(app.db.sql, search),
      });
      if (JSON.stringify(res.body.suggestions) !== JSON.stringify(general)) differing.push(token);
    }
    expect(differing).toEqual([]);
  });

  it('when a one-word keyword is typed in capitals, with spaces around, or as a page beyond the first, then the same holds', async () => {
    for (const keyword of ['TRAIL', ' boot ', 'Pao', '跑鞋', 'zzzz', 'a']) {
      expect(await page(keyword), keyword).toEqual(await page(keyword, '&min_price=0'));
      expect(await page(keyword, '&page=2'), keyword).toEqual(await page(keyword, '&page=2&min_price=0'));
    }
  });

  it('when items are created, renamed, moved to a renamed category or deleted, then every total still equals the general search (the kept counts follow)', async () => {
    const admin = await loginAsAdmin(app);
    const gql = async (query: string, variables: Record<string, unknown>) => {
      const res = await app.graphql(query, variables, { token: admin });
      expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
      return res.body.data;
    };
    const keywords = ['quokka', 'wombat', 'numbat', '袋熊', 'daixiong', 'q', 'w'];
    const same = async () => {
      for (const keyword of keywords) {
        // Limit 97: answers not asked for before, so none comes from the catalogue cache.
        const fast = await page(keyword, '', 97);
        expect(fast, keyword).toEqual(await page(keyword, '&min_price=0', 97));
      }
    };
    const { createCategory } = await gql('mutation { createCategory(input: { name: "Numbat nook" }) { id } }', {});
    const create = async (name: string) =>
      (
        await gql('mutation ($input: CreateItemInput!) { createItem(input: $input) { id } }', {
          input: { name, categoryId: createCategory.id, price: '5.00', stock: 1, skus: [], images: [] },
        })
      ).createItem.id as number;
    const a = await create('Quokka mug');
    const b = await create('Quokka 袋熊 plush');
    await same();
    expect((await page('quokka')).total).toBe(2);
    await gql('mutation ($id: Int!) { updateItem(id: $id, input: { name: "Wombat mug" }) { id } }', { id: a });
    await gql('mutation ($id: Int!) { updateCategory(id: $id, input: { name: "Wombat warren" }) { id } }', {
      id: createCategory.id,
    });
    await same();
    expect((await page('quokka')).total).toBe(1);
    await gql('mutation ($id: Int!) { deleteItem(id: $id) }', { id: b });
    await same();
    expect((await page('daixiong')).total).toBe(0);
    await gql('mutation ($id: Int!) { deleteItem(id: $id) }', { id: a });
    await same();
  });

  it('when an item is edited, then only its postings that changed are written, and they end as a rewrite would leave them', async () => {
    const admin = await loginAsAdmin(app);
    const gql = async (query: string, variables: Record<string, unknown>) => {
      const res = await app.graphql(query, variables, { token: admin });
      expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
      return res.body.data;
    };
    const { createCategory } = await gql('mutation { createCategory(input: { name: "Echidna den" }) { id } }', {});
    const { createItem } = await gql('mutation ($input: CreateItemInput!) { createItem(input: $input) { id } }', {
      input: {
        name: 'Echidna 针鼹 lamp',
        description: 'A spiny desk lamp',
        categoryId: createCategory.id,
        price: '5.00',
        stock: 1,
        skus: [{ skuCode: 'ECH-1', specs: { colour: 'Red' }, price: '5.00', stock: 1 }],
        images: [],
      },
    });
    const id = createItem.id as number;
    // Each posting's physical row: a rewritten posting (deleted and inserted, or updated) moves.
    const postings = async () =>
      new Map(
        (
          await app.db.sql.query<{ token: string; tier: number; in_name: boolean; ctid: string }>(
            'SELECT token, tier, in_name, ctid::text FROM search_postings WHERE item_id = $1',
            [id],
          )
        ).map((r) => [r.token, r]),
      );
    const before = await postings();
    expect(before.size).toBeGreaterThan(50);
    await gql('mutation ($id: Int!) { updateItem(id: $id, input: { price: "7.50", stock: 3 }) { id } }', { id });
    await gql('mutation ($id: Int!) { updateItem(id: $id, input: { description: "A spiny desk lamp" }) { id } }', {
      id,
    });
    expect(await postings(), 'a price, a stock and an unchanged description move no posting').toEqual(before);

    await gql('mutation ($id: Int!) { updateItem(id: $id, input: { name: "Echidna 针鼹 torch" }) { id } }', { id });
    const after = await postings();
    const moved = [...after.values()].filter((r) => before.get(r.token)?.ctid !== r.ctid).map((r) => r.token);
    expect(moved).toContain('torch');
    // `lamp` is left in the description only: its tier moved, and its row with it.
    expect(after.get('lamp')!.tier).toBeGreaterThan(before.get('lamp')!.tier);
    expect(moved).toContain('lamp');
    // `echidna` is still a word of the name, at the same tier: untouched.
    expect(after.get('echidna')).toEqual(before.get('echidna'));
    expect(moved.length).toBeLessThan(after.size / 2);

    // What a rewrite from nothing gives is what the edits left.
    const kept = [...after.values()].map(({ ctid: _, ...r }) => r).sort((x, y) => x.token.localeCompare(y.token));
    await app.db.sql.query('DELETE FROM search_postings WHERE item_id = $1', [id]);
    await indexItems(app.db.prisma, [id]);
    const rebuilt = [...(await postings()).values()]
      .map(({ ctid: _, ...r }) => r)
      .sort((x, y) => x.token.localeCompare(y.token));
    expect(kept).toEqual(rebuilt);
  });

  it('when an item has lost its postings, then the one-word answer misses it and the general one does not (the index is what answers)', async () => {
    const [id] = (await page('a', '', 100)).ids;
    await app.db.sql.query('DELETE FROM search_postings WHERE item_id = $1', [id]);
    // Limit 99: answers not asked for before, so none comes from the catalogue cache.
    expect((await page('a', '&min_price=0', 99)).ids).toContain(id);
    expect((await page('a', '', 99)).ids).not.toContain(id);
  });
});
