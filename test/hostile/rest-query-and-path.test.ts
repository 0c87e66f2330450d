/**
 * Generated hostile query strings, path ids, methods and paths on the public REST reads (contract
 * §1, §4.1–§4.3, §7.1): repeated parameters, bracket syntax, percent-encoded NUL, invalid escapes,
 * invalid UTF-8, huge and odd numbers, ids such as `0`, `-1`, `1e3`, `99999999999`, `%00`. Reads never
 * change the database; where §4.1/§4.2 say exactly what a query or id gets (400 naming the parameter,
 * 404 for a malformed id), that is checked too.
 */
import querystring from 'node:querystring';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { INT32_MAX } from '../../src/validation/rules.ts';
import {
  currentTestName,
  exchange,
  fuzz,
  fuzzTimeout,
  jsonText,
  judgeHttp,
  runs,
  WECHAT_503,
  type WireRequest,
} from '../helpers/hostile.ts';
import {
  authStyle,
  garbageToken,
  isUnstorable,
  pathId,
  pctEncode,
  queryString,
  tokenLabel,
  wildValue,
} from './arbitraries.ts';
import { hostileSuite, PROTECTED } from './fixtures.ts';

const FILE = 'test/hostile/rest-query-and-path.test.ts';

const suite = hostileSuite('rest-query-and-path');
const { tally, ctx } = suite;

/** Any Authorization: §4.1 says reads ignore it, so it must never change the answer's kind. */
const anyAuth = fc.record({ label: tokenLabel(), style: authStyle, garbage: garbageToken });

const method = fc.oneof({ arbitrary: fc.constant('GET'), weight: 5 }, { arbitrary: fc.constant('HEAD'), weight: 1 });

/**
 * What §4.1 prescribes for a query string, as the server's parser (node:querystring, Express' simple
 * parser) decodes it: 400 when a known parameter is repeated, not storable text, too long or not an
 * integer in range; 200 when every one is plainly valid; no opinion where the contract is silent
 * (signs, leading zeros, code points vs. UTF-16 units).
 */
function expectedForList(qs: string): string[] | undefined {
  const q = querystring.parse(qs.replace(/^\?/, ''));
  let invalid = false;
  let unsure = false;
  for (const name of ['page', 'limit', 'category_id', 'keyword']) {
    const v = q[name];
    if (v === undefined) continue;
    if (Array.isArray(v)) {
      invalid = true;
      continue;
    }
    if (name === 'keyword') {
      const t = v.trim();
      if (isUnstorable(v) || [...t].length > 100) invalid = true;
      else if (t.length > 100) unsure = true;
      continue;
    }
    const max = name === 'limit' ? 100 : INT32_MAX;
    if (!/^[+-]?\d+$/.test(v)) invalid = true;
    else if (Number(v) < 1 || Number(v) > max) invalid = true;
    else if (!/^[1-9]\d*$/.test(v)) unsure = true;
  }
  return invalid ? ['400 VALIDATION_FAILED'] : unsure ? undefined : ['200'];
}

/** §4.2: an id that is a positive int32 of an existing item is 200; every other id, malformed ones included, is 404. */
function expectedForId(raw: string, existing: ReadonlySet<number>): string[] {
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    return ['404 NOT_FOUND'];
  }
  if (/^[1-9]\d{0,9}$/.test(decoded) && Number(decoded) <= INT32_MAX && existing.has(Number(decoded))) return ['200'];
  // `+1` or `01` for an existing item: the contract does not say whether that is malformed.
  if (/^\+?0*[1-9]\d*$/.test(decoded) && existing.has(Number(decoded))) return ['200', '404 NOT_FOUND'];
  return ['404 NOT_FOUND'];
}

// Each test runs its cases one after another; the timeout follows its run count (FUZZ_SCALE).
describe('hostile query strings, path ids and methods on the REST reads (seeded fast-check)', {
  timeout: fuzzTimeout(runs(600)),
}, () => {
  it('when GET /api/v1/items gets hostile query strings, then the answer is 200 or a 400 naming the parameter, and nothing changes', async () => {
    const arb = fc.record({ method, qs: queryString(['page', 'limit', 'category_id', 'keyword']), auth: anyAuth });
    await fuzz(currentTestName(), FILE, arb, runs(600), async (c) => {
      const req: WireRequest = { method: c.method, path: `/api/v1/items${c.qs}`, headers: suite.fx.authLines(c.auth) };
      const { res, verdict } = await exchange(
        ctx(),
        'GET /api/v1/items',
        req,
        (r) => judgeHttp(r, { head: c.method === 'HEAD' }),
        {
          readOnly: true,
          expected: expectedForList(c.qs),
        },
      );
      // §2: a validation failure names each parameter it refuses.
      if (c.method === 'GET' && verdict.code === 'VALIDATION_FAILED') {
        const fields = (res?.json?.errors ?? []).map((e: { field?: unknown }) => e.field);
        if (
          !fields.length ||
          !fields.every((f: unknown) => ['page', 'limit', 'category_id', 'keyword'].includes(f as string))
        ) {
          throw new Error(
            `VALIDATION_FAILED without the parameters named: ${JSON.stringify(res?.json)}\nquery: ${c.qs}`,
          );
        }
      }
    });
    const missing = tally.requireSpread('GET /api/v1/items', {
      total: runs(600),
      prescribed: runs(300),
      outcomes: [
        [/^200$/, runs(120)],
        [/^400 VALIDATION_FAILED$/, runs(120)],
      ],
    });
    expect(missing, tally.summary()).toEqual([]);
  });

  it('when GET /api/v1/items/{id} gets hostile ids, then the answer is the item or 404, and nothing changes', async () => {
    const existing = new Set([...suite.fx.ids.items, PROTECTED.itemId]);
    const arb = fc.record({
      method,
      id: fc.oneof({ arbitrary: pathId, weight: 9 }, { arbitrary: fc.constant(String(PROTECTED.itemId)), weight: 1 }),
      qs: fc.oneof({ arbitrary: fc.constant(''), weight: 4 }, { arbitrary: queryString(['id', 'page']), weight: 1 }),
      auth: anyAuth,
    });
    await fuzz(currentTestName(), FILE, arb, runs(350), async (c) => {
      const req: WireRequest = {
        method: c.method,
        path: `/api/v1/items/${c.id}${c.qs}`,
        headers: suite.fx.authLines(c.auth),
      };
      await exchange(ctx(), 'GET /api/v1/items/{id}', req, (r) => judgeHttp(r, { head: c.method === 'HEAD' }), {
        readOnly: true,
        expected: expectedForId(c.id, existing),
      });
    });
    const missing = tally.requireSpread('GET /api/v1/items/{id}', {
      total: runs(350),
      prescribed: runs(350),
      outcomes: [
        [/^200$/, runs(80)],
        [/^404 NOT_FOUND$/, runs(80)],
      ],
    });
    expect(missing, tally.summary()).toEqual([]);
  });

  it('when GET /api/v1/categories gets junk query strings, tokens and bodies, then it answers 200 and nothing changes', async () => {
    const arb = fc.record({
      method,
      qs: queryString(['page', 'parent_id', 'sort']),
      auth: anyAuth,
      // A GET with a body is odd but legal HTTP; the body must not matter.
      body: fc.option(wildValue, { nil: undefined, freq: 4 }),
    });
    await fuzz(currentTestName(), FILE, arb, runs(120), async (c) => {
      const headers = suite.fx.authLines(c.auth);
      if (c.body !== undefined) headers.push(['content-type', 'application/json']);
      const req: WireRequest = {
        method: c.method,
        path: `/api/v1/categories${c.qs}`,
        headers,
        body: c.body === undefined ? undefined : jsonText(c.body),
      };
      await exchange(ctx(), 'GET /api/v1/categories', req, (r) => judgeHttp(r, { head: c.method === 'HEAD' }), {
        readOnly: true,
        // §1: unknown query parameters are ignored; a body on a GET is at worst refused for its size.
        expected: c.body === undefined ? ['200'] : undefined,
      });
    });
    const missing = tally.requireSpread('GET /api/v1/categories', {
      total: runs(120),
      outcomes: [[/^200$/, runs(100)]],
    });
    expect(missing, tally.summary()).toEqual([]);
  });

  it('when known and unknown paths get other methods and hostile segments, then the answer is 404 or 405 with Allow, and nothing changes', async () => {
    const KNOWN: Record<string, string[]> = {
      '/api/v1/items': ['GET', 'HEAD'],
      '/api/v1/items/1': ['GET', 'HEAD'],
      '/api/v1/categories': ['GET', 'HEAD'],
      '/admin/api/items': ['GET', 'HEAD', 'POST'],
      '/api/v1/auth/login': ['POST'],
      '/api/v1/auth/wx-login': ['POST'],
      '/api/v1/auth/refresh': ['POST'],
      '/admin/api/auth/login': ['POST'],
    };
    const segment = fc.oneof(
      fc.constantFrom(
        '%00',
        '%zz',
        '%C0%AF',
        '%FF',
        '..',
        '%2e%2e',
        '%2F',
        'items%00',
        '~',
        'x'.repeat(2000),
        'api',
        'v1',
        'items',
        'admin',
        '%ED%A0%80',
      ),
      fc.string({ unit: 'binary', maxLength: 6 }).map(pctEncode),
    );
    const arb = fc.record({
      method: fc.constantFrom(
        'GET',
        'HEAD',
        'POST',
        'PUT',
        'PATCH',
        'DELETE',
        'TRACE',
        'PROPFIND',
        'PURGE',
        'SEARCH',
        'LOCK',
      ),
      path: fc.oneof(
        { arbitrary: fc.constantFrom(...Object.keys(KNOWN)), weight: 3 },
        { arbitrary: fc.array(segment, { minLength: 1, maxLength: 4 }).map((s) => `/${s.join('/')}`), weight: 2 },
        {
          arbitrary: fc
            .tuple(fc.constantFrom('/api/v1/items/', '/admin/api/', '/api/v1/auth/', '/graphql/'), segment)
            .map(([a, b]) => a + b),
          weight: 2,
        },
      ),
    });
    await fuzz(currentTestName(), FILE, arb, runs(200), async (c) => {
      const req: WireRequest = { method: c.method, path: c.path };
      const allowed = KNOWN[c.path];
      // Without credentials or a body nothing can be created: every answer here is a refusal or a read.
      const expected = allowed && !allowed.includes(c.method) ? ['405 METHOD_NOT_ALLOWED'] : undefined;
      const allow503 = c.path === '/api/v1/auth/wx-login' ? WECHAT_503 : undefined; // this app has no WeChat
      await exchange(ctx(), 'methods and paths', req, (r) => judgeHttp(r, { head: c.method === 'HEAD', allow503 }), {
        readOnly: true,
        expected,
      });
    });
    const missing = tally.requireSpread('methods and paths', {
      total: runs(200),
      prescribed: runs(40),
      outcomes: [
        [/^404 NOT_FOUND$/, runs(50)],
        [/^405 METHOD_NOT_ALLOWED$/, runs(30)],
      ],
    });
    expect(missing, tally.summary()).toEqual([]);
  });
});
