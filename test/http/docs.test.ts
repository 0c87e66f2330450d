import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HTTP_STATUS } from '../../src/errors/app-error.ts';
import { restRoutes } from '../../src/rest/routes.ts';
import { documentOf, expectDocumentedResponse, operationsOf } from '../helpers/openapi.ts';
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
    const urls = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(urls.length).toBeGreaterThan(0);
    for (const url of urls) {
      expect(url.startsWith('/')).toBe(true);
      expect((await app.request(url)).status).toBe(200);
    }
  });

  it('when the document is checked by an OpenAPI 3.1 validator, then it is valid and every $ref resolves', async () => {
    const doc = await documentOf(app);
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors ?? [], JSON.stringify(result.errors)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(10);
    for (const name of refs) expect(doc.components.schemas[name], name).toBeDefined();
  });

  it('when the answers are documented, then they are named schemas referenced with $ref', async () => {
    const doc = await documentOf(app);
    const names = Object.keys(doc.components.schemas);
    for (const name of ['Item', 'ItemPage', 'Category', 'Sku', 'Image', 'User', 'Admin', 'Problem'])
      expect(names, name).toContain(name);
    for (const name of ['CustomerAuth', 'AdminAuth', 'TokenPayload']) expect(names, name).toContain(name);
    const success = (path: string, method: string, status: string) =>
      doc.paths[path][method].responses[status].content['application/json'].schema;
    expect(success('/api/v1/items', 'get', '200')).toEqual({ $ref: '#/components/schemas/ItemPage' });
    expect(success('/api/v1/items/{id}', 'get', '200')).toEqual({ $ref: '#/components/schemas/Item' });
    expect(success('/admin/api/items', 'post', '201')).toEqual({ $ref: '#/components/schemas/Item' });
    expect(success('/api/v1/auth/login', 'post', '200')).toEqual({ $ref: '#/components/schemas/CustomerAuth' });
    expect(success('/admin/api/auth/login', 'post', '200')).toEqual({ $ref: '#/components/schemas/AdminAuth' });
    expect(success('/api/v1/auth/refresh', 'post', '200')).toEqual({ $ref: '#/components/schemas/TokenPayload' });
    const item = doc.components.schemas.Item;
    expect(item.properties.skus.items).toEqual({ $ref: '#/components/schemas/Sku' });
    expect(item.properties.images.items).toEqual({ $ref: '#/components/schemas/Image' });
    expect(doc.components.schemas.ItemPage.properties.items.items).toEqual({ $ref: '#/components/schemas/Item' });
    expect(doc.components.schemas.CustomerAuth.properties.user).toEqual({ $ref: '#/components/schemas/User' });
    expect(doc.components.schemas.AdminAuth.properties.admin).toEqual({ $ref: '#/components/schemas/Admin' });
    // The full category is the one GET /api/v1/categories lists; an item embeds a shorter one.
    expect(Object.keys(doc.components.schemas.Category.properties)).toEqual(['id', 'name', 'parent_id', 'sort_order']);
  });

  it('when query parameters are documented, then each has one type, a description, its bounds and default', async () => {
    const doc = await documentOf(app);
    const params = Object.fromEntries(
      doc.paths['/api/v1/items'].get.parameters.map((p: any) => [p.name, p] as const),
    ) as Record<string, any>;
    expect(params.page.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 2147483647, default: 1 });
    expect(params.limit.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 20 });
    expect(params.category_id.schema).toMatchObject({ type: 'integer', minimum: 1 });
    expect(params.keyword.schema).toMatchObject({ type: 'string', maxLength: 100 });
    for (const { operation } of operationsOf(doc)) {
      for (const p of operation.parameters ?? []) {
        expect(p.schema.anyOf, `${p.name}: no union with null`).toBeUndefined();
        expect(typeof p.schema.type, p.name).toBe('string');
        expect(p.description, p.name).toMatch(/\w/);
        if (p.schema.type === 'integer') expect(p.schema.minimum, p.name).toBeTypeOf('number');
      }
    }
  });

  it('when POST /admin/api/items is documented, then the Idempotency-Key header is declared with its rules', async () => {
    const doc = await documentOf(app);
    const header = doc.paths['/admin/api/items'].post.parameters.find((p: any) => p.in === 'header');
    expect(header).toMatchObject({
      name: 'Idempotency-Key',
      required: false,
      schema: { type: 'string', minLength: 1, maxLength: 255 },
    });
    expect(header.description).toMatch(/24 h/);
    expect(header.description).toMatch(/409 IDEMPOTENCY_CONFLICT/);
    expect(doc.paths['/admin/api/items'].post.responses['201'].headers.Location).toBeDefined();
  });

  it('when errors are documented, then each status has examples whose code belongs to that status', async () => {
    const doc = await documentOf(app);
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    const problem = ajv.compile(doc.components.schemas.Problem);
    const codesOf = (path: string, method: string, status: number) =>
      Object.keys(
        doc.paths[path][method].responses[String(status)]?.content['application/problem+json'].examples ?? {},
      );
    for (const { method, template, operation } of operationsOf(doc)) {
      for (const [status, response] of Object.entries(operation.responses as Record<string, any>)) {
        if (Number(status) < 400) continue;
        const examples = Object.entries(response.content['application/problem+json'].examples as Record<string, any>);
        expect(examples.length, `${method} ${template} ${status}`).toBeGreaterThan(0);
        for (const [code, { value }] of examples) {
          expect(HTTP_STATUS[code as keyof typeof HTTP_STATUS], `${method} ${template}: ${code} under ${status}`).toBe(
            Number(status),
          );
          expect(value).toMatchObject({ status: Number(status), code });
          expect(problem(value), JSON.stringify(problem.errors)).toBe(true);
        }
      }
    }
    const items = '/admin/api/items';
    expect(codesOf(items, 'post', 400)).toEqual(expect.arrayContaining(['VALIDATION_FAILED', 'MALFORMED_JSON']));
    expect(codesOf(items, 'post', 401)).toEqual(
      expect.arrayContaining(['UNAUTHENTICATED', 'TOKEN_INVALID', 'TOKEN_EXPIRED']),
    );
    expect(codesOf(items, 'post', 403)).toEqual(['ACCOUNT_DISABLED', 'FORBIDDEN']);
    expect(codesOf(items, 'post', 409)).toEqual(['IDEMPOTENCY_CONFLICT']);
    expect(codesOf(items, 'post', 413)).toEqual(['PAYLOAD_TOO_LARGE']);
    expect(codesOf(items, 'post', 415)).toEqual(['UNSUPPORTED_MEDIA_TYPE']);
    expect(codesOf('/api/v1/items/{id}', 'get', 404)).toEqual(['NOT_FOUND']);
    expect(codesOf('/api/v1/items', 'get', 400)).toEqual(['VALIDATION_FAILED']);
    expect(codesOf('/api/v1/auth/login', 'post', 401)).toEqual(['INVALID_CREDENTIALS']);
    expect(codesOf('/api/v1/auth/login', 'post', 429)).toEqual(['RATE_LIMITED']);
    expect(codesOf('/api/v1/auth/refresh', 'post', 401)).toEqual(expect.arrayContaining(['TOKEN_REVOKED']));
    expect(codesOf('/api/v1/auth/wx-login', 'post', 503)).toEqual(
      expect.arrayContaining(['WX_LOGIN_NOT_CONFIGURED', 'UPSTREAM_UNAVAILABLE', 'SERVICE_UNAVAILABLE']),
    );
    expect(codesOf('/api/v1/categories', 'get', 500)).toEqual(['INTERNAL']);
    // The validation example lists what the route really reports for an empty body.
    const example = doc.paths[items].post.responses['400'].content['application/problem+json'].examples;
    expect(example.VALIDATION_FAILED.value.errors).toEqual(
      expect.arrayContaining([
        { field: 'name', message: 'is required' },
        { field: 'category_id', message: 'is required' },
      ]),
    );
  });

  it('when request examples are documented, then they match their own schemas', async () => {
    const doc = await documentOf(app);
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    (addFormats as unknown as (a: Ajv2020) => void)(ajv);
    for (const { method, template, operation } of operationsOf(doc)) {
      const body = operation.requestBody?.content['application/json'];
      if (body) {
        const validate = ajv.compile(body.schema);
        expect(validate(body.example), `${method} ${template}: ${JSON.stringify(validate.errors)}`).toBe(true);
      }
      for (const p of operation.parameters ?? []) {
        if (p.example === undefined) continue;
        const validate = ajv.compile(p.schema);
        expect(validate(p.example), `${method} ${template} ${p.name}`).toBe(true);
      }
    }
  });

  it('when /favicon.ico is requested, then a small icon comes back, cacheable for long', async () => {
    const res = await fetch(`${app.url}/favicon.ico`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/x-icon');
    expect(res.headers.get('cache-control')).toMatch(/^public, max-age=(\d{6,})$/);
    const icon = Buffer.from(await res.arrayBuffer());
    expect(icon.length).toBeLessThan(2048);
    // ICONDIR: reserved 0, type 1 (icon), one image of 16×16.
    expect([icon.readUInt16LE(0), icon.readUInt16LE(2), icon.readUInt16LE(4), icon[6], icon[7]]).toEqual([
      0, 1, 1, 16, 16,
    ]);
  });
});
