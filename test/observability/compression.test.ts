/**
 * Contract §7.5: answers over 1 KiB go out compressed (br or gzip) when the client accepts it, and
 * decode to exactly the uncompressed answer; answers of at most 1 KiB, and clients that accept no
 * encoding, get the identity. The catalogue's precompressed answers are not compressed twice, and
 * GraphiQL's assets go out compressed too.
 */
import http from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPRESS_OVER_BYTES } from '../../src/http/compression.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The bytes as they came over the wire (not decoded). */
  body: Buffer;
}

/** One request whose answer is read raw: fetch would decode it and hide what was sent. */
function raw(url: string, opts: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  return new Promise<RawAnswer>((resolve, reject) => {
    const req = http.request(url, { method: opts.method ?? 'GET', headers: opts.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

const decode = (a: RawAnswer) =>
  a.headers['content-encoding'] === 'br'
    ? brotliDecompressSync(a.body)
    : a.headers['content-encoding'] === 'gzip'
      ? gunzipSync(a.body)
      : a.body;

// Big enough to pass 1 KiB: the type list of the schema (introspection is on outside production).
const BIG_QUERY = JSON.stringify({ query: 'query Types { __schema { types { name kind description } } }' });

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ SEED_DEMO: 'true' });
});
afterAll(() => app?.close());

const postGraphQL = (headers: Record<string, string>) =>
  raw(`${app.url}/graphql`, {
    method: 'POST',
    body: BIG_QUERY,
    headers: { 'content-type': 'application/json', ...headers },
  });

describe('compression', () => {
  it('when a client accepts br, then a big GraphQL answer is br and decodes to the identity answer', async () => {
    const plain = await postGraphQL({});
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.length).toBeGreaterThan(COMPRESS_OVER_BYTES);
    const br = await postGraphQL({ 'accept-encoding': 'br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(br.body.length).toBeLessThan(plain.body.length);
    expect(JSON.parse(decode(br).toString())).toEqual(JSON.parse(plain.body.toString()));
  });

  it('when a client accepts gzip only, then /openapi.json is gzip and decodes to the document', async () => {
    const plain = await raw(`${app.url}/openapi.json`);
    const gz = await raw(`${app.url}/openapi.json`, { headers: { 'accept-encoding': 'gzip' } });
    expect(gz.status).toBe(200);
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(decode(gz).toString())).toEqual(JSON.parse(plain.body.toString()));
    const br = await raw(`${app.url}/openapi.json`, { headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(br.headers['content-encoding']).toBe('br');
    expect(JSON.parse(decode(br).toString())).toEqual(JSON.parse(plain.body.toString()));
  });

  it('when an answer is at most 1 KiB, then it is sent as it is even to a client that accepts br', async () => {
    const small = await raw(`${app.url}/healthz`, { headers: { 'accept-encoding': 'br, gzip' } });
    expect(small.status).toBe(200);
    expect(small.body.length).toBeLessThanOrEqual(COMPRESS_OVER_BYTES);
    expect(small.headers['content-encoding']).toBeUndefined();
    const notFound = await raw(`${app.url}/nothing-here`, { headers: { 'accept-encoding': 'br, gzip' } });
    expect(notFound.status).toBe(404);
    expect(notFound.headers['content-encoding']).toBeUndefined();
  });

  it('when the client sends no Accept-Encoding, then even a big answer is the identity', async () => {
    const plain = await raw(`${app.url}/openapi.json`);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.length).toBeGreaterThan(COMPRESS_OVER_BYTES);
    expect(() => JSON.parse(plain.body.toString())).not.toThrow();
  });

  it('when a catalogue answer is precompressed, then it is compressed once, not twice', async () => {
    const plain = await raw(`${app.url}/api/v1/items?limit=30`);
    expect(plain.body.length).toBeGreaterThan(COMPRESS_OVER_BYTES);
    for (const encoding of ['br', 'gzip']) {
      for (let i = 0; i < 2; i++) {
        // The second time from the cache, with its kept compressed form.
        const a = await raw(`${app.url}/api/v1/items?limit=30`, { headers: { 'accept-encoding': encoding } });
        expect(a.headers['content-encoding']).toBe(encoding);
        expect(JSON.parse(decode(a).toString())).toEqual(JSON.parse(plain.body.toString()));
      }
    }
  });

  it('when a browser loads GraphiQL, then the page and its assets go out compressed', async () => {
    const accept = { accept: 'text/html', 'accept-encoding': 'br, gzip' };
    const page = await raw(`${app.url}/graphql`, { headers: accept });
    expect(page.status).toBe(200);
    const html = decode(page).toString();
    const assets = [...html.matchAll(/(?:src|href)="(\/graphql\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThan(0);
    for (const asset of assets) {
      const a = await raw(`${app.url}${asset}`, { headers: { 'accept-encoding': 'br, gzip' } });
      expect(a.status, asset).toBe(200);
      expect(['br', 'gzip'], asset).toContain(a.headers['content-encoding']);
      const identity = await raw(`${app.url}${asset}`);
      expect(decode(a).equals(identity.body), asset).toBe(true);
    }
  });
});
