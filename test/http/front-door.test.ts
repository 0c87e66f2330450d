/**
 * The front door (src/rest/front-door.ts) serves kept catalogue answers before Express is entered;
 * everything else goes through Express. One set of assertions runs against both paths — the first
 * request of each kind is a miss (Express reads and keeps the answer), the second a hit (the door) —
 * so the two can never drift: the same status, the same headers (request id, security headers, CORS
 * and Vary, Cache-Control, ETag, Content-Type, Content-Encoding, Content-Length), the same body, the
 * same log line and the same metrics.
 */
import http from 'node:http';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { makeCategory, makeItems } from '../helpers/catalog.ts';
import { sample } from '../helpers/prometheus.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

const ORIGIN = 'https://shop.example.com';
const lines: Array<Record<string, unknown>> = [];
let app: TestApp;
let itemId: number;
/** Who answered each lookup of the answer cache: the door asks counting hits only. */
const lookups: Array<'door' | 'express'> = [];

beforeAll(async () => {
  const log = pino({ level: 'info', base: undefined }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  app = await startTestApp({ CORS_ORIGINS: ORIGIN, CATALOG_MAX_AGE: '30' }, { log });
  const category = await makeCategory(app, { name: 'Door shelf' });
  const items = await makeItems(app, category.id, 12);
  itemId = items[0]!.id;
  const cache = app.services.catalogCache;
  const answer = cache.answer.bind(cache);
  vi.spyOn(cache, 'answer').mockImplementation((key, opts) => {
    lookups.push(opts?.countMiss === false ? 'door' : 'express');
    return answer(key, opts);
  });
});
afterAll(() => app.close());

interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

function send(method: string, path: string, headers: Record<string, string>): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${app.url}${path}`, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The answer without what differs by nature between two requests (the clock). */
const comparable = ({ status, headers, body }: RawAnswer) => {
  const { date: _date, ...rest } = headers;
  return { status, headers: rest, body: body.toString('base64') };
};

const requestLines = (requestId: string) => lines.filter((l) => l.msg === 'request' && l.request_id === requestId);

/** Sends the same request twice: the first fills the cache (Express), the second is served from it (the door). */
async function missThenHit(method: string, path: string, headers: Record<string, string>) {
  await app.catalogNotificationsHeard();
  lookups.length = 0;
  const miss = await send(method, path, { ...headers, 'x-request-id': 'door-miss' });
  const hit = await send(method, path, { ...headers, 'x-request-id': 'door-hit' });
  return { miss, hit };
}

const CASES: Array<{ name: string; method: string; path: () => string; headers: Record<string, string> }> = [
  { name: 'categories', method: 'GET', path: () => '/api/v1/categories', headers: {} },
  {
    name: 'an item, from the allowed origin',
    method: 'GET',
    path: () => `/api/v1/items/${itemId}`,
    headers: { origin: ORIGIN },
  },
  {
    name: 'a list page, brotli accepted, another origin',
    method: 'GET',
    path: () => '/api/v1/items?limit=10&keyword=%20&page=1',
    headers: { 'accept-encoding': 'gzip, br', origin: 'https://evil.example.com' },
  },
  {
    name: 'a list page as HEAD, gzip only',
    method: 'HEAD',
    path: () => '/api/v1/items?limit=10',
    headers: { 'accept-encoding': 'gzip' },
  },
];

describe('a kept answer from the front door says what Express says', () => {
  for (const c of CASES) {
    it(`when ${c.name} is asked twice, then the hit (front door) equals the miss (Express) in headers, body and log line`, async () => {
      const { miss, hit } = await missThenHit(c.method, c.path(), c.headers);
      expect(lookups).toEqual(['door', 'express', 'door']);
      expect(miss.status).toBe(200);
      expect({ ...comparable(hit), headers: { ...comparable(hit).headers, 'x-request-id': 'door-miss' } }).toEqual(
        comparable(miss),
      );
      expect(hit.headers['x-request-id']).toBe('door-hit');
      expect(hit.headers['x-content-type-options']).toBe('nosniff');
      expect(hit.headers['referrer-policy']).toBe('no-referrer');
      expect(hit.headers.vary).toMatch(/Origin.*Accept-Encoding/);
      expect(hit.headers['cache-control']).toBe('public, max-age=30');
      expect(hit.headers.etag).toMatch(/^"/);
      if (c.headers.origin === ORIGIN) expect(hit.headers['access-control-allow-origin']).toBe(ORIGIN);
      else expect(hit.headers['access-control-allow-origin']).toBeUndefined();

      const [missLine] = requestLines('door-miss').slice(-1);
      const [hitLine] = requestLines('door-hit').slice(-1);
      const { time: _t1, duration_ms: _d1, request_id: _r1, ...missFacts } = missLine!;
      const { time: _t2, duration_ms: _d2, request_id: _r2, ...hitFacts } = hitLine!;
      expect(hitFacts).toEqual(missFacts);
      expect(hitFacts).toMatchObject({
        method: c.method,
        status: 200,
        graphql_operation: expect.stringMatching(/^Rest/),
      });
    });
  }

  it('when the hit names its ETag in If-None-Match, then both paths answer 304 with the same validators', async () => {
    const path = `/api/v1/items/${itemId}`;
    const { miss } = await missThenHit('GET', path, {});
    const etag = miss.headers.etag as string;
    lookups.length = 0;
    app.services.catalogCache.invalidate();
    const missing = await send('GET', path, { 'if-none-match': etag, 'x-request-id': 'same' });
    const kept = await send('GET', path, { 'if-none-match': etag, 'x-request-id': 'same' });
    expect(lookups).toEqual(['door', 'express', 'door']);
    expect(comparable(kept)).toEqual(comparable(missing));
    expect(kept.status).toBe(304);
    expect(kept.body.length).toBe(0);
  });

  it('when requests are counted, then the front door’s land in the same series as Express’s', async () => {
    const path = `/api/v1/items/${itemId}`;
    const labels = { method: 'GET', route: '/api/v1/items/:id', status: '200' };
    const count = async () =>
      sample((await send('GET', '/metrics', {})).body.toString(), 'http_requests_total', labels) ?? 0;
    const before = await count();
    await missThenHit('GET', path, {});
    const after = await count();
    expect(after - before).toBe(2);
  });
});

describe('what the front door leaves to Express', () => {
  it('when the input is refused, the method is another, the path odd or the answer not kept, then Express answers as always', async () => {
    await send('GET', '/api/v1/categories', {});
    lookups.length = 0;
    const refused = await send('GET', '/api/v1/items?limit=500', {});
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body.toString()).errors[0].field).toBe('limit');
    expect((await send('POST', '/api/v1/categories', {})).status).toBe(405);
    expect((await send('GET', '/api/v1/items/abc', {})).status).toBe(404);
    expect((await send('GET', '/API/V1/CATEGORIES', {})).status).toBe(200);
    // The limit=500 list was refused before any lookup; the upper-case path went to Express's router.
    expect(lookups).toEqual(['express']);
  });
});
