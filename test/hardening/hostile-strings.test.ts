/**
 * Contract §7.1: U+0000 and unpaired surrogates never reach a statement. Each finding of the
 * hardening review has its own case here (the generated suite in test/hostile covers the rest):
 * a 400 VALIDATION_FAILED naming the field, and nothing written. Passwords are hashed, never
 * stored, so they may hold anything.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminLogin, customerLogin, expectProblem, gqlCode, loginAsAdmin } from '../helpers/accounts.ts';
import { errorFields, makeCategory } from '../helpers/catalog.ts';
import {
  CREATE_CATEGORY,
  CREATE_ITEM,
  catalogCounts,
  gqlErrorFields,
  itemBody,
  itemInput,
  postItem,
} from '../helpers/catalog-admin.ts';
import { type FakeWeChat, startFakeWeChat } from '../helpers/fake-wechat.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

const NUL = 'a\u0000b';
const LONE = 'a\ud800b';

let app: TestApp;
let wechat: FakeWeChat;
let admin: string;
let categoryId: number;
beforeAll(async () => {
  wechat = await startFakeWeChat();
  app = await startTestApp({ ...wechat.env, LOGIN_IP_PER_MINUTE: '1000' });
  admin = await loginAsAdmin(app);
  categoryId = (await makeCategory(app)).id;
});
afterAll(async () => {
  await app.close();
  await wechat.close();
});

describe('strings PostgreSQL cannot store', () => {
  const cases: Array<[string, (s: string) => Record<string, unknown>, string]> = [
    ['the item name', (s) => itemBody(categoryId, { name: s }), 'name'],
    ['a sku_code', (s) => itemBody(categoryId, { skus: [{ sku_code: s }] }), 'skus[0].sku_code'],
    ['a specs value', (s) => itemBody(categoryId, { skus: [{ specs: { color: s } }] }), 'skus[0].specs'],
    ['a specs key', (s) => itemBody(categoryId, { skus: [{ specs: { [s]: 'red' } }] }), 'skus[0].specs'],
    ['an image URL', (s) => itemBody(categoryId, { images: [`https://cdn.example.com/${s}.jpg`] }), 'images[0].url'],
  ];
  for (const [what, body, field] of cases) {
    for (const [kind, value] of [
      ['U+0000', NUL],
      ['a lone surrogate', LONE],
    ] as const) {
      it(`when ${what} holds ${kind}, then 400 VALIDATION_FAILED names ${field} and nothing is written`, async () => {
        const before = await catalogCounts(app);
        const res = await postItem(app, admin, body(value));
        expectProblem(res, 400, 'VALIDATION_FAILED');
        expect(errorFields(res.body.errors)).toEqual([field]);
        expect(await catalogCounts(app)).toEqual(before);
      });
    }
  }

  it('when the idempotencyKey argument holds U+0000, then VALIDATION_FAILED names it', async () => {
    // Headers are Latin-1 on the wire; a GraphQL argument is where a key can carry any character.
    const res = await app.graphql(CREATE_ITEM, { input: itemInput(categoryId), key: NUL }, { token: admin });
    expect(gqlCode(res)).toBe('VALIDATION_FAILED');
    expect(gqlErrorFields(res)).toEqual(['idempotencyKey']);
  });

  it('when the keyword holds U+0000, then 400 VALIDATION_FAILED names keyword', async () => {
    const res = await app.request('/api/v1/items?keyword=a%00b');
    expectProblem(res, 400, 'VALIDATION_FAILED');
    expect(errorFields(res.body.errors)).toEqual(['keyword']);
  });

  it('when a login username holds U+0000, then 400 VALIDATION_FAILED names username (customer and admin)', async () => {
    for (const login of [customerLogin, adminLogin]) {
      const res = await login(app, `x${NUL}@example.com`, 'whatever-password');
      expectProblem(res, 400, 'VALIDATION_FAILED');
      expect(errorFields(res.body.errors)).toEqual(['username']);
    }
  });

  it('when a password holds U+0000 or a lone surrogate, then it is simply a wrong password (401)', async () => {
    for (const password of [NUL, LONE]) {
      expectProblem(await customerLogin(app, 'nobody@example.com', password), 401, 'INVALID_CREDENTIALS');
    }
  });

  it('when a category name or a customer nickname holds U+0000, then the mutation fails with VALIDATION_FAILED', async () => {
    const category = await app.graphql(CREATE_CATEGORY, { input: { name: NUL } }, { token: admin });
    expect(gqlCode(category)).toBe('VALIDATION_FAILED');
    expect(gqlErrorFields(category)).toEqual(['name']);
    const customer = await app.graphql(
      'mutation($input: CreateCustomerInput!) { createCustomer(input: $input) { id } }',
      { input: { username: 'nul@example.com', password: 'long-enough-password', nickname: LONE } },
      { token: admin },
    );
    expect(gqlCode(customer)).toBe('VALIDATION_FAILED');
    expect(gqlErrorFields(customer)).toEqual(['nickname']);
    expect(await app.db.prisma.customer.count({ where: { username: 'nul@example.com' } })).toBe(0);
  });

  it('when a string literal in a GraphQL document holds an escaped U+0000, then VALIDATION_FAILED', async () => {
    const res = await app.graphql('{ items(keyword: "a\\u0000b") { total } }');
    expect(gqlCode(res)).toBe('VALIDATION_FAILED');
  });
});

describe('upstream data is input too', () => {
  for (const code of ['nul-openid', 'long-openid', 'bad-unionid:o-fine-openid']) {
    it(`when WeChat answers ${code}, then 503 UPSTREAM_UNAVAILABLE and no customer is created`, async () => {
      const before = await app.db.prisma.customer.count();
      expectProblem(await app.request('/api/v1/auth/wx-login', { body: { code } }), 503, 'UPSTREAM_UNAVAILABLE');
      expect(await app.db.prisma.customer.count()).toBe(before);
    });
  }
});
