/**
 * The search examples of README.md and docs/search.md, run on the demo catalogue (SEED_DEMO) through
 * the HTTP server: each `curl` of a search there is sent as written, and its answer must be what the
 * example's comment says (contract §9.6: the demo data holds every item they name). An example added
 * to either file without a claim here fails, so none goes unchecked.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResponse, startTestApp, type TestApp } from '../helpers/test-app.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ SEED_DEMO: 'true' });
});
afterAll(() => app.close());

const names = (res: ApiResponse): string[] =>
  (res.body.items ?? res.body.suggestions).map((i: { name?: string; text?: string }) => i.name ?? i.text);

/** What each example's comment says, keyed by its request (path and sorted parameters). */
const CLAIMS: Record<string, (res: ApiResponse) => Promise<void> | void> = {
  // The Quick tour's first search (test/http/readme-tour.test.ts compares its whole answer).
  '/api/v1/items?keyword=跑鞋&limit=5': (res) => expect(names(res)[0]).toBe('跑鞋 男士款'),
  '/api/v1/items?keyword=男士跑鞋': (res) => expect(names(res)).toEqual(['跑鞋 男士款']),
  '/api/v1/items?facets=true&keyword=跑鞋': (res) => {
    expect(names(res).slice(0, 2)).toEqual(['跑鞋 男士款', '轻量跑鞋 Air']);
    expect(res.body.facets.categories.map((c: { name: string }) => c.name)).toContain('Running');
  },
  '/api/v1/items?keyword=paoxie': (res) => expect(names(res)).toEqual(['轻量跑鞋 Air', '跑鞋 男士款']),
  '/api/v1/items?keyword=蓝芽耳机': (res) => expect(names(res)).toEqual(['蓝牙耳机 Pro']),
  '/api/v1/items?keyword=hedlamp': (res) => expect(names(res)).toEqual(['Headlamp 400 lumen']),
  '/api/v1/items?keyword=tshirt': async (res) => {
    const tshirts = names(await app.request('/api/v1/items?category_id=6&limit=50'));
    expect(names(res)[0]).toBe('Logo tshirt');
    expect(new Set(names(res))).toEqual(new Set(tshirts));
    expect(names(await app.request('/api/v1/items?keyword=t-shirt&limit=50')).sort()).toEqual([...tshirts].sort());
  },
  '/api/v1/items?keyword=黑色': async (res) => {
    expect(res.body.total).toBeGreaterThan(1);
    const black = await app.request('/api/v1/items?keyword=black&limit=50');
    expect(names(res).sort()).toEqual(names(black).sort());
  },
  '/api/v1/search/suggestions?limit=5&q=pao': (res) => expect(names(res)).toEqual(['轻量跑鞋 Air', '跑鞋 男士款']),
  // docs/search.md
  '/api/v1/items?keyword=篮牙耳机': (res) => expect(names(res)).toEqual(['蓝牙耳机 Pro']),
  '/api/v1/items?keyword=runer': (res) => expect(names(res)).toEqual(['Trail runner GTX']),
  '/api/v1/items?keyword=tra': (res) => expect(names(res).slice(0, 2)).toEqual(['Trail runner GTX', 'Trail boot']),
  '/api/v1/items?facets=true&spec=color:red&spec=color:blue&spec=size:42': (res) =>
    expect(names(res)).toEqual(['Trail boot']),
};

/** The search requests of `file`'s `curl` lines (a URL's query and `--data-urlencode` / `-d` parameters). */
function searchExamples(file: string): string[] {
  const text = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
  const requests: string[] = [];
  for (const line of text.split('\n')) {
    const url = /^curl .*?localhost:3000(\/api\/v1\/(?:items|search\/suggestions)[^'\s]*)/.exec(line.trim())?.[1];
    if (!url) continue;
    const [path, query] = url.split('?') as [string, string | undefined];
    const params = new URLSearchParams(query);
    const command = line.split(' # ')[0]!;
    for (const [, p] of command.matchAll(/--data-urlencode '([^']*)'/g))
      params.append(...(p!.split('=') as [string, string]));
    for (const [, p] of command.matchAll(/ -d ([^\s']+)/g)) params.append(...(p!.split('=') as [string, string]));
    if (!params.has('keyword') && !params.has('q') && !params.has('spec')) continue;
    params.sort();
    requests.push(`${path}?${decodeURIComponent(params.toString())}`);
  }
  return requests;
}

describe('the search examples of the README and docs/search.md', () => {
  const examples = [...searchExamples('README.md'), ...searchExamples('docs/search.md')];

  it('when the files are read, then every search example has a claim here and every claim an example', () => {
    expect(new Set(examples)).toEqual(new Set(Object.keys(CLAIMS)));
  });

  it.each(Object.keys(CLAIMS))(
    'when %s is sent on the demo catalogue, then it answers what its comment says',
    async (request) => {
      const res = await app.request(encodeURI(request));
      expect(res.status, res.text).toBe(200);
      await CLAIMS[request]!(res);
    },
  );
});
