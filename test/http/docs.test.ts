import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restRoutes } from '../../src/http/routes.ts';
import { expectDocumentedResponse } from '../helpers/openapi.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
  await app.db.prisma.category.create({ data: { name: 'Shoes' } });
});
afterAll(() => app.close());

describe('GET /openapi.json and /docs', () => {
  it('when fetched, then the document lists every REST route of the route table', async () => {
    const res = await app.request('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    for (const route of restRoutes) {
      const path = route.path.replace(/:(\w+)/g, '{$1}');
      expect(res.body.paths[path]?.[route.method.toLowerCase()], `${route.method} ${path}`).toBeDefined();
    }
  });

  it('when a route answers, then its body matches the documented schema (success and problem)', async () => {
    await expectDocumentedResponse(app, 'GET', '/api/v1/categories', await app.request('/api/v1/categories'));
  });

  it('when /docs is opened, then Swagger UI is served from this server with no outside URL', async () => {
    const page = await app.request('/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const urls = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(urls.length).toBeGreaterThan(0);
    for (const url of urls) {
      expect(url.startsWith('/')).toBe(true);
      expect((await app.request(url)).status).toBe(200);
    }
  });
});
