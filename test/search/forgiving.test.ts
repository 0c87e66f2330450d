/**
 * Contract §9.6 through the real HTTP server: Chinese homophones, Latin typos by length (both sides
 * of each boundary: 4 | 5 letters, 8 | 9 letters, 1 | 2 edits), numbers and SKU codes as typed,
 * joined forms both ways, forgiven matches ranked after every exact one (and by the §9.1 tiers among
 * themselves), facets, totals and suggestions that follow the same matches, the zero-results counter,
 * and a catalogue write that the vocabulary follows.
 */
import damerauLevenshtein from 'damerau-levenshtein';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compiledKeyword } from '../../src/search/keyword.ts';
import { oneWordToken } from '../../src/search/postings.ts';
import { gqlCode, loginAsAdmin } from '../helpers/accounts.ts';
import { makeCategory, makeItem } from '../helpers/catalog.ts';
import { expectCountsAreTotals, type ListQuery, listItems } from '../helpers/facet-counts.ts';
import { sample } from '../helpers/prometheus.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

let app: TestApp;
let admin: string;
const cats = new Map<string, number>();
const ids = new Map<string, number>();

/** Items created one second apart in this order (a later one is newer). */
let clock = Date.parse('2026-02-01T00:00:00.000Z');
const at = () => new Date((clock += 1000)).toISOString();

async function item(name: string, category: string, extra: Partial<Parameters<typeof makeItem>[1]> = {}) {
  const made = await makeItem(app, { categoryId: cats.get(category)!, name, createdAt: at(), ...extra });
  ids.set(name, made.id);
}

beforeAll(async () => {
  app = await startTestApp();
  admin = await loginAsAdmin(app);
  for (const name of ['Gear', '耳机', '球类', 'T-shirts', 'Power'])
    cats.set(name, (await makeCategory(app, { name })).id);
  await item('Trail boot', 'Gear', { price: '129.00', skus: [{ skuCode: 'TB-42', specs: { size: '42' } }] });
  await item('Headlamp 400 lumen', 'Gear', { price: '34.95' });
  await item('Waterproof backpack', 'Gear', { price: '89.00', stock: 0 });
  await item('Trial kit', 'Gear', { price: '15.00' });
  await item('Summit lantern', 'Gear', { price: '45.00' });
  // Newest of the forgiven ones for `trial`, yet found only in its description: it ranks last.
  await item('Camp stool', 'Gear', {
    price: '25.00',
    description: 'Light enough for any trail.',
    // The word `s`: `summit` must not split into `s` + `ummit` (a piece of a name, not a word's start).
    skus: [{ skuCode: 'CS-1', specs: { size: 'S' } }],
  });
  await item('蓝牙耳机 Pro', '耳机', { price: '1499.00' });
  await item('篮球 训练款', '球类', { price: '199.00' });
  await item('Cotton t-shirt', 'T-shirts', { price: '29.00' });
  await item('Logo tshirt', 'T-shirts', { price: '35.00' });
  await item('Power bank 20000', 'Power', {
    price: '99.00',
    skus: [{ skuCode: 'PBX55555', specs: { color: 'black' } }],
  });
});
afterAll(() => app.close());

const search = async (keyword: string, query: ListQuery = {}) => {
  const res = await listItems(app, { keyword, limit: 50, ...query });
  expect(res.status, res.text).toBe(200);
  return res.body.items.map((i: { name: string }) => i.name) as string[];
};
const suggest = async (q: string) => {
  const res = await app.request(`/api/v1/search/suggestions?q=${encodeURIComponent(q)}&limit=10`);
  expect(res.status, res.text).toBe(200);
  return res.body.suggestions.map((s: { text: string }) => s.text) as string[];
};
/** The precondition of a boundary test: the typed word is this many edits (Damerau) from the word. */
const edits = (typed: string, word: string) => damerauLevenshtein(typed, word).steps;

describe('Chinese homophones (contract §9.6)', () => {
  it('when a Chinese term matches nothing as written, then it matches words of the same toneless pinyin', async () => {
    // 芽 (ya) is held by no item: 牙 (ya) of 蓝牙 is. jieba cuts 蓝芽耳机 into 蓝 芽 耳机.
    expect(await search('蓝芽耳机')).toEqual(['蓝牙耳机 Pro']);
    // 篮牙 is cut into 篮 牙, two characters no item holds together: as one word, lanya = 蓝牙.
    expect(await search('篮牙耳机')).toEqual(['蓝牙耳机 Pro']);
    expect(await search('兰')).toEqual(['篮球 训练款', '蓝牙耳机 Pro']);
  });

  it('when a Chinese term matches as written, then it matches only so (no homophones)', async () => {
    // 篮 is in 篮球: 蓝 (lan as well) is not offered.
    expect(await search('篮')).toEqual(['篮球 训练款']);
    expect(await search('蓝牙')).toEqual(['蓝牙耳机 Pro']);
  });
});

describe('Latin typos by length (contract §9.6)', () => {
  it('when a word has 4 letters, then it matches only as typed; from 5 letters, one edit is forgiven', async () => {
    expect(edits('boto', 'boot')).toBe(1);
    expect(await search('boto')).toEqual([]);
    expect(edits('trial', 'trail')).toBe(1);
    expect(await search('trial')).toContain('Trail boot');
    // A 5-letter word one edit from a 4-letter one.
    expect(edits('boots', 'boot')).toBe(1);
    expect(await search('boots')).toEqual(['Trail boot']);
  });

  it('when a word has 5–8 letters, then insert, delete, substitute and swap are each one edit; two are not forgiven', async () => {
    expect(await search('lanterrn')).toEqual(['Summit lantern']); // insert
    expect(await search('lantrn')).toEqual(['Summit lantern']); // delete
    expect(await search('lantarn')).toEqual(['Summit lantern']); // substitute
    expect(await search('lantren')).toEqual(['Summit lantern']); // swap neighbours
    // At the first letter too (the vocabulary is read by first letter, and these separately).
    for (const typo of ['antern', 'klantern', 'kantern', 'alntern'])
      expect(await search(typo), typo).toEqual(['Summit lantern']);
    expect(edits('hedlamp', 'headlamp')).toBe(1);
    expect(await search('hedlamp')).toEqual(['Headlamp 400 lumen']);
    expect(edits('lnatren', 'lantern')).toBe(2);
    expect(await search('lnatren')).toEqual([]);
    expect(edits('hdlamp', 'headlamp')).toBe(2);
    expect(await search('hdlamp')).toEqual([]);
  });

  it('when a word has 9 or more letters, then two edits are forgiven, three are not; at 8 letters two are not', async () => {
    expect([edits('watrproff', 'waterproof'), 'watrproff'.length]).toEqual([2, 9]);
    expect(await search('watrproff')).toEqual(['Waterproof backpack']);
    expect([edits('watrprof', 'waterproof'), 'watrprof'.length]).toEqual([2, 8]);
    expect(await search('watrprof')).toEqual([]);
    expect([edits('wtrprooff', 'waterproof'), 'wtrprooff'.length]).toEqual([3, 9]);
    expect(await search('wtrprooff')).toEqual([]);
  });

  it('when a term is a number or a SKU code, then it matches only as typed', async () => {
    expect(await search('20000')).toEqual(['Power bank 20000']);
    expect(await search('20001')).toEqual([]);
    expect(await search('pbx55555')).toEqual(['Power bank 20000']);
    expect(await search('pbx55556')).toEqual([]);
  });
});

describe('joined forms (contract §9.6)', () => {
  it('when a word is typed joined, then it matches the hyphenated or spaced form, and back', async () => {
    expect(await search('tshirt')).toEqual(['Logo tshirt', 'Cotton t-shirt']);
    expect(await search('t-shirt')).toEqual(['Cotton t-shirt', 'Logo tshirt']);
    expect(await search('t shirt')).toEqual(['Cotton t-shirt', 'Logo tshirt']);
  });
});

describe('order, facets, totals, suggestions and the zero-results counter (contract §9.6)', () => {
  it('when some items match only through §9.6, then they rank after every exact match, by the §9.1 tiers among themselves', async () => {
    // Trial kit: exact. Trail boot: forgiven, in the name. Camp stool (newest): forgiven, in the description.
    expect(await search('trial')).toEqual(['Trial kit', 'Trail boot', 'Camp stool']);
    expect(await search('trial', { sort: 'newest' })).toEqual(['Camp stool', 'Trial kit', 'Trail boot']);
  });

  it('when the list has forgiven matches, then total, paging and every facet count follow the same matches', async () => {
    const res = await listItems(app, { keyword: 'trial', limit: 2 });
    expect(res.body.total).toBe(3);
    expect(res.body.total_pages).toBe(2);
    expect((await listItems(app, { keyword: 'trial', limit: 2, page: 2 })).body.items).toHaveLength(1);
    const facets = await expectCountsAreTotals(app, { keyword: 'trial' });
    expect(facets.categories).toEqual([expect.objectContaining({ name: 'Gear', count: 3 })]);
    await expectCountsAreTotals(app, { keyword: 'watrproff' });
    await expectCountsAreTotals(app, { keyword: '蓝芽耳机' });
  });

  it('when the same keyword is asked through GraphQL, then it finds what REST finds', async () => {
    const res = await app.graphql('{ items(keyword: "hedlamp") { total items { name } } }');
    expect(gqlCode(res)).toBeUndefined();
    expect(res.body.data.items).toEqual({ total: 1, items: [{ name: 'Headlamp 400 lumen' }] });
  });

  it('when suggestions are asked with a typo, a homophone or a joined word, then they offer the same matches', async () => {
    expect(await suggest('lantren')).toEqual(['Summit lantern']);
    expect(await suggest('蓝芽')).toEqual(['蓝牙耳机 Pro']);
    expect(await suggest('tshirt')).toEqual(['T-shirts', 'Logo tshirt', 'Cotton t-shirt']);
    expect(await suggest('boto')).toEqual([]);
  });

  it('when a search finds nothing after these rules, then shop_search_zero_results_total counts it; a forgiven find does not', async () => {
    const counted = async () => sample((await app.request('/metrics')).text, 'shop_search_zero_results_total') ?? 0;
    const before = await counted();
    expect(await search('lantren')).toEqual(['Summit lantern']);
    expect(await counted()).toBe(before);
    expect(await search('qxzvwk')).toEqual([]);
    expect(await counted()).toBe(before + 1);
  });
});

describe('what forgiving costs', () => {
  it('when a word has no neighbour in the catalogue, then it gains no spelling, and the one-word index still answers it', async () => {
    for (const keyword of ['summit', 'waterproof', 'lantern', 'kit', '蓝牙', 'boot']) {
      const compiled = compiledKeyword(keyword);
      expect(await app.services.forgiving.forgive(app.db.sql, compiled), keyword).toBe(compiled);
      expect(oneWordToken(compiled), keyword).toBe(keyword);
    }
    // The last term matches the words it starts as typed: `lanter` → lantern needs no spelling.
    const started = compiledKeyword('lanter');
    expect(await app.services.forgiving.forgive(app.db.sql, started)).toBe(started);
    expect(await search('lanter')).toEqual(['Summit lantern']);
    // Its neighbour in the catalogue: `trial` (Trial kit) is one edit from `trail`.
    const trial = await app.services.forgiving.forgive(app.db.sql, compiledKeyword('trial'));
    expect(trial.terms[0]!.map((s) => s.atoms.map((a) => a.text).join(' '))).toEqual(['trial', 'trail']);
  });
});

describe('the vocabulary follows the catalogue', () => {
  it('when an item is renamed, then a typo of its new name finds it and one of its old name does not', async () => {
    const res = await app.graphql(
      'mutation($id: Int!) { updateItem(id: $id, input: { name: "Summit lamplighter" }) { name } }',
      { id: ids.get('Summit lantern')! },
      { token: admin },
    );
    expect(gqlCode(res)).toBeUndefined();
    await app.catalogNotificationsHeard();
    expect(await search('lamplihgter')).toEqual(['Summit lamplighter']);
    expect(await search('lantren')).toEqual([]);
  });
});
