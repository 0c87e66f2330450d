/**
 * GraphiQL's first tab and the messages a person exploring the API reads: the example operations
 * run as written, and errors say where to look and which token is needed.
 */
import { Kind, parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_ADMIN, DEMO_CUSTOMER } from '../../src/accounts/login.rest.ts';
import { EXAMPLE_HEADERS, EXAMPLE_TAB, TEAM_TAB } from '../../src/http/graphiql.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({
    SEED_DEMO: 'true',
    ADMIN_USERNAME: DEMO_ADMIN.username,
    ADMIN_PASSWORD: DEMO_ADMIN.password,
  });
  // The tour's customer, created as the README does it (GraphQL createCustomer with the admin's token).
  const login = await app.request('/admin/api/auth/login', { body: DEMO_ADMIN });
  const created = await app.graphql(
    'mutation($input: CreateCustomerInput!) { createCustomer(input: $input) { id } }',
    { input: DEMO_CUSTOMER },
    { token: login.body.access_token },
  );
  expect(created.body.errors).toBeUndefined();
});
afterAll(() => app.close());

const operationNames = () =>
  parse(EXAMPLE_TAB).definitions.flatMap((d) => (d.kind === Kind.OPERATION_DEFINITION && d.name ? [d.name.value] : []));

/** Runs one operation of the example tab, as GraphiQL sends it. */
const runExample = (operationName: string, token?: string) =>
  app.request('/graphql', { body: { query: EXAMPLE_TAB, operationName }, token });

describe('GraphiQL', () => {
  it('when the page is opened, then its first tab holds the examples and the Headers editor is open for a token', async () => {
    const page = await app.request('/graphql', { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    const init = page.text.match(/<script src="(\/graphql\/assets\/init\.[0-9a-f]+\.js)">/)?.[1];
    expect(init).toBeDefined();
    const script = (await app.request(init!)).text;
    expect(script).toContain(JSON.stringify(EXAMPLE_TAB));
    expect(script).toContain('"defaultEditorToolsVisibility":"headers"');
    expect(script).toContain(JSON.stringify(EXAMPLE_HEADERS));
    expect(JSON.parse(EXAMPLE_HEADERS)).toEqual({ Authorization: 'Bearer ' });
    expect(operationNames()).toEqual([
      'ListItems',
      'Categories',
      'Search',
      'Suggestions',
      'AdminLogin',
      'CreateItem',
      'CustomerLogin',
      'Me',
    ]);
  });

  it('when each example operation is run as the tab says, then it answers data without errors', async () => {
    const list = await runExample('ListItems');
    expect(list.body.errors).toBeUndefined();
    expect(list.body.data.items.items).toHaveLength(5);
    expect((await runExample('Categories')).body.data.categories.length).toBeGreaterThan(0);

    const login = await runExample('AdminLogin');
    expect(login.body.errors).toBeUndefined();
    const adminToken = login.body.data.adminLogin.accessToken;
    const created = await runExample('CreateItem', adminToken);
    expect(created.body.errors).toBeUndefined();
    expect(created.body.data.createItem).toMatchObject({ name: 'Summit hiking boot', category: { name: 'Boots' } });

    const customer = await runExample('CustomerLogin');
    expect(customer.body.errors).toBeUndefined();
    const me = await runExample('Me', customer.body.data.login.accessToken);
    expect(me.body.data.me).toMatchObject({ username: DEMO_CUSTOMER.username });
  });
});

describe('the team tab', () => {
  it('when its operations run with an owner token, then each answers data; ConfirmTotp needs a real code', async () => {
    const page = await app.request('/graphql', { headers: { accept: 'text/html' } });
    const init = page.text.match(/<script src="(\/graphql\/assets\/init\.[0-9a-f]+\.js)">/)?.[1];
    expect((await app.request(init!)).text).toContain(JSON.stringify(TEAM_TAB));
    const token = (await runExample('AdminLogin')).body.data.adminLogin.accessToken;
    const run = (operationName: string) => app.request('/graphql', { body: { query: TEAM_TAB, operationName }, token });
    for (const name of ['Team', 'CreateCatalogManager', 'CreateApiKey', 'AuditLog', 'EnrollTotp']) {
      const res = await run(name);
      expect(res.body.errors, `${name}: ${res.text}`).toBeUndefined();
    }
    expect((await run('AuditLog')).body.data.auditLog.total).toBeGreaterThan(0);
    expect((await run('ConfirmTotp')).body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
  });
});

describe('messages', () => {
  it('when GraphQL input is invalid, then the message points at extensions.errors; REST at errors', async () => {
    const gql = await app.graphql('mutation { login(username: "not-an-email", password: "") { accessToken } }');
    const [error] = gql.body.errors;
    expect(error.extensions.code).toBe('VALIDATION_FAILED');
    expect(error.message).toBe('The request has invalid fields; see `extensions.errors`.');
    expect(error.extensions.errors.length).toBeGreaterThan(0);

    const rest = await app.request('/api/v1/auth/login', { body: { username: 'not-an-email', password: '' } });
    expect(rest.body.code).toBe('VALIDATION_FAILED');
    expect(rest.body.detail).toBe('The request has invalid fields; see `errors`.');
    expect(rest.body.errors.length).toBeGreaterThan(0);
  });

  it('when a customer token is sent for an admin field, then TOKEN_INVALID says an admin token is required', async () => {
    const token = (await runExample('CustomerLogin')).body.data?.login.accessToken;
    expect(token).toBeTypeOf('string');
    const gql = await app.graphql('{ adminMe { id } }', undefined, { token });
    expect(gql.body.errors[0].extensions.code).toBe('TOKEN_INVALID');
    expect(gql.body.errors[0].message).toMatch(/^An admin token is required: this is a customer token\./);

    const rest = await app.request('/admin/api/items', { body: {}, token });
    expect(rest.status).toBe(401);
    expect(rest.body.code).toBe('TOKEN_INVALID');
    expect(rest.body.detail).toMatch(/^An admin token is required/);
  });

  it('when an admin token is sent for a customer field, then TOKEN_INVALID says a customer token is required', async () => {
    const token = (await runExample('AdminLogin')).body.data.adminLogin.accessToken;
    const gql = await app.graphql('{ me { id } }', undefined, { token });
    expect(gql.body.errors[0].extensions.code).toBe('TOKEN_INVALID');
    expect(gql.body.errors[0].message).toMatch(/^A customer token is required: this is an admin token\./);
  });
});
