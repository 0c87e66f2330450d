/**
 * Contract §8.3: the admin GraphQL reads `customers(page, limit, keyword)`, `customer(id)` and
 * `admins`, and the Customer fields `disabled` / `createdAt` that only admin callers see.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gqlCode, loginAsAdmin, loginAsCustomer, makeAdmin, makeCustomer } from '../helpers/accounts.ts';
import { errorFields, ISO_UTC } from '../helpers/catalog.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

let app: TestApp;
let adminToken: string;
let customerToken: string;
const ids: Record<string, number> = {};

beforeAll(async () => {
  app = await startTestApp({ LOGIN_IP_PER_MINUTE: '1000' });
  adminToken = await loginAsAdmin(app);
  const rows: Array<[string, string | null, string | null]> = [
    ['alice', 'alice@example.com', 'Alice'],
    ['bob', 'bob@shop.example', 'Bobby 100%'],
    ['carol', 'carol@example.com', null],
    ['wx', null, '微信用户'],
    ['dave', 'dave_x@example.com', 'Dave'],
  ];
  for (const [key, username, nickname] of rows) {
    const c = await makeCustomer(app, {
      username,
      password: username ? undefined : null,
      nickname: nickname ?? undefined,
      wxOpenid: username ? undefined : 'openid-admin-reads',
      disabled: key === 'carol',
    });
    ids[key] = c.id;
  }
  customerToken = await loginAsCustomer(app, 'alice@example.com');
});
afterAll(() => app.close());

const CUSTOMERS = /* GraphQL */ `
  query ($page: Int, $limit: Int, $keyword: String) {
    customers(page: $page, limit: $limit, keyword: $keyword) {
      items { id username nickname avatarUrl disabled createdAt } page limit total totalPages
    }
  }`;
const CUSTOMER = /* GraphQL */ `query ($id: Int!) { customer(id: $id) { id username nickname avatarUrl disabled createdAt } }`;
const ADMINS = /* GraphQL */ `{ admins { id username role disabled createdAt } }`;

const asAdmin = (query: string, variables: Record<string, unknown> = {}) =>
  app.graphql(query, variables, { token: adminToken });
const idsOf = (res: { body: any }) => res.body.data.customers.items.map((c: { id: number }) => c.id);

describe('customers', () => {
  it('when an admin lists customers, then newest first with every field and the right page numbers', async () => {
    const res = await asAdmin(CUSTOMERS);
    expect(res.body.errors).toBeUndefined();
    const page = res.body.data.customers;
    expect(page).toMatchObject({ page: 1, limit: 20, total: 5, totalPages: 1 });
    expect(idsOf(res)).toEqual([ids.dave, ids.wx, ids.carol, ids.bob, ids.alice]);
    const carol = page.items.find((c: { id: number }) => c.id === ids.carol);
    expect(carol).toEqual({
      id: ids.carol,
      username: 'carol@example.com',
      nickname: null,
      avatarUrl: null,
      disabled: true,
      createdAt: expect.stringMatching(ISO_UTC),
    });
  });

  it('when paged, then each page holds its share and past the end is empty with the total', async () => {
    const first = await asAdmin(CUSTOMERS, { limit: 2 });
    const third = await asAdmin(CUSTOMERS, { limit: 2, page: 3 });
    const past = await asAdmin(CUSTOMERS, { limit: 2, page: 9 });
    expect(idsOf(first)).toEqual([ids.dave, ids.wx]);
    expect(idsOf(third)).toEqual([ids.alice]);
    expect(past.body.data.customers).toMatchObject({ items: [], page: 9, total: 5, totalPages: 3 });
  });

  it('when a keyword is given, then it matches the username or the nickname, case-insensitively', async () => {
    expect(idsOf(await asAdmin(CUSTOMERS, { keyword: 'EXAMPLE.COM' }))).toEqual([ids.dave, ids.carol, ids.alice]);
    expect(idsOf(await asAdmin(CUSTOMERS, { keyword: 'bobby' }))).toEqual([ids.bob]);
    expect(idsOf(await asAdmin(CUSTOMERS, { keyword: '微信' }))).toEqual([ids.wx]);
    expect(idsOf(await asAdmin(CUSTOMERS, { keyword: '  ali  ' }))).toEqual([ids.alice]);
    const none = await asAdmin(CUSTOMERS, { keyword: 'nobody-here' });
    expect(none.body.data.customers).toMatchObject({ items: [], total: 0, totalPages: 0 });
    expect((await asAdmin(CUSTOMERS, { keyword: '' })).body.data.customers.total).toBe(5);
  });

  it('when the keyword holds % or _, then they match themselves only', async () => {
    expect(idsOf(await asAdmin(CUSTOMERS, { keyword: '%' }))).toEqual([ids.bob]);
    expect(idsOf(await asAdmin(CUSTOMERS, { keyword: '_x' }))).toEqual([ids.dave]);
  });

  it('when page, limit or keyword are out of range, then VALIDATION_FAILED naming each', async () => {
    const res = await asAdmin(CUSTOMERS, { page: 0, limit: 101, keyword: 'k'.repeat(101) });
    expect(gqlCode(res)).toBe('VALIDATION_FAILED');
    expect(errorFields(res.body.errors[0].extensions.errors).sort()).toEqual(['keyword', 'limit', 'page']);
  });

  it('when there is no token or a customer token, then UNAUTHENTICATED or TOKEN_INVALID and no data', async () => {
    const none = await app.graphql(CUSTOMERS);
    expect(gqlCode(none)).toBe('UNAUTHENTICATED');
    expect(none.body.data ?? null).toBeNull();
    expect(gqlCode(await app.graphql(CUSTOMERS, {}, { token: customerToken }))).toBe('TOKEN_INVALID');
  });
});

describe('customer(id)', () => {
  it('when the customer exists, then it is returned with the admin-only fields', async () => {
    const res = await asAdmin(CUSTOMER, { id: ids.wx });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.customer).toEqual({
      id: ids.wx,
      username: null,
      nickname: '微信用户',
      avatarUrl: null,
      disabled: false,
      createdAt: expect.stringMatching(ISO_UTC),
    });
  });

  it('when there is no such customer, then null', async () => {
    const res = await asAdmin(CUSTOMER, { id: 2147483647 });
    expect(res.body).toEqual({ data: { customer: null } });
  });

  it('when the id is not positive, then VALIDATION_FAILED on id', async () => {
    const res = await asAdmin(CUSTOMER, { id: 0 });
    expect(gqlCode(res)).toBe('VALIDATION_FAILED');
    expect(errorFields(res.body.errors[0].extensions.errors)).toEqual(['id']);
  });

  it('when a customer token asks, then TOKEN_INVALID', async () => {
    expect(gqlCode(await app.graphql(CUSTOMER, { id: ids.alice }, { token: customerToken }))).toBe('TOKEN_INVALID');
  });
});

describe('admins', () => {
  it('when an admin lists admins, then every account by id, disabled ones included', async () => {
    const second = await makeAdmin(app, { username: 'night-shift', disabled: true });
    const res = await asAdmin(ADMINS);
    expect(res.body.errors).toBeUndefined();
    const admins = res.body.data.admins;
    expect(admins.map((a: { username: string }) => a.username)).toEqual(['root', 'night-shift']);
    expect(admins[1]).toEqual({
      id: second.id,
      username: 'night-shift',
      role: 'owner',
      disabled: true,
      createdAt: expect.stringMatching(ISO_UTC),
    });
  });

  it('when there is no token or a customer token, then UNAUTHENTICATED or TOKEN_INVALID', async () => {
    expect(gqlCode(await app.graphql(ADMINS))).toBe('UNAUTHENTICATED');
    expect(gqlCode(await app.graphql(ADMINS, {}, { token: customerToken }))).toBe('TOKEN_INVALID');
  });
});

describe('disabled and createdAt are for admin callers only', () => {
  it('when a customer selects them on me, then an error and no data; without them me works', async () => {
    const res = await app.graphql('{ me { id disabled } }', {}, { token: customerToken });
    expect(gqlCode(res)).toBe('TOKEN_INVALID');
    expect(res.body.data?.me ?? null).toBeNull();
    const created = await app.graphql('{ me { id createdAt } }', {}, { token: customerToken });
    expect(gqlCode(created)).toBe('TOKEN_INVALID');
    expect((await app.graphql('{ me { id } }', {}, { token: customerToken })).body.data.me.id).toBe(ids.alice);
  });

  it('when a login answer selects them without a token, then UNAUTHENTICATED', async () => {
    const res = await app.graphql(
      'mutation { login(username: "bob@shop.example", password: "correct horse battery staple") { user { id createdAt } } }',
    );
    expect(gqlCode(res)).toBe('UNAUTHENTICATED');
  });

  it('when an admin reads a created customer, then the fields are there', async () => {
    const res = await asAdmin(
      'mutation { createCustomer(input: { username: "eve@example.com", password: "eve-password" }) { id disabled createdAt } }',
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.createCustomer).toMatchObject({ disabled: false, createdAt: expect.stringMatching(ISO_UTC) });
  });
});
