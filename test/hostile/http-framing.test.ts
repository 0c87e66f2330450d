/**
 * Generated hostile bytes below the JSON level (contract §1, §7.1): bodies that are invalid UTF-8,
 * truncated or trailing-garbage JSON, wrong or odd content types, gzip / deflate / br bodies (valid,
 * corrupt, unknown encodings, bombs), chunked bodies; hostile header sets (two Authorization lines,
 * odd Idempotency-Keys, oversized heads); and broken HTTP framing over a raw socket. Every answer must
 * be problem+json with a request id (or, for framing the server cannot parse, no answer at all), never
 * a 5xx; the server must stay up; refusals must change nothing.
 */
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { itemBody } from '../helpers/catalog-admin.ts';
import {
  currentTestName,
  exchange,
  exchangeRaw,
  fuzz,
  fuzzTimeout,
  headBytes,
  jsonText,
  judgeGraphQL,
  judgeHttp,
  runs,
  send,
  WECHAT_503,
  type WireRequest,
  type WireResponse,
} from '../helpers/hostile.ts';
import { TEST_ADMIN } from '../helpers/test-app.ts';
import { deepValue, forwardedFor, garbageToken, latin1Char, type TokenLabel, tokenLabel } from './arbitraries.ts';
import { FIXTURE_CUSTOMER, hostileSuite, PROTECTED } from './fixtures.ts';

const FILE = 'test/hostile/http-framing.test.ts';

const suite = hostileSuite('http-framing');
const { tally, ctx } = suite;

/** The POST routes and a valid body for each (the token a route needs is added per case). */
const TARGETS = [
  {
    path: '/admin/api/items',
    realm: 'admin' as const,
    body: () => itemBody(PROTECTED.categoryId) as Record<string, unknown>,
  },
  { path: '/api/v1/auth/login', body: () => ({ username: FIXTURE_CUSTOMER.username, password: 'wrong password' }) },
  { path: '/admin/api/auth/login', body: () => ({ username: TEST_ADMIN.username, password: 'wrong password' }) },
  { path: '/api/v1/auth/wx-login', body: () => ({ code: 'ok:framing' }) },
  { path: '/api/v1/auth/refresh', realm: 'customer' as const, body: () => ({}) },
  {
    path: '/graphql',
    body: () => ({
      query: 'mutation ($n: String!) { createCategory(input: {name: $n}) { id } }',
      variables: { n: 'Framing' },
    }),
    realm: 'admin' as const,
  },
];
type Target = (typeof TARGETS)[number];

const tokenFor = (t: Target) =>
  t.realm === 'admin' ? suite.fx.token('admin') : t.realm === 'customer' ? suite.fx.token('customer') : undefined;

/** Valid JSON text with invalid UTF-8 spliced into its first string value. */
const INVALID_UTF8 = [
  [0xc0, 0xaf],
  [0xff],
  [0xfe, 0xff],
  [0xed, 0xa0, 0x80],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0xc3],
  [0xe2, 0x82],
  [0xf4, 0x90, 0x80, 0x80],
  [0x80],
];

function withInvalidUtf8(json: string, bytes: number[]): Buffer {
  const i = json.indexOf('":"') + 3; // just inside the first string value
  return Buffer.concat([Buffer.from(json.slice(0, i), 'utf8'), Buffer.from(bytes), Buffer.from(json.slice(i), 'utf8')]);
}

/** One generated body: its bytes, headers, and what the contract says about it (when it does). */
interface BodyCase {
  kind: string;
  body: Buffer;
  headers: Array<[string, string]>;
  chunked?: number;
  expected?: string[];
  forbidden?: string[];
}

const JSON_TYPE: Array<[string, string]> = [['content-type', 'application/json']];

const bodyCase = (t: Target): fc.Arbitrary<BodyCase> => {
  const json = jsonText(t.body());
  const buf = Buffer.from(json, 'utf8');
  return fc.oneof<fc.Arbitrary<BodyCase>[]>(
    // §7.1: a JSON body that is not valid UTF-8 → 400 MALFORMED_JSON (not U+FFFD).
    fc.constantFrom(...INVALID_UTF8).map((bytes) => ({
      kind: `invalid-utf8 ${Buffer.from(bytes).toString('hex')}`,
      body: withInvalidUtf8(json, bytes),
      headers: JSON_TYPE,
      expected: ['400 MALFORMED_JSON'],
    })),
    // §1: not JSON → 400 MALFORMED_JSON. A cut inside a multi-byte character is invalid UTF-8 as well.
    fc.integer({ min: 1, max: buf.length - 1 }).map((n) => ({
      kind: `truncated at ${n}`,
      body: buf.subarray(0, n),
      headers: JSON_TYPE,
      expected: ['400 MALFORMED_JSON'],
    })),
    fc.constantFrom('x', ',', '}', '\u0000', ' {}', '\n]').map((tail) => ({
      kind: `trailing ${JSON.stringify(tail)}`,
      body: Buffer.from(json + tail),
      headers: JSON_TYPE,
      expected: ['400 MALFORMED_JSON'],
    })),
    fc
      .constantFrom(
        'undefined',
        "{'a':1}",
        'NaN',
        '[1,]',
        '{"a":1,}',
        '{"a":"\u0001"}',
        '{"a":"\t"}',
        '{"a":01}',
        '{"a":.5}',
        '{"a":+1}',
        '"\\x41"',
        '{"a":"\\u12"}',
      )
      .map((text) => ({
        kind: `not-json ${text}`,
        body: Buffer.from(text),
        headers: JSON_TYPE,
        expected: ['400 MALFORMED_JSON'],
      })),
    // Odd but valid JSON: deep nesting, a BOM, surrounding whitespace.
    deepValue.map((v) => ({
      kind: 'deep',
      body: Buffer.from(v.text),
      headers: JSON_TYPE,
      forbidden: ['400 MALFORMED_JSON'] as string[],
    })),
    fc.constantFrom('\uFEFF', ' \r\n\t').map((pad) => ({
      kind: `padded ${JSON.stringify(pad)}`,
      body: Buffer.from(pad + json + (pad.trim() ? '' : pad)),
      headers: JSON_TYPE,
    })),
    // §1: a body must be declared JSON → otherwise 415.
    fc
      .constantFrom(
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/xml',
        'application/octet-stream',
      )
      .map((type) => ({
        kind: `type ${type}`,
        body: buf,
        headers: [['content-type', type]] as Array<[string, string]>,
        // /graphql also reads GraphQL multipart requests (a file upload, contract §13.2): a body that is
        // not one is refused as such (400), never run.
        expected:
          t.path === '/graphql' && type.startsWith('multipart/')
            ? ['gql VALIDATION_FAILED']
            : ['415 UNSUPPORTED_MEDIA_TYPE'],
      })),
    fc.constant({
      kind: 'no content-type',
      body: buf,
      headers: [] as Array<[string, string]>,
      expected: ['415 UNSUPPORTED_MEDIA_TYPE'],
    }),
    // Declared JSON in odd spellings: accepted or 415, but never a crash (the contract allows a charset).
    fc
      .constantFrom(
        'APPLICATION/JSON',
        'application/json; charset=UTF-8',
        'application/json;charset="utf-8"',
        'application/json; charset=utf-8; foo=bar',
        'application/json; charset=latin1',
        'application/json; charset=utf-16',
        'application/json; charset=bogus',
        'application/json, text/plain',
        'application/jsonx',
        'application/problem+json',
        'application/*',
        '*/*',
        'application/json; charset',
        ';',
        'ÿ',
      )
      .map((type) => ({
        kind: `type ${type}`,
        body: buf,
        headers: [['content-type', type]] as Array<[string, string]>,
        forbidden: /^application\/json(; ?charset="?utf-8"?)?$/i.test(type)
          ? ['415 UNSUPPORTED_MEDIA_TYPE']
          : undefined,
      })),
    fc.constant({
      kind: 'utf-16le with BOM',
      body: Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(json, 'utf16le')]),
      headers: [['content-type', 'application/json; charset=utf-16']] as Array<[string, string]>,
    }),
    // §7.1: gzip | deflate | br accepted; corrupt → MALFORMED_JSON; other encodings → 415; > 100 KiB inflated → 413.
    fc
      .constantFrom(['gzip', gzipSync], ['deflate', deflateSync], ['br', brotliCompressSync] as const)
      .map(([enc, zip]) => ({
        kind: `${enc} valid`,
        body: (zip as (b: Buffer) => Buffer)(buf),
        headers: [...JSON_TYPE, ['content-encoding', enc as string]] as Array<[string, string]>,
        forbidden: ['400 MALFORMED_JSON', '415 UNSUPPORTED_MEDIA_TYPE'],
      })),
    fc
      .tuple(
        fc.constantFrom(['gzip', gzipSync], ['deflate', deflateSync], ['br', brotliCompressSync] as const),
        fc.constantFrom('truncated', 'bad-checksum', 'plain'),
      )
      .map(([[enc, zip], how]) => {
        const packed = (zip as (b: Buffer) => Buffer)(buf);
        // gzip and deflate end in a checksum (and gzip a length): a flipped last byte is a corrupt
        // stream. Brotli has no checksum, so a flipped byte may still inflate: no expectation then.
        const body =
          how === 'truncated'
            ? packed.subarray(0, Math.max(1, packed.length >> 1))
            : how === 'bad-checksum'
              ? Buffer.from(packed.map((b, i) => (i === packed.length - 1 ? b ^ 0xff : b)))
              : buf;
        const expected = how === 'bad-checksum' && enc === 'br' ? undefined : ['400 MALFORMED_JSON'];
        return {
          kind: `${enc} ${how}`,
          body,
          headers: [...JSON_TYPE, ['content-encoding', enc as string]] as Array<[string, string]>,
          expected,
        };
      }),
    fc.constantFrom('compress', 'bogus', 'zstd', 'x-custom').map((enc) => ({
      kind: `encoding ${enc}`,
      body: buf,
      headers: [...JSON_TYPE, ['content-encoding', enc]] as Array<[string, string]>,
      expected: ['415 UNSUPPORTED_MEDIA_TYPE'],
    })),
    fc.constantFrom('identity', 'GZIP', 'gzip, gzip', 'gzip,identity', ' gzip ').map((enc) => ({
      kind: `encoding ${enc}`,
      body: /gzip/i.test(enc) ? gzipSync(enc.includes('gzip, gzip') ? gzipSync(buf) : buf) : buf,
      headers: [...JSON_TYPE, ['content-encoding', enc]] as Array<[string, string]>,
    })),
    fc.constant({
      kind: 'gzip bomb',
      body: gzipSync(Buffer.from(`{"pad":"${' '.repeat(300 * 1024)}"}`)),
      headers: [...JSON_TYPE, ['content-encoding', 'gzip']] as Array<[string, string]>,
      expected: ['413 PAYLOAD_TOO_LARGE'],
    }),
    // Chunked transfer of a valid body, in odd piece sizes (one byte splits UTF-8 sequences).
    fc.constantFrom(1, 3, 1000).map((n) => ({
      kind: `chunked ${n}`,
      body: buf,
      headers: JSON_TYPE,
      chunked: n,
      forbidden: ['400 MALFORMED_JSON', '415 UNSUPPORTED_MEDIA_TYPE'],
    })),
    fc.constant({ kind: 'empty body declared', body: Buffer.alloc(0), headers: JSON_TYPE }),
  );
};

/** REST answers must be problem+json; /graphql may also answer as GraphQL; this app has no WeChat (§3.2: 503). */
const judgeFor = (path: string) => (res: WireResponse) =>
  path === '/graphql'
    ? judgeGraphQL(res)
    : judgeHttp(res, { allow503: path === '/api/v1/auth/wx-login' ? WECHAT_503 : undefined });

describe('hostile bytes, headers and framing (seeded fast-check)', { timeout: fuzzTimeout(runs(350)) }, () => {
  it('when POST routes get invalid UTF-8, broken JSON, odd content types and compressed bodies, then each gets its contract answer and refusals change nothing', async () => {
    const arb = fc
      .constantFrom(...TARGETS)
      .chain((target) => fc.record({ target: fc.constant(target), c: bodyCase(target) }));
    await fuzz(currentTestName(), FILE, arb, runs(350), async ({ target, c }) => {
      const token = tokenFor(target);
      const headers: Array<[string, string]> = [
        ...c.headers,
        ...(token ? ([['authorization', `Bearer ${token}`]] as Array<[string, string]>) : []),
      ];
      const req: WireRequest = { method: 'POST', path: target.path, headers, body: c.body, chunked: c.chunked };
      // The body rules are the HTTP layer's, in front of /graphql as of every REST route: same answers.
      const { verdict, res } = await exchange(
        ctx(),
        `${target.path} ${c.kind.split(' ')[0]}`,
        req,
        judgeFor(target.path),
        { expected: c.expected, forbidden: c.forbidden },
      );
      if (verdict.outcome === '200' && target.path === '/api/v1/auth/refresh' && res?.json?.access_token)
        suite.fx.refreshed(res.json.access_token);
    });
    const total = tally.total();
    expect(total, tally.summary()).toBeGreaterThanOrEqual(runs(350));
    const malformed = TARGETS.reduce(
      (n, t) =>
        n +
        tally.count(`${t.path} invalid-utf8`, /^400 MALFORMED_JSON$/) +
        tally.count(`${t.path} truncated`, /^400 MALFORMED_JSON$/),
      0,
    );
    const accepted = TARGETS.reduce(
      (n, t) =>
        n +
        tally.count(`${t.path} gzip`, /^(2\d\d|401 INVALID_CREDENTIALS)$/) +
        tally.count(`${t.path} br`, /^(2\d\d|401 INVALID_CREDENTIALS)$/),
      0,
    );
    expect({ malformed: malformed >= runs(20), acceptedCompressed: accepted >= 1 }, tally.summary()).toEqual({
      malformed: true,
      acceptedCompressed: true,
    });
  });

  // -------------------------------------------------------------------------------------------
  it('when requests carry duplicate Authorization lines, odd Idempotency-Keys, odd X-Request-Ids and oversized heads, then every answer follows the contract', async () => {
    const headerCase = fc.record({
      target: fc.constantFrom(
        '/admin/api/items',
        '/api/v1/auth/refresh',
        '/graphql',
        '/api/v1/items',
        '/api/v1/categories',
      ),
      authLines: fc.array(fc.tuple(tokenLabel(['admin', 'customer']), garbageToken), { minLength: 0, maxLength: 3 }),
      idempotencyKeys: fc.array(
        fc.oneof(fc.string({ unit: latin1Char, maxLength: 20 }), fc.constantFrom('', 'k', 'x'.repeat(300))),
        { maxLength: 2 },
      ),
      requestId: fc.option(
        fc.oneof(fc.string({ unit: latin1Char, maxLength: 40 }), fc.constantFrom('a'.repeat(129), 'ok-id_1:2.3', '')),
        { nil: undefined },
      ),
      xff: fc.option(forwardedFor, { nil: undefined }),
      padding: fc.oneof(
        { arbitrary: fc.constant(0), weight: 6 },
        { arbitrary: fc.constantFrom(8 * 1024, 17 * 1024, 70 * 1024), weight: 1 },
      ),
      manyHeaders: fc.oneof(
        { arbitrary: fc.constant(0), weight: 6 },
        { arbitrary: fc.constantFrom(120, 3000), weight: 1 },
      ),
    });
    await fuzz(currentTestName(), FILE, headerCase, runs(200), async (c) => {
      const headers: Array<[string, string]> = [];
      for (const [label, garbage] of c.authLines)
        headers.push(['authorization', `Bearer ${suite.fx.token(label as TokenLabel, garbage) ?? garbage}`]);
      for (const key of c.idempotencyKeys) headers.push(['idempotency-key', key]);
      if (c.requestId !== undefined) headers.push(['x-request-id', c.requestId]);
      if (c.xff !== undefined) headers.push(['x-forwarded-for', c.xff]);
      if (c.padding) headers.push(['x-padding', 'p'.repeat(c.padding)]);
      for (let i = 0; i < c.manyHeaders; i++) headers.push([`x-h${i}`, 'v']);
      const isGet = c.target.startsWith('/api/v1/items') || c.target === '/api/v1/categories';
      const body =
        c.target === '/admin/api/items'
          ? jsonText(itemBody(PROTECTED.categoryId))
          : c.target === '/graphql'
            ? jsonText({ query: '{ adminMe { id } }' })
            : undefined;
      if (body !== undefined) headers.push(['content-type', 'application/json']);
      const req: WireRequest = { method: isGet ? 'GET' : 'POST', path: c.target, headers, body };
      // §7.1: more than one Authorization header → 401 TOKEN_INVALID where a token is needed (REST).
      const needsToken = c.target === '/admin/api/items' || c.target === '/api/v1/auth/refresh';
      const oversized = headBytes(req) > 12 * 1024; // near Node's 16 KiB head limit: 431 may come first
      const expected = needsToken && c.authLines.length > 1 && !oversized ? ['401 TOKEN_INVALID'] : undefined;
      const { res, verdict } = await exchange(ctx(), `headers ${c.target}`, req, judgeFor(c.target), { expected });
      // GraphQL names the same refusal in its own terms.
      if (c.target === '/graphql' && c.authLines.length > 1 && !oversized && verdict.outcome !== 'gql TOKEN_INVALID') {
        throw new Error(
          `two Authorization lines on adminMe answered ${verdict.outcome}, expected TOKEN_INVALID (§7.1)\n${JSON.stringify(res?.json)}`,
        );
      }
      // (A head too large to read is answered before its X-Request-Id could be.)
      if (
        res &&
        !oversized &&
        c.requestId !== undefined &&
        /^[A-Za-z0-9._:-]{1,128}$/.test(c.requestId) &&
        res.headers['x-request-id'] !== c.requestId
      ) {
        throw new Error(
          `a sane X-Request-Id ${JSON.stringify(c.requestId)} was not echoed (§1): got ${res.headers['x-request-id']}`,
        );
      }
    });
    expect(tally.total(), tally.summary()).toBeGreaterThanOrEqual(runs(350) + runs(200));
    expect(tally.count('headers /admin/api/items', /^401 TOKEN_INVALID$/), tally.summary()).toBeGreaterThanOrEqual(1);
    const tooLarge = [
      '/admin/api/items',
      '/api/v1/auth/refresh',
      '/graphql',
      '/api/v1/items',
      '/api/v1/categories',
    ].reduce((n, t) => n + tally.count(`headers ${t}`, /^431/), 0);
    expect(tooLarge, tally.summary()).toBeGreaterThanOrEqual(1);
  });

  // -------------------------------------------------------------------------------------------
  const CRLF = '\r\n';
  const FRAMES: Array<{ name: string; text: string; head?: boolean }> = [
    { name: 'valid GET', text: `GET /api/v1/categories HTTP/1.1${CRLF}Host: x${CRLF}Connection: close${CRLF}${CRLF}` },
    { name: 'no Host', text: `GET /api/v1/categories HTTP/1.1${CRLF}Connection: close${CRLF}${CRLF}` },
    {
      name: 'two Hosts',
      text: `GET /api/v1/categories HTTP/1.1${CRLF}Host: a${CRLF}Host: b${CRLF}Connection: close${CRLF}${CRLF}`,
    },
    { name: 'HTTP/1.0', text: `GET /api/v1/categories HTTP/1.0${CRLF}${CRLF}` },
    { name: 'HTTP/0.9', text: `GET /api/v1/categories${CRLF}${CRLF}` },
    { name: 'HTTP/1.2', text: `GET /api/v1/categories HTTP/1.2${CRLF}Host: x${CRLF}Connection: close${CRLF}${CRLF}` },
    { name: 'HTTP/2 preface', text: `PRI * HTTP/2.0${CRLF}${CRLF}SM${CRLF}${CRLF}` },
    {
      name: 'lowercase method',
      text: `get /api/v1/categories HTTP/1.1${CRLF}Host: x${CRLF}Connection: close${CRLF}${CRLF}`,
    },
    {
      name: 'unknown method',
      text: `FROB /api/v1/categories HTTP/1.1${CRLF}Host: x${CRLF}Connection: close${CRLF}${CRLF}`,
    },
    {
      name: 'space in target',
      text: `GET /api/v1/items?keyword=a b HTTP/1.1${CRLF}Host: x${CRLF}Connection: close${CRLF}${CRLF}`,
    },
    {
      name: 'NUL in target',
      text: `GET /api/v1/items?keyword=a\u0000b HTTP/1.1${CRLF}Host: x${CRLF}Connection: close${CRLF}${CRLF}`,
    },
    {
      name: 'raw UTF-8 in target',
      text: `GET /api/v1/items?keyword=跑鞋 HTTP/1.1${CRLF}Host: x${CRLF}Connection: close${CRLF}${CRLF}`,
    },
    {
      name: 'absolute-form',
      text: `GET http://evil.example/api/v1/categories HTTP/1.1${CRLF}Host: x${CRLF}Connection: close${CRLF}${CRLF}`,
    },
    { name: 'asterisk-form GET', text: `GET * HTTP/1.1${CRLF}Host: x${CRLF}Connection: close${CRLF}${CRLF}` },
    { name: 'CONNECT', text: `CONNECT 127.0.0.1:80 HTTP/1.1${CRLF}Host: 127.0.0.1:80${CRLF}${CRLF}` },
    {
      name: 'header without colon',
      text: `GET /api/v1/categories HTTP/1.1${CRLF}Host: x${CRLF}Broken header${CRLF}Connection: close${CRLF}${CRLF}`,
    },
    {
      name: 'space before colon',
      text: `GET /api/v1/categories HTTP/1.1${CRLF}Host : x${CRLF}Connection: close${CRLF}${CRLF}`,
    },
    {
      name: 'obs-fold',
      text: `GET /api/v1/categories HTTP/1.1${CRLF}Host: x${CRLF}X-A: a${CRLF} folded${CRLF}Connection: close${CRLF}${CRLF}`,
    },
    {
      name: 'NUL in header value',
      text: `GET /api/v1/categories HTTP/1.1${CRLF}Host: x${CRLF}X-A: a\u0000b${CRLF}Connection: close${CRLF}${CRLF}`,
    },
    {
      name: 'NUL in Authorization',
      text: `POST /api/v1/auth/refresh HTTP/1.1${CRLF}Host: x${CRLF}Authorization: Bearer a\u0000b${CRLF}Connection: close${CRLF}${CRLF}`,
    },
    {
      name: 'NUL in Idempotency-Key',
      text: `POST /admin/api/items HTTP/1.1${CRLF}Host: x${CRLF}Idempotency-Key: a\u0000b${CRLF}Content-Length: 2${CRLF}Content-Type: application/json${CRLF}Connection: close${CRLF}${CRLF}{}`,
    },
    {
      name: 'DEL in header value',
      text: `GET /api/v1/categories HTTP/1.1${CRLF}Host: x${CRLF}X-A: a\u007fb${CRLF}Connection: close${CRLF}${CRLF}`,
    },
    { name: 'bare LF', text: `GET /api/v1/categories HTTP/1.1\nHost: x\nConnection: close\n\n` },
    { name: 'bare CR', text: `GET /api/v1/categories HTTP/1.1\rHost: x\rConnection: close\r\r\n\r\n` },
    {
      name: 'negative Content-Length',
      text: `POST /api/v1/auth/login HTTP/1.1${CRLF}Host: x${CRLF}Content-Type: application/json${CRLF}Content-Length: -1${CRLF}Connection: close${CRLF}${CRLF}{}`,
    },
    {
      name: 'non-numeric Content-Length',
      text: `POST /api/v1/auth/login HTTP/1.1${CRLF}Host: x${CRLF}Content-Type: application/json${CRLF}Content-Length: 1e1${CRLF}Connection: close${CRLF}${CRLF}{}`,
    },
    {
      name: 'two Content-Lengths',
      text: `POST /api/v1/auth/login HTTP/1.1${CRLF}Host: x${CRLF}Content-Type: application/json${CRLF}Content-Length: 2${CRLF}Content-Length: 3${CRLF}Connection: close${CRLF}${CRLF}{} `,
    },
    {
      name: 'Content-Length and chunked',
      text: `POST /api/v1/auth/login HTTP/1.1${CRLF}Host: x${CRLF}Content-Type: application/json${CRLF}Content-Length: 2${CRLF}Transfer-Encoding: chunked${CRLF}Connection: close${CRLF}${CRLF}2${CRLF}{}${CRLF}0${CRLF}${CRLF}`,
    },
    {
      name: 'bad chunk size',
      text: `POST /api/v1/auth/login HTTP/1.1${CRLF}Host: x${CRLF}Content-Type: application/json${CRLF}Transfer-Encoding: chunked${CRLF}Connection: close${CRLF}${CRLF}zz${CRLF}{}${CRLF}0${CRLF}${CRLF}`,
    },
    {
      name: 'huge chunk size',
      text: `POST /api/v1/auth/login HTTP/1.1${CRLF}Host: x${CRLF}Content-Type: application/json${CRLF}Transfer-Encoding: chunked${CRLF}Connection: close${CRLF}${CRLF}ffffffffffffffffff${CRLF}{}${CRLF}0${CRLF}${CRLF}`,
    },
    {
      name: 'chunk extension',
      text: `POST /api/v1/auth/login HTTP/1.1${CRLF}Host: x${CRLF}Content-Type: application/json${CRLF}Transfer-Encoding: chunked${CRLF}Connection: close${CRLF}${CRLF}2;x="\u0000"${CRLF}{}${CRLF}0${CRLF}${CRLF}`,
    },
    {
      name: 'gzip, chunked TE',
      text: `POST /api/v1/auth/login HTTP/1.1${CRLF}Host: x${CRLF}Content-Type: application/json${CRLF}Transfer-Encoding: gzip, chunked${CRLF}Connection: close${CRLF}${CRLF}2${CRLF}{}${CRLF}0${CRLF}${CRLF}`,
    },
    {
      name: 'chunked, chunked TE',
      text: `POST /api/v1/auth/login HTTP/1.1${CRLF}Host: x${CRLF}Content-Type: application/json${CRLF}Transfer-Encoding: chunked, chunked${CRLF}Connection: close${CRLF}${CRLF}2${CRLF}{}${CRLF}0${CRLF}${CRLF}`,
    },
    {
      name: 'trailer header',
      text: `POST /api/v1/auth/login HTTP/1.1${CRLF}Host: x${CRLF}Content-Type: application/json${CRLF}Transfer-Encoding: chunked${CRLF}Connection: close${CRLF}${CRLF}2${CRLF}{}${CRLF}0${CRLF}X-Trailer: \u0000${CRLF}${CRLF}`,
    },
    {
      name: 'pipelined garbage',
      text: `GET /api/v1/categories HTTP/1.1${CRLF}Host: x${CRLF}${CRLF}\u0000\u0001garbage${CRLF}${CRLF}`,
    },
    {
      name: 'smuggled request',
      text: `POST /api/v1/auth/login HTTP/1.1${CRLF}Host: x${CRLF}Content-Type: application/json${CRLF}Content-Length: 4${CRLF}Transfer-Encoding: chunked${CRLF}${CRLF}0${CRLF}${CRLF}GET /admin/api/items HTTP/1.1${CRLF}Host: x${CRLF}Connection: close${CRLF}${CRLF}`,
    },
    {
      name: 'Upgrade h2c',
      text: `GET /api/v1/categories HTTP/1.1${CRLF}Host: x${CRLF}Connection: Upgrade, HTTP2-Settings${CRLF}Upgrade: h2c${CRLF}HTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA${CRLF}${CRLF}`,
    },
    {
      name: 'Upgrade websocket',
      text: `GET /graphql HTTP/1.1${CRLF}Host: x${CRLF}Connection: Upgrade${CRLF}Upgrade: websocket${CRLF}Sec-WebSocket-Version: 13${CRLF}Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==${CRLF}${CRLF}`,
    },
    {
      name: 'oversized head',
      text: `GET /api/v1/categories HTTP/1.1${CRLF}Host: x${CRLF}X-Big: ${'b'.repeat(20 * 1024)}${CRLF}Connection: close${CRLF}${CRLF}`,
    },
    {
      name: 'oversized target',
      text: `GET /api/v1/items?keyword=${'k'.repeat(20 * 1024)} HTTP/1.1${CRLF}Host: x${CRLF}Connection: close${CRLF}${CRLF}`,
    },
    {
      name: 'HEAD with body',
      head: true,
      text: `HEAD /api/v1/categories HTTP/1.1${CRLF}Host: x${CRLF}Content-Type: application/json${CRLF}Content-Length: 2${CRLF}Connection: close${CRLF}${CRLF}{}`,
    },
    {
      name: 'Expect 100-continue',
      text: `POST /api/v1/auth/login HTTP/1.1${CRLF}Host: x${CRLF}Content-Type: application/json${CRLF}Content-Length: 2${CRLF}Expect: 100-continue${CRLF}Connection: close${CRLF}${CRLF}{}`,
    },
    {
      name: 'Expect other',
      text: `POST /api/v1/auth/login HTTP/1.1${CRLF}Host: x${CRLF}Content-Type: application/json${CRLF}Content-Length: 2${CRLF}Expect: teapot${CRLF}Connection: close${CRLF}${CRLF}{}`,
    },
  ];

  it('when the socket carries broken HTTP framing, then any answer is problem+json with a request id, and the server stays up', async () => {
    /** A frame, optionally with one byte replaced (never the final blank line, so the head still ends). */
    const frameCase = fc.record({
      frame: fc.constantFrom(...FRAMES),
      flip: fc.option(fc.tuple(fc.nat(), fc.constantFrom(0x00, 0x0a, 0x0d, 0x20, 0x3a, 0x7f, 0x80, 0xff)), {
        nil: undefined,
        freq: 3,
      }),
    });
    await fuzz(currentTestName(), FILE, frameCase, runs(150), async (c) => {
      const bytes = Buffer.from(c.frame.text, 'latin1');
      if (c.flip) {
        const end = bytes.indexOf('\r\n\r\n');
        const limit = end > 0 ? end : bytes.length;
        bytes[c.flip[0] % limit] = c.flip[1];
      }
      const res = await exchangeRaw(ctx(), `raw ${c.frame.name}`, bytes, { head: c.frame.head });
      if (
        c.frame.name.startsWith('oversized') &&
        !c.flip &&
        res &&
        res.status !== 431 &&
        res.status !== 414 &&
        res.status !== 400
      ) {
        throw new Error(`an oversized head answered ${res.status}; expected 431 (§7.1)`);
      }
      // Whatever the bytes did, the server still answers an ordinary request.
      const alive = await send(suite.app.url, { method: 'GET', path: '/healthz' });
      if (alive.status !== 200) throw new Error(`after ${c.frame.name} /healthz answered ${alive.status}`);
    });
    expect(tally.total(), tally.summary()).toBeGreaterThanOrEqual(runs(350) + runs(200) + runs(150));
    const answered = FRAMES.reduce((n, f) => n + tally.count(`raw ${f.name}`, /^(400|431)/), 0);
    expect(answered, tally.summary()).toBeGreaterThanOrEqual(runs(30));
  });
});
