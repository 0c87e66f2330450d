/**
 * The front door (src/rest/front-door.ts) serves public reads before Express is entered — kept
 * answers and misses alike; everything else goes through Express. One set of assertions runs against
 * both paths, each asked twice (a miss, then a hit): the door for the route's own spelling, Express
 * for the same route in capitals (Express matches paths case-insensitively; the door reads only the
 * exact spelling) — so the two can never drift: the same status, the same headers (request id,
 * security headers, CORS and Vary, Cache-Control, ETag, Content-Type, Content-Encoding,
 * Content-Length), the same body, the same log line and the same metrics.
 */
import http from 'node:http';
import express from 'express';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { makeCategory, makeItems } from '../helpers/catalog.ts';
import { sample } from '../helpers/prometheus.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

const ORIGIN = 'https://shop.example.com';
const lines: Array<Record<string, unknown>> = [];
let app: TestApp;
let itemId: number;
/** What each lookup of the answer cache found. */
const lookups: Array<'hit' | 'miss'> = [];
/** The request ids of the requests that entered Express. */
const enteredExpress: string[] = [];

beforeAll(async () => {
  // Express copies its application's methods onto each app it makes: spied before the app is made.
  const application = express.application as unknown as {
    handle: (req: http.IncomingMessage, ...rest: unknown[]) => void;
  };
  const handle = application.handle;
  vi.spyOn(application, 'handle').mockImplementation(function (this: unknown, req, ...rest) {
    const id = req.headers['x-request-id'];
    if (typeof id === 'string') enteredExpress.push(id);
    return handle.call(this, req, ...rest);
  });
  const log = pino({ level: 'info', base: undefined }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  app = await startTestApp({ CORS_ORIGINS: ORIGIN, CATALOG_MAX_AGE: '30' }, { log });
  const category = await makeCategory(app, { name: 'Door shelf' });
  const items = await makeItems(app, category.id, 12);
  itemId = items[0]!.id;
  const cache = app.services.catalogCache;
  const answer = cache.answer.bind(cache);
  vi.spyOn(cache, 'answer').mockImplementation((key) => {
    const found = answer(key);
    lookups.push(found ? 'hit' : 'miss');
    return found;
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

/** The answer without what differs by nature between two requests (the clock, the request id: checked apart). */
const comparable = ({ status, headers, body }: RawAnswer) => {
  const { date: _date, 'x-request-id': _id, ...rest } = headers;
  return { status, headers: rest, body: body.toString('base64') };
};

const requestLines = (requestId: string) => lines.filter((l) => l.msg === 'request' && l.request_id === requestId);

/** The same request for Express: its path in capitals (the query as it is). */
const forExpress = (path: string) => {
  const queryAt = path.indexOf('?');
  return queryAt < 0 ? path.toUpperCase() : path.slice(0, queryAt).toUpperCase() + path.slice(queryAt);
};

const PASSES = ['door-miss', 'door-hit', 'express-miss', 'express-hit'] as const;

/** Asks the door twice (a miss, then a hit), then Express twice, each from an emptied cache. */
async function throughBoth(method: string, path: string, headers: Record<string, string>) {
  await app.catalogNotificationsHeard();
  lookups.length = 0;
  enteredExpress.length = 0;
  lines.length = 0;
  const answers: Record<string, RawAnswer> = {};
  for (const pass of PASSES) {
    if (pass.endsWith('miss')) app.services.catalogCache.invalidate();
    const target = pass.startsWith('door') ? path : forExpress(path);
    answers[pass] = await send(method, target, { ...headers, 'x-request-id': pass });
  }
  return answers as Record<(typeof PASSES)[number], RawAnswer>;
}

/** A log line without what differs by nature (clock, request id) or by spelling (the path). */
function lineFacts(requestId: string) {
  const found = requestLines(requestId);
  expect(found).toHaveLength(1);
  const { time: _t, duration_ms: _d, request_id: _r, path: _p, ...facts } = found[0]!;
  return facts;
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

describe('the front door answers as Express does', () => {
  for (const c of CASES) {
    it(`when ${c.name} is asked of both (a miss, then a hit), then all four answers are the same in headers, body and log line`, async () => {
      const answers = await throughBoth(c.method, c.path(), c.headers);
      expect(lookups).toEqual(['miss', 'hit', 'miss', 'hit']);
      expect(enteredExpress).toEqual(['express-miss', 'express-hit']);
      const doorMiss = answers['door-miss'];
      expect(doorMiss.status).toBe(200);
      for (const pass of PASSES) {
        const answer = answers[pass];
        expect(answer.headers['x-request-id']).toBe(pass);
        expect(comparable(answer)).toEqual(comparable(doorMiss));
        expect(lineFacts(pass)).toEqual(lineFacts('door-miss'));
      }
      const hit = answers['door-hit'];
      expect(hit.headers['x-content-type-options']).toBe('nosniff');
      expect(hit.headers['referrer-policy']).toBe('no-referrer');
      expect(hit.headers.vary).toMatch(/Origin.*Accept-Encoding/);
      expect(hit.headers['cache-control']).toBe('public, max-age=30');
      expect(hit.headers.etag).toMatch(/^"/);
      if (c.headers.origin === ORIGIN) expect(hit.headers['access-control-allow-origin']).toBe(ORIGIN);
      else expect(hit.headers['access-control-allow-origin']).toBeUndefined();
      expect(lineFacts('door-hit')).toMatchObject({
        method: c.method,
        status: 200,
        graphql_operation: expect.stringMatching(/^Rest/),
      });
    });
  }

  it('when the request names the ETag in If-None-Match, then both paths answer 304 with the same validators', async () => {
    const path = `/api/v1/items/${itemId}`;
    const etag = (await send('GET', path, {})).headers.etag as string;
    const answers = await throughBoth('GET', path, { 'if-none-match': etag });
    expect(enteredExpress).toEqual(['express-miss', 'express-hit']);
    for (const pass of PASSES) {
      expect(answers[pass].status).toBe(304);
      expect(answers[pass].body.length).toBe(0);
      expect(answers[pass].headers['x-request-id']).toBe(pass);
      expect(comparable(answers[pass])).toEqual(comparable(answers['door-miss']));
    }
  });

  it('when the cache is off, then the door still answers the read as Express does, and keeps nothing', async () => {
    const off = await startTestApp({ CATALOG_CACHE_MB: '0' });
    try {
      const [item] = await makeItems(off, (await makeCategory(off, { name: 'Uncached' })).id, 1);
      const path = `/api/v1/items/${item!.id}`;
      const found: unknown[] = [];
      const answer = off.services.catalogCache.answer.bind(off.services.catalogCache);
      vi.spyOn(off.services.catalogCache, 'answer').mockImplementation((key) => {
        found.push(answer(key));
        return found.at(-1) as ReturnType<typeof answer>;
      });
      const byDoor = await fetch(`${off.url}${path}`);
      await fetch(`${off.url}${path}`);
      const byExpress = await fetch(`${off.url}${forExpress(path)}`);
      // Each read looked for a kept answer and found none: nothing was kept.
      expect(found).toEqual([undefined, undefined, undefined]);
      expect(byDoor.status).toBe(200);
      expect(await byDoor.json()).toEqual(await byExpress.json());
      expect(byDoor.headers.get('etag')).toBe(byExpress.headers.get('etag'));
      expect(byDoor.headers.get('cache-control')).toBe(byExpress.headers.get('cache-control'));
    } finally {
      await off.close();
    }
  });

  it('when requests are counted, then the front door’s land in the same series as Express’s', async () => {
    const path = `/api/v1/items/${itemId}`;
    const labels = { method: 'GET', route: '/api/v1/items/:id', status: '200' };
    const count = async () =>
      sample((await send('GET', '/metrics', {})).body.toString(), 'http_requests_total', labels) ?? 0;
    const before = await count();
    await throughBoth('GET', path, {});
    const after = await count();
    expect(after - before).toBe(4);
  });

  it('when the door’s read ends in an error, then Express answers that error without running the read again', async () => {
    const operations = async () =>
      sample((await send('GET', '/metrics', {})).body.toString(), 'graphql_operations_total', {
        field: 'item',
        type: 'query',
      }) ?? 0;
    const before = await operations();
    const answers = await throughBoth('GET', '/api/v1/items/2147483000', {});
    expect(await operations()).toBe(before + 4); // one execution per request: no answer is kept
    expect(enteredExpress).toEqual([...PASSES]);
    // The same problem and headers but for the request id (whose length the body's length follows).
    const facts = ({ status, headers, body }: RawAnswer) => {
      const { date: _d, 'x-request-id': _i, 'content-length': _l, ...rest } = headers;
      const { request_id: _r, ...problem } = JSON.parse(body.toString());
      return { status, headers: rest, problem };
    };
    for (const pass of PASSES) {
      const answer = answers[pass];
      expect(answer.status).toBe(404);
      expect(JSON.parse(answer.body.toString())).toMatchObject({ code: 'NOT_FOUND', request_id: pass });
      expect(facts(answer)).toEqual(facts(answers['door-miss']));
      const { bytes: _b, ...line } = lineFacts(pass);
      expect(line).toMatchObject({ status: 404, route: '/api/v1/items/:id', graphql_operation: 'RestItem' });
      expect(lineFacts('door-miss')).toMatchObject(line);
    }
  });
});

describe('what the front door leaves to Express', () => {
  it('when the input is refused, the method is another or the path odd, then Express answers as always', async () => {
    enteredExpress.length = 0;
    const refused = await send('GET', '/api/v1/items?limit=500', { 'x-request-id': 'refused' });
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body.toString()).errors[0].field).toBe('limit');
    expect((await send('POST', '/api/v1/categories', { 'x-request-id': 'post' })).status).toBe(405);
    expect((await send('GET', '/api/v1/items/abc', { 'x-request-id': 'abc' })).status).toBe(404);
    expect((await send('GET', '/api/v1/categories', { 'x-request-id': 'plain' })).status).toBe(200);
    expect(enteredExpress).toEqual(['refused', 'post', 'abc']);
  });
});
