/**
 * Contract §9.2's test of every count: each facet count equals the `total` the list answers with that
 * facet's own filter replaced by that choice.
 */
import { expect } from 'vitest';
import { expectDocumentedResponse } from './openapi.ts';
import type { ApiResponse, TestApp } from './test-app.ts';

export type ListQuery = Record<string, string | number | boolean | string[]>;

/** `GET /api/v1/items` with `query` (arrays as repeated parameters). */
export function listItems(app: TestApp, query: ListQuery): Promise<ApiResponse> {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) for (const one of [v].flat()) params.append(k, String(one));
  return app.request(`/api/v1/items?${params}`);
}

/** Asks `query` with facets and checks every count against the list's totals; returns the facets. */
export async function expectCountsAreTotals(app: TestApp, query: ListQuery) {
  const list = (q: ListQuery) => listItems(app, q);
  const res = await list({ ...query, facets: true, limit: 1 });
  expect(res.status, res.text).toBe(200);
  await expectDocumentedResponse(app, 'GET', '/api/v1/items', res);
  const { facets } = res.body;
  const total = async (q: ListQuery) => (await list({ ...q, limit: 1 })).body.total;
  for (const c of facets.categories) {
    expect(c.count, `category ${c.name}`).toBe(await total({ ...query, category_id: c.id }));
    expect(c.count).toBeGreaterThan(0);
  }
  if (facets.price) {
    const last = facets.price.buckets.at(-1);
    for (const b of facets.price.buckets) {
      const max = b === last ? facets.price.max : (Math.round(b.to * 100) - 1) / 100;
      const { min_price: _a, max_price: _b, ...others } = query;
      expect(b.count, `bucket ${b.from}`).toBe(await total({ ...others, min_price: b.from, max_price: max }));
    }
  }
  for (const s of facets.specs) {
    const others = [query.spec ?? []]
      .flat()
      .map(String)
      .filter((x) => !String(x).toLowerCase().trim().startsWith(`${s.name.toLowerCase()}:`));
    for (const v of s.values) {
      expect(v.count, `${s.name}:${v.value}`).toBe(
        await total({ ...query, spec: [...others, `${s.name}:${v.value}`] }),
      );
    }
  }
  expect(facets.in_stock).toBe(await total({ ...query, in_stock: true }));
  return facets;
}
