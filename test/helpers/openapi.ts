/**
 * Checks real responses against the service's own /openapi.json, so the document and the routes
 * are held to each other by every test that uses it.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expect } from 'vitest';
import { expectDefined } from './expect-defined.ts';
import type { ApiResponse, TestApp } from './test-app.ts';

const validators = new WeakMap<TestApp, Promise<any>>();

/** The app's /openapi.json, fetched once per app. */
export async function documentOf(app: TestApp): Promise<any> {
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
  if (!documented.content) {
    expect(res.text, `${res.status} of ${method} ${template} has no body`).toBe('');
    return;
  }
  // The documented media type the answer came as (a file route documents several).
  const contentType = res.headers.get('content-type') ?? '';
  const content = Object.entries(documented.content as Record<string, { schema: object }>).find(([mediaType]) =>
    contentType.startsWith(mediaType),
  );
  expectDefined(content, `${res.status} of ${method} ${template} documents a body of type ${contentType}`);
  const [mediaType, { schema }] = content;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addSchema({ $id: 'doc', components: doc.components });
  const validate = ajv.compile({ ...schema, $id: undefined, components: doc.components } as object);
  // A JSON answer is checked as the value it holds; any other (a CSV file) as its text.
  const ok = validate(/^application\/(problem\+)?json$/.test(mediaType) ? res.body : res.text);
  expect(validate.errors ?? [], JSON.stringify(validate.errors)).toEqual([]);
  expect(ok).toBe(true);
}

export interface DocumentedOperation {
  method: string;
  /** The path template as documented (`/api/v1/items/{id}`). */
  template: string;
  operation: any;
}

/** Every operation of the document, in its order. */
export function operationsOf(doc: any): DocumentedOperation[] {
  return Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([template, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ method: method.toUpperCase(), template, operation })),
  );
}

/** The documented success status of an operation (its one 2xx response). */
export function successStatusOf(operation: any): number {
  const statuses = Object.keys(operation.responses).filter((s) => /^2\d\d$/.test(s));
  expect(statuses, `${operation.operationId} documents one success status`).toHaveLength(1);
  return Number(statuses[0]);
}

/** The request an operation's examples describe: the path with its example ids, query, headers and body. */
export function exampleRequestOf(op: DocumentedOperation): {
  path: string;
  body?: unknown;
  /** A file body's text, sent as `contentType`. */
  rawBody?: string;
  contentType?: string;
  headers: Record<string, string>;
} {
  const params = (op.operation.parameters ?? []) as Array<{ name: string; in: string; example?: unknown }>;
  let path = op.template;
  const query = new URLSearchParams();
  const headers: Record<string, string> = {};
  for (const p of params) {
    if (p.in === 'path') {
      expect(p.example, `${op.method} ${op.template}: path parameter ${p.name} has an example`).toBeDefined();
      path = path.replace(`{${p.name}}`, encodeURIComponent(String(p.example)));
    }
    if (p.in === 'query' && p.example !== undefined) query.set(p.name, String(p.example));
    if (p.in === 'header' && p.example !== undefined) headers[p.name] = String(p.example);
  }
  // JSON, or — a file route (an import) — the file's text under its first media type.
  const contents = Object.entries(op.operation.requestBody?.content ?? {}) as Array<[string, { example?: unknown }]>;
  const [type, content] = contents.find(([t]) => t === 'application/json') ?? contents[0] ?? [];
  if (op.operation.requestBody?.required) {
    expect(content?.example, `${op.method} ${op.template}: the request body has an example`).toBeDefined();
  }
  const search = query.toString();
  const url = search ? `${path}?${search}` : path;
  if (type && type !== 'application/json')
    return { path: url, rawBody: content?.example as string, contentType: type, headers };
  return { path: url, body: content?.example, headers };
}
