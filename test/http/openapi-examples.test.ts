/**
 * The request examples of /openapi.json are what "Try it out" sends from /docs: each one is sent here,
 * as documented, to a development server with the demo catalogue and the README quick tour's accounts,
 * and must get the documented success status and a body of the documented shape.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_ADMIN, DEMO_CUSTOMER } from '../../src/accounts/login.rest.ts';
import {
  type DocumentedOperation,
  documentOf,
  exampleRequestOf,
  expectDocumentedResponse,
  operationsOf,
  successStatusOf,
} from '../helpers/openapi.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

let app: TestApp;
let configured: TestApp;
let weChat: Server;
let doc: any;

const TOUR_ENV = { SEED_DEMO: 'true', ADMIN_USERNAME: DEMO_ADMIN.username, ADMIN_PASSWORD: DEMO_ADMIN.password };

beforeAll(async () => {
  // WeChat itself issues a mini-program's codes; this stand-in accepts any and names its user.
  weChat = createServer((req, res) => {
    const code = new URL(req.url ?? '/', 'http://127.0.0.1').searchParams.get('js_code') ?? '';
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(JSON.stringify({ openid: `o-${code.slice(0, 16)}`, session_key: 'stand-in-session-key' }));
  });
  weChat.listen(0, '127.0.0.1');
  await once(weChat, 'listening');
  // A development server as a newcomer has it: no WeChat app configured.
  app = await startTestApp({ NODE_ENV: 'development', ...TOUR_ENV });
  configured = await startTestApp({
    ...TOUR_ENV,
    WX_APPID: 'wx-demo-appid',
    WX_SECRET: 'wx-demo-secret',
    WX_API_BASE: `http://127.0.0.1:${(weChat.address() as AddressInfo).port}`,
  });
  doc = await documentOf(app);
});
afterAll(async () => {
  await app?.close();
  await configured?.close();
  weChat?.close();
});

/** The operation documented for `METHOD template`. */
const operation = (method: string, template: string): DocumentedOperation => {
  const found = operationsOf(doc).find((o) => o.method === method && o.template === template);
  expect(found, `${method} ${template} is documented`).toBeDefined();
  return found!;
};

/** Sends an operation's example as documented, with `token` when the operation needs one. */
async function sendExample(op: DocumentedOperation, token?: string, headers: Record<string, string> = {}, to = app) {
  const example = exampleRequestOf(op);
  return to.request(example.path, {
    method: op.method,
    body: example.body,
    rawBody: example.rawBody,
    contentType: example.contentType,
    token,
    headers: { ...example.headers, ...headers },
  });
}

/** A token from the documented login example of `template` (the tour's accounts). */
async function tokenFrom(template: string, to = app): Promise<string> {
  const res = await sendExample(operation('POST', template), undefined, {}, to);
  expect(res.status, `${template}: ${res.text}`).toBe(200);
  return res.body.access_token;
}

/** What the README quick tour leaves behind: its customer registered, its item created. */
async function runTheTour(to: TestApp): Promise<void> {
  expect((await to.request('/api/v1/auth/register', { body: { ...DEMO_CUSTOMER, nickname: 'Demo' } })).status).toBe(
    201,
  );
  const admin = await tokenFrom('/admin/api/auth/login', to);
  const op = operation('POST', '/admin/api/items');
  expect(
    (
      await to.request('/admin/api/items', {
        body: exampleRequestOf(op).body,
        token: admin,
        headers: { 'idempotency-key': 'tour-boot-1' },
      })
    ).status,
  ).toBe(201);
}

describe('the request examples of /openapi.json', () => {
  it('when every documented example is sent as it stands after the README tour, then each succeeds — those that need configuration answer their documented 503', async () => {
    await runTheTour(app);
    const adminToken = await tokenFrom('/admin/api/auth/login');
    // A fresh customer session for each operation: one of them may end its session (logout).
    const tokens: Record<string, () => Promise<string>> = {
      adminToken: async () => adminToken,
      customerToken: () => tokenFrom('/api/v1/auth/login'),
    };
    const operations = operationsOf(doc);
    expect(operations.length).toBeGreaterThanOrEqual(8);
    for (const op of operations) {
      const scheme = Object.keys(op.operation.security?.[0] ?? {})[0];
      const res = await sendExample(op, scheme ? await tokens[scheme]?.() : undefined);
      const where = `${op.method} ${op.template}`;
      if (op.operation['x-needs-configuration']) {
        expect(op.operation.description, where).toMatch(/^Needs [A-Z_]+ and [A-Z_]+ set on the server/);
        expect(res.status, `${where}: ${res.text}`).toBe(503);
        expect(Object.keys(op.operation.responses['503'].content['application/problem+json'].examples)).toContain(
          res.body.code,
        );
      } else if (op.operation['x-example-answers']) {
        // A placeholder the reader replaces (a session id): as it stands, it names nothing.
        expect(res.body.code, `${where}: ${res.text}`).toBe(op.operation['x-example-answers']);
        expect(op.operation.parameters[0].description, where).toMatch(/from GET/);
      } else {
        expect(res.status, `${where}: ${res.text}`).toBe(successStatusOf(op.operation));
      }
      await expectDocumentedResponse(app, op.method, op.template, res);
    }
    // The create example carries an Idempotency-Key: sent again, it answers with the same item.
    const create = operation('POST', '/admin/api/items');
    const [first, again] = [await sendExample(create, adminToken), await sendExample(create, adminToken)];
    expect(again.body.id).toBe(first.body.id);
  });

  it('when WX_APPID and WX_SECRET are set, then the examples that need them succeed too', async () => {
    const needing = operationsOf(doc).filter((o) => o.operation['x-needs-configuration']);
    expect(needing.map((o) => o.template)).toEqual(['/api/v1/auth/wx-login']);
    for (const op of needing) {
      const res = await sendExample(op, undefined, {}, configured);
      expect(res.status, res.text).toBe(successStatusOf(op.operation));
    }
  });

  it('when the item example is sent twice with one Idempotency-Key, then the second replays the first item', async () => {
    const adminToken = await tokenFrom('/admin/api/auth/login');
    const op = operation('POST', '/admin/api/items');
    const key = { 'Idempotency-Key': `docs-example-${Date.now()}` };
    const first = await sendExample(op, adminToken, key);
    const again = await sendExample(op, adminToken, key);
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.body.id).toBe(first.body.id);
    expect(again.headers.get('location')).toBe(`/api/v1/items/${first.body.id}`);
    // The documented rules of the header hold: at most 255 characters.
    const tooLong = await sendExample(op, adminToken, { 'Idempotency-Key': 'k'.repeat(256) });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.code).toBe('VALIDATION_FAILED');
  });

  it('when the list example is sent, then it shows demo items of the documented page size', async () => {
    const op = operation('GET', '/api/v1/items');
    const res = await sendExample(op);
    expect(res.status).toBe(200);
    expect(res.body.limit).toBe(5);
    expect(res.body.items).toHaveLength(5);
  });

  it('when a REST page describes its parameters, then it names them as REST does: no camelCase spelling of a REST name', () => {
    const restNames = new Set<string>();
    const texts: string[] = [];
    const walk = (node: unknown, key?: string) => {
      if (Array.isArray(node)) {
        for (const n of node) walk(n);
        return;
      }
      if (!node || typeof node !== 'object') {
        if (typeof node === 'string' && (key === 'description' || key === 'summary')) texts.push(node);
        return;
      }
      const o = node as Record<string, unknown>;
      if (typeof o.name === 'string' && typeof o.in === 'string') restNames.add(o.name);
      if (o.properties && typeof o.properties === 'object') for (const k of Object.keys(o.properties)) restNames.add(k);
      for (const [k, v] of Object.entries(o)) walk(v, k);
    };
    walk(doc);
    const camel = [...restNames]
      .filter((n) => n.includes('_'))
      .map((n) => n.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase()));
    expect(camel).toContain('maxPrice');
    const offending = texts.filter((t) => camel.some((c) => new RegExp(`\\b${c}\\b`).test(t)));
    expect(offending).toEqual([]);
  });
});
