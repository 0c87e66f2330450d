/**
 * Checks real responses against the service's own /openapi.json, so the document and the routes
 * are held to each other by every test that uses it.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expect } from 'vitest';
import type { ApiResponse, TestApp } from './test-app.ts';

const validators = new WeakMap<TestApp, Promise<any>>();

async function documentOf(app: TestApp): Promise<any> {
  let doc = validators.get(app);
  if (!doc) {
    doc = app.request('/openapi.json').then((r) => r.body);
    validators.set(app, doc);
  }
  return doc;
}

/** Asserts that `res` is a documented response of `METHOD /path/{template}` and matches its schema. */
export async function expectDocumentedResponse(app: TestApp, method: string, template: string, res: ApiResponse) {
  const doc = await documentOf(app);
  const operation = doc.paths[template]?.[method.toLowerCase()];
  expect(operation, `${method} ${template} is in /openapi.json`).toBeDefined();
  const documented = operation.responses[String(res.status)];
  expect(documented, `${res.status} is documented for ${method} ${template}`).toBeDefined();
  const [mediaType, { schema }] = Object.entries(documented.content as Record<string, { schema: object }>)[0];
  expect(res.headers.get('content-type')).toContain(mediaType);
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addSchema({ $id: 'doc', components: doc.components });
  const validate = ajv.compile({ ...schema, $id: undefined, components: doc.components } as object);
  const ok = validate(res.body);
  expect(validate.errors ?? [], JSON.stringify(validate.errors)).toEqual([]);
  expect(ok).toBe(true);
}
