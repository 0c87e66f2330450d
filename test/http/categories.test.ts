import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectDefined } from '../helpers/expect-defined.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
  // Inserted out of order on purpose: the response must sort by sort_order, then id.
  const shoes = await app.db.prisma.category.create({ data: { name: 'Shoes', sortOrder: 2 } });
  await app.db.prisma.category.create({ data: { name: 'Boots', parentId: shoes.id, sortOrder: 0 } });
  await app.db.prisma.category.create({ data: { name: '电子产品', sortOrder: 1 } });
  await app.db.prisma.category.create({ data: { name: 'Running', parentId: shoes.id, sortOrder: 2 } });
});
afterAll(() => app.close());

describe('GET /api/v1/categories', () => {
  it('when called without a token, then it lists every category in the contract shape, by sort_order then id', async () => {
    const res = await app.request('/api/v1/categories');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const ids = await app.db.prisma.category.findMany({ orderBy: { id: 'asc' } });
    const [shoes, boots, cjk, running] = ids;
    expectDefined(shoes);
    expectDefined(boots);
    expectDefined(cjk);
    expectDefined(running);
    expect(res.body).toEqual({
      categories: [
        { id: boots.id, name: 'Boots', parent_id: shoes.id, sort_order: 0 },
        { id: cjk.id, name: '电子产品', parent_id: null, sort_order: 1 },
        { id: shoes.id, name: 'Shoes', parent_id: null, sort_order: 2 },
        { id: running.id, name: 'Running', parent_id: shoes.id, sort_order: 2 },
      ],
    });
  });

  it('when an Authorization header is sent, then it is ignored (public read)', async () => {
    const res = await app.request('/api/v1/categories', { token: 'not-a-jwt' });
    expect(res.status).toBe(200);
    expect(res.body.categories).toHaveLength(4);
  });

  it('when HEAD is used, then it answers like GET without a body', async () => {
    const res = await fetch(`${app.url}/api/v1/categories`, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
  });

  it('when REST and GraphQL are asked, then they return the same categories field by field', async () => {
    const rest = await app.request('/api/v1/categories');
    const gql = await app.graphql('{ categories { id name parentId sortOrder } }');
    expect(gql.status).toBe(200);
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.categories).toEqual(
      rest.body.categories.map((c: any) => ({
        id: c.id,
        name: c.name,
        parentId: c.parent_id,
        sortOrder: c.sort_order,
      })),
    );
  });
});
