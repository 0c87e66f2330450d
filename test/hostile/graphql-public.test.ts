/**
 * Generated hostile input on the public and authentication operations of schema.graphql (contract
 * §3, §5, §7.1, §7.2) — items, item, categories, me, adminMe, login, wxLogin, refreshToken,
 * adminLogin — with near-valid and hostile arguments, as variables, as inline literals and over GET,
 * under tokens of the right system, the wrong system, disabled, expired, over-long, `alg: none` and
 * garbage; then hostile documents and request envelopes on /graphql. Every answer must be data or
 * errors with contract codes (never INTERNAL, never a 5xx), a query or a refused mutation must leave
 * the database as it was, and where the contract prescribes the answer it is checked.
 *
 * This app runs with the default login limits and without WeChat, so logins soon answer RATE_LIMITED
 * and wxLogin WX_LOGIN_NOT_CONFIGURED — both contract answers (rest-bodies.test.ts reaches deeper).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  currentTestName,
  Entries,
  exchange,
  fuzz,
  fuzzTimeout,
  jsonText,
  judgeGraphQL,
  RawJson,
  runs,
  TABLES,
  type WireRequest,
} from '../helpers/hostile.ts';
import { anyString, authStyle, garbageToken, tokenLabel, unstorableString, wildValue } from './arbitraries.ts';
import { hostileSuite } from './fixtures.ts';
import { graphqlRequest, operationCase, operationSpread, runOperationCase } from './graphql-ops.ts';

const FILE = 'test/hostile/graphql-public.test.ts';
const FIELDS = ['items', 'item', 'categories', 'me', 'adminMe', 'login', 'wxLogin', 'refreshToken', 'adminLogin'];
const RUNS = runs(800);
const DOCUMENT_RUNS = runs(300);

const suite = hostileSuite('graphql-public');
const { tally, ctx } = suite;

describe('hostile input on the public and authentication GraphQL operations (seeded fast-check)', {
  timeout: fuzzTimeout(RUNS),
}, () => {
  it('when every public and login operation gets generated variables, inline literals and tokens of every kind, then every answer carries contract codes and nothing changes on refusal', async () => {
    await fuzz(currentTestName(), FILE, operationCase(FIELDS), RUNS, (c) => runOperationCase(ctx(), suite.fx, c));
    // Password logins meet the default per-IP limit within a few dozen attempts, so their successes
    // are left to rest-bodies.test.ts (which spreads client IPs); wxLogin is not configured here.
    const mustSucceed = ['items', 'item', 'categories', 'me', 'adminMe', 'refreshToken'];
    const missing = operationSpread(tally, FIELDS, Math.floor(RUNS / FIELDS.length / 3), mustSucceed);
    expect(missing, tally.summary()).toEqual([]);
  });

  // -------------------------------------------------------------------------------------------
  const aliases = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: categories { id }`).join(' ')} }`;
  // Selections nested past the depth limit (8); `skus` on a Sku is unknown, which must not matter.
  const deep = (n: number) => `{ items { items { ${'skus { specs '.repeat(n)}${'}'.repeat(n)} } } }`;
  const hostileDocument = fc.oneof(
    fc.constantFrom(
      '',
      ' ',
      '{',
      '}',
      '{ categories { id } ',
      'query { __typename }',
      '{ __schema { types { name fields { name } } } }',
      '{ __type(name: "Item") { fields { name } } }',
      'subscription { categories { id } }',
      'query A { categories { id } } query A { categories { id } }',
      'query A { categories { id } } query B { categories { id } }',
      'fragment F on Query { ...F } { ...F }',
      '{ categories @skip(if: $x) { id } }',
      '{ categories { id @include(if: "yes") } }',
      'mutation { deleteItem(id: 1) deleteCategory(id: 1) }',
      'mutation { createCategory(input: {name: "a", name: "b"}) { id } }',
      '{ item(id: 1, id: 2) { id } }',
      '{ items(limit: 100) { items { id } } a: items(limit: 100) { items { id } } b: items(limit: 100) { items { id } } }',
      '{ categories { id } }\u0000',
      '{ item(id: "\\uD800") { id } }',
      '{ items(keyword: """\u0000""") { total } }',
      '# only a comment',
      '\uFEFF{ categories { id } }',
      '{ categories { id } } garbage',
      '{ items(page: 99999999999999999999) { total } }',
      '{ items(limit: 1e308) { total } }',
      '{ items(keyword: null, page: null) { total } }',
      '{ item(id: 1) { skus { specs(x: 1) } } }',
      'query ($v: JSONObject) { items { total } }',
    ),
    fc.constantFrom(16, 40, 200).map(aliases),
    fc.constantFrom(9, 30, 300).map(deep),
    fc.constantFrom(2100, 20000).map((n) => `{ ${'categories { id } '.repeat(1)}${'__typename '.repeat(n)}}`),
    anyString,
    unstorableString.map((s) => `{ items(keyword: ${JSON.stringify(s)}) { total } }`),
  );

  const envelope = fc.oneof(
    { arbitrary: hostileDocument.map((query) => ({ body: { query } as Record<string, unknown> })), weight: 6 },
    {
      arbitrary: fc
        .record(
          {
            query: fc.oneof(hostileDocument, wildValue),
            variables: fc.oneof(wildValue, fc.constant<unknown>('{"a":1}')),
            operationName: fc.oneof(wildValue, fc.constantFrom('A', 'B', '', 'Nope')),
            extensions: fc.oneof(
              wildValue,
              fc.constant<unknown>({ persistedQuery: { version: 1, sha256Hash: 'abc' } }),
            ),
          },
          { requiredKeys: [] },
        )
        .map((body) => ({ body: body as Record<string, unknown> })),
      weight: 3,
    },
    // Batches, bare values, duplicate and prototype keys instead of an operation object.
    {
      arbitrary: fc
        .constantFrom<unknown>(
          [{ query: '{ categories { id } }' }, { query: '{ categories { id } }' }],
          [],
          '{ categories { id } }',
          null,
          42,
          new Entries([
            ['query', '{ categories { id } }'],
            ['query', 'mutation { deleteItem(id: 1) }'],
          ]),
          new Entries([['__proto__', { query: '{ categories { id } }' }]]),
          new Entries([
            ['query', '{ categories { id } }'],
            ['variables', new RawJson('[1e400]')],
          ]),
        )
        .map((raw) => ({ body: raw as Record<string, unknown>, raw: true })),
      weight: 1,
    },
  );

  it('when /graphql gets hostile documents and request envelopes, then every answer is a contract answer and refusals change nothing', async () => {
    const arb = fc.record({
      e: envelope,
      get: fc.integer({ min: 0, max: 5 }).map((n) => n === 0),
      auth: fc.record({ label: tokenLabel(['admin']), style: authStyle, garbage: garbageToken }),
    });
    await fuzz(currentTestName(), FILE, arb, DOCUMENT_RUNS, async ({ e, get, auth }) => {
      let req: WireRequest;
      if ('raw' in e) {
        req = {
          method: 'POST',
          path: '/graphql',
          headers: [['content-type', 'application/json'], ...suite.fx.authLines(auth)],
          body: jsonText(e.body),
        };
      } else if (get && typeof e.body.query === 'string') {
        req = graphqlRequest(suite.fx, { query: e.body.query, variables: e.body.variables }, 'get', auth);
      } else {
        const { query, variables, ...extra } = e.body;
        req = graphqlRequest(suite.fx, { query, variables }, 'post', auth, extra);
      }
      // Several mutation fields run one after another; when a later one fails, its non-null type nulls
      // `data` and hides that the earlier ones took effect (GraphQL semantics, not a refusal).
      const query = typeof e.body?.query === 'string' ? e.body.query : '';
      const multiMutation = /^\s*mutation\b/.test(query) && (query.match(/\w+\s*\(/g) ?? []).length > 1;
      await exchange(ctx(), 'documents', req, (r) => judgeGraphQL(r), { exempt: multiMutation ? TABLES : [] });
    });
    const missing = tally.requireSpread('documents', {
      total: DOCUMENT_RUNS,
      outcomes: [
        [/^gql VALIDATION_FAILED$/, runs(100)],
        [/^gql ok$/, 1],
      ],
    });
    expect(missing, tally.summary()).toEqual([]);
  });
});
