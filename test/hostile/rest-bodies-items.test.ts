/**
 * Generated hostile JSON bodies on POST /admin/api/items (contract §1, §2, §4.4, §7.1): valid bodies
 * with one field replaced by something hostile (at any depth: SKU specs, image URLs …), valid bodies
 * at their limits, wild bodies with odd and duplicate keys and huge numbers, oversized bodies — under
 * tokens of every kind written every way, with and without odd Idempotency-Keys. Every answer must be
 * a contract answer, every refusal must leave the database as it was, and where the contract
 * prescribes the answer (a token problem, then U+0000 in a field → 400 VALIDATION_FAILED) it is checked.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { itemBody } from '../helpers/catalog-admin.ts';
import {
  currentTestName,
  exchange,
  fuzz,
  fuzzTimeout,
  jsonText,
  judgeHttp,
  problem,
  runs,
  type WireRequest,
} from '../helpers/hostile.ts';
import {
  applyMutation,
  authOutcome,
  credentials,
  isUnstorable,
  latin1Char,
  mutationOf,
  type Path,
  wildValue,
} from './arbitraries.ts';
import { hostileSuite, PROTECTED } from './fixtures.ts';

const FILE = 'test/hostile/rest-bodies-items.test.ts';
const RUNS = runs(900);

const suite = hostileSuite('rest-bodies-items');
const { tally, ctx } = suite;

/** Latin-1 header text node:http can send: spaces, quotes, commas, bytes 0x80–0xFF, long. */
const headerText = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    'k1',
    'k2',
    'k3',
    'a,b',
    '"q"',
    'ÿ\u0080é',
    'key with spaces',
    '\t',
    'x'.repeat(255),
    'x'.repeat(256),
    'x'.repeat(4000),
  ),
  fc.string({ unit: latin1Char, maxLength: 30 }),
);

describe('hostile bodies on POST /admin/api/items (seeded fast-check)', { timeout: fuzzTimeout(RUNS) }, () => {
  const ITEM_SHAPE: { paths: Path[]; stringPaths: Path[]; objectPaths: Path[] } = {
    paths: [
      [],
      ['name'],
      ['category_id'],
      ['price'],
      ['stock'],
      ['skus'],
      ['skus', 0],
      ['skus', 0, 'sku_code'],
      ['skus', 0, 'specs'],
      ['skus', 0, 'specs', 'color'],
      ['skus', 0, 'price'],
      ['skus', 0, 'stock'],
      ['skus', 1, 'sku_code'],
      ['images'],
      ['images', 0],
      ['images', 1],
      ['images', 1, 'url'],
      ['images', 1, 'sort_order'],
    ],
    stringPaths: [
      ['name'],
      ['skus', 0, 'sku_code'],
      ['skus', 1, 'sku_code'],
      ['skus', 0, 'specs', 'color'],
      ['images', 0],
      ['images', 1, 'url'],
    ],
    objectPaths: [[], ['skus', 0], ['skus', 0, 'specs'], ['images', 1]],
  };

  /** Valid item bodies that differ from each other (names, amounts, lists at their limits). */
  const validItem = fc
    .record({
      name: fc.oneof(
        fc.constantFrom('Trail boot', '跑鞋 Pro', '  padded  ', 'x'.repeat(200)),
        fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }),
      ),
      price: fc.constantFrom<unknown>(0, '0', 19.9, '19.90', '19.900', 99999999.99, '99999999.99', '00001.5'),
      stock: fc.constantFrom(0, 1, 2147483647),
      skuCount: fc.oneof(
        { arbitrary: fc.constantFrom(0, 1, 2), weight: 39 },
        { arbitrary: fc.constant(100), weight: 1 },
      ),
      imageCount: fc.constantFrom(0, 1, 20),
    })
    .map(({ name, price, stock, skuCount, imageCount }) =>
      itemBody(PROTECTED.categoryId, {
        name,
        price,
        stock,
        skus: Array.from({ length: skuCount }, (_, i) => ({ sku_code: `C-${i}`, specs: { n: String(i) }, stock: i })),
        images: Array.from({ length: imageCount }, (_, i) =>
          i % 2 ? { url: `https://cdn.example.com/${i}.jpg` } : `http://cdn.example.com/${i}.png`,
        ),
      }),
    );

  const itemCase = fc.record({
    body: fc.oneof(
      {
        arbitrary: mutationOf(ITEM_SHAPE).map((m) => ({
          kind: 'near-valid' as const,
          mutation: m,
          value: applyMutation(itemBody(PROTECTED.categoryId), m),
        })),
        weight: 30,
      },
      {
        arbitrary: validItem.map((v) => ({ kind: 'valid' as const, mutation: undefined, value: v as unknown })),
        weight: 8,
      },
      { arbitrary: wildValue.map((v) => ({ kind: 'wild' as const, mutation: undefined, value: v })), weight: 5 },
      {
        arbitrary: fc.constant({
          kind: 'oversized' as const,
          mutation: undefined,
          value: itemBody(PROTECTED.categoryId, { name: 'x'.repeat(101 * 1024) }) as unknown,
        }),
        weight: 1,
      },
    ),
    auth: credentials(['admin']),
    idempotencyKey: fc.option(headerText, { nil: undefined, freq: 2 }),
  });

  type ItemCase = typeof itemCase extends fc.Arbitrary<infer T> ? T : never;

  it('when POST /admin/api/items gets near-valid and wild bodies, tokens and Idempotency-Keys, then every answer follows the contract and refusals change nothing', async () => {
    await fuzz(currentTestName(), FILE, itemCase, RUNS, async (c) => {
      const extra: Array<[string, string]> =
        c.idempotencyKey === undefined ? [] : [['idempotency-key', c.idempotencyKey]];
      const req: WireRequest = {
        method: 'POST',
        path: '/admin/api/items',
        headers: suite.fx.jsonHeaders(c.auth, extra),
        body: jsonText(c.body.value),
      };
      const expected = expectedForItem(c);
      await exchange(ctx(), 'POST /admin/api/items', req, (res) => judgeHttp(res), { expected });
    });
    const missing = tally.requireSpread('POST /admin/api/items', {
      total: RUNS,
      prescribed: runs(300),
      outcomes: [
        [/^201$/, runs(40)],
        [/^400 VALIDATION_FAILED$/, runs(100)],
        [/^401 /, runs(20)],
        [/^403 ACCOUNT_DISABLED$/, 1],
        [/^409 IDEMPOTENCY_CONFLICT$/, 1],
        [/^413 /, 1],
      ],
    });
    expect(missing, tally.summary()).toEqual([]);
  });

  /** What the contract prescribes for an item case, when it prescribes one. */
  function expectedForItem(c: ItemCase): string[] | undefined {
    if (c.body.kind === 'oversized') return ['413 PAYLOAD_TOO_LARGE'];
    // The token is checked before the body (docs/api.md: REST as GraphQL).
    const a = authOutcome('admin', c.auth.label, c.auth.style);
    if (a === undefined) return undefined;
    if (a !== 'ok') return [problem(a)];
    const m = c.body.mutation;
    // §7.1: U+0000 or a lone surrogate in a field (or a `specs` key) is refused, whatever the key says.
    if (m?.op === 'unstorable') return ['400 VALIDATION_FAILED'];
    if (m?.op === 'add-key' && m.path.join('.') === 'skus.0.specs' && isUnstorable(m.key!))
      return ['400 VALIDATION_FAILED'];
    return undefined;
  }
});
