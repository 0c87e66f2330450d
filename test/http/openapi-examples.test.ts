/**
 * The request examples of /openapi.json are what "Try it out" sends from /docs: each one is sent here,
 * as documented, to a development server with the demo catalogue and the README quick tour's accounts,
 * and must get the documented success status and a body of the documented shape.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_ADMIN, DEMO_CUSTOMER } from '../../src/auth/auth.rest.ts';
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
let weChat: Server;
let doc: any;

beforeAll(async () => {
  // WeChat itself issues a mini-program's codes; this stand-in accepts any and names its user.
  weChat = createServer((req, res) => {
    const code = new URL(req.url ?? '/', 'http://127.0.0.1').searchParams.get('js_code') ?? '';
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(JSON.stringify({ openid: `o-${code.slice(0, 16)}`, session_key: 'stand-in-session-key' }));
  });
  weChat.listen(0, '127.0.0.1');
  await once(weChat, 'listening');
  app = await startTestApp({
    SEED_DEMO: 'true',
    ADMIN_USERNAME: DEMO_ADMIN.username,
    ADMIN_PASSWORD: DEMO_ADMIN.password,
    WX_APPID: 'wx-demo-appid',
    WX_SECRET: 'wx-demo-secret',
    WX_API_BASE: `http://127.0.0.1:${(weChat.address() as AddressInfo).port}`,
  });
  doc = await documentOf(app);
});
afterAll(async () => {
  await app?.close();
  weChat?.close();
});

/** The operation documented for `METHOD template`. */
const operation = (method: string, template: string): DocumentedOperation => {
  const found = operationsOf(doc).find((o) => o.method === method && o.template === template);
  expect(found, `${method} ${template} is documented`).toBeDefined();
  return found!;
};

/** Sends an operation's example as documented, with `token` when the operation needs one. */
async function sendExample(op: DocumentedOperation, token?: string, headers: Record<string, string> = {}) {
  const { path, body } = exampleRequestOf(op);
  return app.request(path, { method: op.method, body, token, headers });
}

/** A token from the documented login example of `template` (the tour's accounts). */
async function tokenFrom(template: string): Promise<string> {
  const res = await sendExample(operation('POST', template));
  expect(res.status, `${template}: ${res.text}`).toBe(200);
  return res.body.access_token;
}

describe('the request examples of /openapi.json', () => {
  it('when every documented example is sent as it stands, then it gets the documented success status', async () => {
    const adminToken = await tokenFrom('/admin/api/auth/login');
    // The register example creates the tour's customer, whom the login example then logs in.
    const register = operation('POST', '/api/v1/auth/register');
    const registered = await sendExample(register);
    expect(registered.status, registered.text).toBe(201);
    expect(registered.body.user.username).toBe(DEMO_CUSTOMER.username);
    // A fresh customer session for each operation: one of them may end its session (logout).
    const tokens: Record<string, () => Promise<string>> = {
      adminToken: async () => adminToken,
      customerToken: () => tokenFrom('/api/v1/auth/login'),
    };

    const operations = operationsOf(doc);
    expect(operations.length).toBeGreaterThanOrEqual(8);
    for (const op of operations.filter((o) => o.template !== register.template)) {
      const scheme = Object.keys(op.operation.security?.[0] ?? {})[0];
      const res = await sendExample(op, scheme ? await tokens[scheme]?.() : undefined);
      const where = `${op.method} ${op.template}`;
      expect(res.status, `${where}: ${res.text}`).toBe(successStatusOf(op.operation));
      await expectDocumentedResponse(app, op.method, op.template, res);
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
});
