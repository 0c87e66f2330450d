/**
 * Contract §7.6: a kept answer is served only for the request it was made for. Its key must cover
 * everything that changes the answer's bytes — the root field's arguments, and the operation's other
 * variables (`facets`), path parameters and REST-only parameters (`spec`). For every public read route
 * and every parameter it reads (derived from the route table, so a new parameter fails here until it
 * has a variation), two requests that differ in that parameter alone must each get their own answer,
 * whichever was kept first.
 */
import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restRoutes } from '../../src/rest/routes.ts';
import { snakeCase } from '../../src/validation/field-errors.ts';
import { makeCategory, makeItem } from '../helpers/catalog.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

/** Per route path, per parameter: two values (undefined: left out) whose answers differ. */
const VARIATIONS: Record<string, Record<string, [string | undefined, string | undefined]>> = {
  '/api/v1/items': {
    page: ['1', '2'],
    limit: ['1', '2'],
    category_id: [undefined, 'CATEGORY'],
    keyword: [undefined, 'boot'],
    sort: ['newest', 'price_asc'],
    min_price: [undefined, '100'],
    max_price: [undefined, '100'],
    in_stock: ['false', 'true'],
    spec: [undefined, 'color:red'],
    facets: [undefined, 'true'],
  },
  '/api/v1/items/:id': { id: ['ITEM', 'OTHER_ITEM'] },
  '/api/v1/categories': {},
  '/api/v1/search/suggestions': { q: ['boo', 'run'], limit: ['1', '8'] },
};

/** Held fixed while another parameter varies. */
const BASE: Record<string, Record<string, string>> = {
  '/api/v1/items': { limit: '2' },
  '/api/v1/search/suggestions': { q: 'r' },
};

/** The parameters a route reads: its path's, its operation's variables (REST names) and its documented extras. */
function parametersOf(route: (typeof restRoutes)[number]): string[] {
  const fromPath = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
  const op = parse(route.document).definitions[0] as {
    variableDefinitions?: Array<{ variable: { name: { value: string } } }>;
  };
  const replaced = new Set((route.queryParameters ?? []).map((p) => p.replaces).filter(Boolean));
  const fromVariables = (op.variableDefinitions ?? [])
    .map((d) => snakeCase(d.variable.name.value))
    .filter((name) => !replaced.has(name) && !fromPath.includes(name));
  const documented = (route.queryParameters ?? []).map((p) => p.name);
  return [...new Set([...fromPath, ...fromVariables, ...documented])].sort();
}

const publicReads = restRoutes.filter((r) => r.publicRead && r.method === 'GET');

let app: TestApp;
const stand: Record<string, string> = {};
beforeAll(async () => {
  app = await startTestApp({ SEED_DEMO: 'true', CATALOG_CACHE_MB: '64' });
  const category = await makeCategory(app, { name: 'Answer keys' });
  // A sold-out item, so `in_stock` changes the answer; a second category holding it, so `category_id` does.
  const soldOut = await makeItem(app, { categoryId: category.id, name: 'Sold-out boot', price: '5.00', stock: 0 });
  stand.CATEGORY = String(category.id);
  stand.ITEM = String(soldOut.id);
  stand.OTHER_ITEM = String(soldOut.id - 1);
});
afterAll(() => app.close());

function urlOf(path: string, params: Record<string, string | undefined>): string {
  let url = path;
  const query = new URLSearchParams();
  for (const [name, raw] of Object.entries(params)) {
    if (raw === undefined) continue;
    const value = stand[raw] ?? raw;
    if (url.includes(`:${name}`)) url = url.replace(`:${name}`, encodeURIComponent(value));
    else query.append(name, value);
  }
  const q = query.toString();
  return q ? `${url}?${q}` : url;
}

/** The answer as made now: the kept answers are dropped first (a catalogue notification ends their generation). */
async function fresh(url: string): Promise<string> {
  await app.catalogNotificationsHeard();
  const res = await app.request(url);
  expect(res.status, `${url}: ${res.text}`).toBe(200);
  return res.text;
}

describe('the answer cache keys every input of a public read', () => {
  it('when the route table is read, then every public read route and each of its parameters has a variation here', () => {
    expect(publicReads.map((r) => r.path).sort()).toEqual(Object.keys(VARIATIONS).sort());
    for (const route of publicReads) {
      expect({ route: route.path, parameters: parametersOf(route) }).toEqual({
        route: route.path,
        parameters: Object.keys(VARIATIONS[route.path]!).sort(),
      });
    }
  });

  for (const [path, parameters] of Object.entries(VARIATIONS)) {
    for (const [name, [a, b]] of Object.entries(parameters)) {
      it(`when ${path} differs only in ${name}, then each request gets its own answer, whichever was kept first`, async () => {
        // What the route needs besides (suggestions' `q`), and a short page for `page` to differ on.
        const { [name]: _, ...base } = BASE[path] ?? {};
        const first = urlOf(path, { ...base, [name]: a });
        const second = urlOf(path, { ...base, [name]: b });
        const [answerA, answerB] = [await fresh(first), await fresh(second)];
        expect(answerA, `${first} and ${second} answer alike: not a variation`).not.toBe(answerB);
        // Each kept first, then the other asked for: the other's own answer, never the kept one.
        for (const [kept, asked, expected] of [
          [first, second, answerB],
          [second, first, answerA],
        ] as const) {
          await fresh(kept);
          const res = await app.request(asked);
          expect({ kept, asked, body: res.text }).toEqual({ kept, asked, body: expected });
        }
      });
    }
  }
});
