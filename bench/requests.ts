/**
 * What each scenario asks, as deterministic sequences: `requests(seed)` gives a fresh sequence, and
 * the same seed gives the same requests in the same order — so the service and the floor are
 * driven by identical sequences (one seed for the warm-up, another for the measured run).
 */

import { hasHan, pinyinWordsOf } from '../src/search/text.ts';
import { BENCH_CUSTOMER, type BenchDataset } from './data.ts';
import { rng, shuffled, zipf } from './random.ts';

export interface RequestSpec {
  method?: string;
  path: string;
  body?: string;
  headers?: Record<string, string>;
}
export type Sequence = () => RequestSpec;
export type Requests = (seed: number) => Sequence;

const ZIPF_S = 1.1;
const HOT_PAGES = 50;

/** The items by popularity: rank 0 is the hottest. A fixed shuffle of the ids, so heat does not follow age. */
export function itemsByHeat(data: BenchDataset): number[] {
  return shuffled(
    Array.from({ length: data.items }, (_, i) => i + 1),
    11,
  );
}

const GRAPHQL_ITEMS =
  'query($page:Int,$categoryId:Int){items(page:$page,categoryId:$categoryId){total totalPages page limit items{id name categoryId category{id name} price stock skus{id skuCode specs price stock} images{id url sortOrder} createdAt updatedAt}}}';

/**
 * What a shopper has typed when suggestions are asked for: a Latin word's first 2, 3 or all letters;
 * a Chinese word whole or its first character; its pinyin whole or its first 3 letters.
 */
export function typedPrefixes(words: readonly string[]): string[] {
  const typed = new Set<string>();
  for (const word of words) {
    const forms = hasHan(word) ? [word, [...word][0]!, pinyinWordsOf(word)[0]!] : [word];
    for (const form of forms) {
      if (hasHan(form)) typed.add(form);
      else for (const n of [2, 3, form.length]) typed.add(form.slice(0, n));
    }
  }
  return [...typed];
}

export function scenarioRequests(data: BenchDataset) {
  const perCategory = data.items / 40;
  const maxPage = Math.max(1, Math.floor(perCategory / 20));
  const byHeat = itemsByHeat(data);
  const itemRank = zipf(data.items, ZIPF_S);
  const pageRank = zipf(HOT_PAGES, ZIPF_S);
  const hotKeywords = shuffled(data.hotKeywords, 13);
  const keywordRank = zipf(hotKeywords.length, ZIPF_S);
  /** A fresh sequence per seed; `make(r)` builds one request from the sequence's random numbers. */
  const seq =
    (make: (r: () => number) => RequestSpec): Requests =>
    (seed) => {
      const r = rng(seed);
      return () => make(r);
    };
  const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const items = (q: string) => ({ path: `/api/v1/items?${q}` });
  const keyword = (r: () => number) => encodeURIComponent(pick(r, data.words));
  const typed = typedPrefixes(data.words);

  return {
    // ---- uniform (cache off) ----
    list: seq((r) => items(`category_id=${pick(r, data.categoryIds)}&page=${1 + Math.floor(r() * maxPage)}`)),
    list_default: seq(() => ({ path: '/api/v1/items' })),
    /** A random order and a price range 50..250 wide starting anywhere in 1..900; in stock half the time. */
    list_sorted: seq((r) => {
      const sort = pick(r, ['newest', 'price_asc', 'price_desc', 'name_asc']);
      const min = 1 + Math.floor(r() * 900);
      const max = min + 50 + Math.floor(r() * 200);
      return items(`sort=${sort}&min_price=${min}&max_price=${max}.99${r() < 0.5 ? '&in_stock=true' : ''}`);
    }),
    detail: seq((r) => ({ path: `/api/v1/items/${1 + Math.floor(r() * data.items)}` })),
    search: seq((r) => items(`keyword=${keyword(r)}`)),
    search_facets: seq((r) => items(`keyword=${keyword(r)}&facets=true`)),
    /** The floor alone: revision 2's substring search on the same keywords (issue 18's reference). */
    search_reference: seq((r) => ({ path: `/reference/items?keyword=${keyword(r)}` })),
    suggestions: seq((r) => ({ path: `/api/v1/search/suggestions?q=${encodeURIComponent(pick(r, typed))}` })),
    categories: seq(() => ({ path: '/api/v1/categories' })),
    // ---- hot: what a storefront repeats (cache on) ----
    /** Item ids Zipf-distributed (s = 1.1) over all items. */
    detail_hot: seq((r) => ({ path: `/api/v1/items/${byHeat[itemRank(r())]!}` })),
    /** Page Zipf over 1..50; half the requests unfiltered, half in a category drawn uniformly. */
    list_hot: seq((r) => {
      const page = 1 + pageRank(r());
      return r() < 0.5 ? items(`page=${page}`) : items(`category_id=${pick(r, data.categoryIds)}&page=${page}`);
    }),
    /** 50 keywords, Zipf. */
    search_hot: seq((r) => items(`keyword=${encodeURIComponent(hotKeywords[keywordRank(r())]!)}`)),
    // ---- service only ----
    graphql_items: seq((r) => ({
      method: 'POST',
      path: '/graphql',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: GRAPHQL_ITEMS,
        variables: { categoryId: pick(r, data.categoryIds), page: 1 + Math.floor(r() * maxPage) },
      }),
    })),
    login: seq(() => ({
      method: 'POST',
      path: '/api/v1/auth/login',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(BENCH_CUSTOMER),
    })),
  };
}

export type ScenarioRequests = ReturnType<typeof scenarioRequests>;
