/**
 * Caches between the service and its clients (contract §7.5, §7.6): each encoding of an answer has a
 * validator of its own, so no cache is told its gzip copy is the br one; a HEAD says what its GET
 * would; answers served many times (catalogue, Swagger UI, GraphiQL) are compressed once and kept;
 * with CORS_ORIGINS set every answer says `Vary: Origin`, whatever the request's Origin.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareBody } from '../../src/http/prepared-body.ts';
import { makeCategory, makeItems } from '../helpers/catalog.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** A request that leaves Accept-Encoding and the body exactly as the server sent them. */
function raw(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Raw> {
  return new Promise((resolve, reject) => {
    http
      .request(url, { method, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
      })
      .on('error', reject)
      .end();
  });
}

describe('representations and validators', () => {
  let app: TestApp;
  const list = () => `${app.url}/api/v1/items?limit=20`;
  beforeAll(async () => {
    app = await startTestApp({ CORS_ORIGINS: 'https://shop.example.com' });
    const category = await makeCategory(app);
    await makeItems(app, category.id, 20);
  });
  afterAll(() => app.close());

  it('when one answer is asked for in br, gzip, deflate and identity, then each has its own strong ETag, and a tag only revalidates its own coding', async () => {
    const codings = ['br', 'gzip', 'deflate', 'identity'];
    const answers = await Promise.all(codings.map((c) => raw(list(), { 'accept-encoding': c })));
    const tags = answers.map((a) => a.headers.etag as string);
    expect(new Set(tags).size).toBe(4);
    answers.forEach((a, i) => {
      expect(a.headers['content-encoding']).toBe(codings[i] === 'identity' ? undefined : codings[i]);
      expect(a.headers.vary).toMatch(/Accept-Encoding/);
      expect(tags[i]).toMatch(/^"[^"]+"$/); // strong
    });
    const [br, gzip] = tags as [string, string];
    expect((await raw(list(), { 'accept-encoding': 'br', 'if-none-match': br })).status).toBe(304);
    // A cache holding the gzip bytes must not be told they are the br answer.
    expect((await raw(list(), { 'accept-encoding': 'br', 'if-none-match': gzip })).status).toBe(200);
    const revalidated = await raw(list(), { 'accept-encoding': 'gzip', 'if-none-match': `W/${gzip}, "other"` });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.etag).toBe(gzip);
    expect(revalidated.body.length).toBe(0);
  });

  it('when HEAD asks for br, then it carries the headers of the GET: Content-Encoding, its ETag and length', async () => {
    const get = await raw(list(), { 'accept-encoding': 'br' });
    const head = await raw(list(), { 'accept-encoding': 'br' }, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    for (const name of ['content-encoding', 'etag', 'content-type', 'vary', 'cache-control']) {
      expect(head.headers[name], name).toBe(get.headers[name]);
    }
    expect(Number(head.headers['content-length'])).toBe(get.body.length);
  });

  it("when Swagger UI's bundle is asked for in br, then it is a kept representation: a length, an ETag of its coding, 304 on revalidation", async () => {
    const url = `${app.url}/docs/assets/swagger-ui-bundle.js`;
    const first = await raw(url, { 'accept-encoding': 'br' });
    expect(first.status).toBe(200);
    expect(first.headers['content-encoding']).toBe('br');
    expect(first.headers['content-type']).toMatch(/javascript/);
    expect(first.headers.etag).toMatch(/-br"$/);
    expect(Number(first.headers['content-length'])).toBe(first.body.length);
    const second = await raw(url, { 'accept-encoding': 'br' });
    expect(second.body.equals(first.body)).toBe(true);
    expect((await raw(url, { 'accept-encoding': 'br', 'if-none-match': first.headers.etag! })).status).toBe(304);
    expect((await raw(`${app.url}/docs/assets/..%2Fpackage.json`)).status).toBe(404);
    expect((await raw(`${app.url}/docs/assets/no-such-file.js`)).status).toBe(404);
  });

  it('when a client accepts only deflate, then GraphiQL and Swagger assets come deflated from the kept form', async () => {
    const page = (await raw(`${app.url}/graphql`, { accept: 'text/html' })).body.toString();
    const script = page.match(/src="(\/graphql\/assets\/graphiql\.[0-9a-f]+\.js)"/)?.[1];
    expect(script).toBeDefined();
    for (const path of [script!, '/docs/assets/swagger-ui-bundle.js']) {
      const res = await raw(app.url + path, { 'accept-encoding': 'deflate' });
      expect(res.headers['content-encoding'], path).toBe('deflate');
      expect(res.headers.etag, path).toMatch(/-deflate"$/);
      expect(Number(res.headers['content-length'])).toBe(res.body.length);
    }
  });

  it('when CORS_ORIGINS is set, then every answer says Vary: Origin — with no Origin, another one, or the allowed one', async () => {
    for (const origin of [undefined, 'https://evil.example.com', 'https://shop.example.com']) {
      for (const path of ['/api/v1/categories', '/healthz', '/no/such/path']) {
        const res = await raw(app.url + path, origin ? { origin } : {});
        expect(res.headers.vary, `${path} ${origin}`).toMatch(/\bOrigin\b/);
        expect(res.headers['access-control-allow-origin']).toBe(
          origin === 'https://shop.example.com' ? origin : undefined,
        );
      }
    }
  });
});

describe('a prepared body', () => {
  it('when it is compressed, then each coding is made once and kept', async () => {
    const prepared = prepareBody('x'.repeat(5000));
    const req = { headers: { 'accept-encoding': 'br, gzip' } } as never;
    const headers: Record<string, string> = {};
    const res = {
      getHeader: (name: string) => headers[name.toLowerCase()],
      setHeader: (name: string, value: string) => void (headers[name.toLowerCase()] = value),
      end: () => {},
    } as never;
    const { sendPrepared } = await import('../../src/http/prepared-body.ts');
    await sendPrepared(req, res, prepared, 'no-cache');
    const form = prepared.encoded?.get('br');
    expect(form).toBeDefined();
    await sendPrepared(req, res, prepared, 'no-cache');
    expect(prepared.encoded?.get('br')).toBe(form);
    expect(prepared.encoded?.size).toBe(1);
  });
});
