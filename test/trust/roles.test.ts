/**
 * Contract §10.1: admin roles. The role × operation matrix is generated from the schema and the one
 * table of roles (src/auth/roles.ts), so an admin operation added without a rule — or with the wrong
 * one — fails here: every role (and every API key role) calls every admin operation with arguments
 * that cannot pass validation; a role without the permission gets FORBIDDEN (so the check ran before
 * validation) and nothing is written, a role with it gets anything but FORBIDDEN.
 */
import {
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isLeafType,
  isListType,
  isNonNullType,
  isScalarType,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_ROLES, type AdminRole, PERMISSIONS } from '../../src/auth/roles.ts';
import { apiKeysMay, realmOfScope, rolesOf } from '../../src/auth/scopes.ts';
import { scopesOf } from '../../src/graphql/field-guards.ts';
import { schema } from '../../src/graphql/schema.ts';
import { expectProblem, gqlCode, loginAsAdmin, makeAdmin } from '../helpers/accounts.ts';
import { catalogCounts, itemBody, postItem } from '../helpers/catalog-admin.ts';
import { cliOn } from '../helpers/cli.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { createApiKeyAs } from '../helpers/trust.ts';

/** Root fields anyone may call (no token): a new field missing from here must declare its scopes. */
const PUBLIC = new Set([
  'items',
  'item',
  'categories',
  'searchSuggestions',
  'login',
  'wxLogin',
  'register',
  'adminLogin',
]);

/**
 * Contract §10.1 in the table's terms: who holds each permission, and which permission (or own-account
 * scope) each admin operation needs. A new admin operation fails until it is placed here.
 */
const CONTRACT_PERMISSIONS = {
  catalogRead: ['owner', 'catalog_manager', 'support', 'viewer'],
  catalogWrite: ['owner', 'catalog_manager'],
  customersRead: ['owner', 'support', 'viewer'],
  customersWrite: ['owner', 'support'],
  owner: ['owner'],
};
const CONTRACT_OPERATIONS: Record<string, string> = {
  adminMe: 'adminEnrolling',
  enrollTotp: 'adminEnrolling',
  confirmTotp: 'adminEnrolling',
  changeAdminPassword: 'adminEnrolling',
  disableTotp: 'admin',
  adminSessions: 'admin',
  revokeAdminSession: 'admin',
  synonymGroups: 'catalogRead',
  adminItems: 'catalogRead',
  adminItem: 'catalogRead',
  createItem: 'catalogWrite',
  updateItem: 'catalogWrite',
  deleteItem: 'catalogWrite',
  setItemsStatus: 'catalogWrite', // §12.1
  deleteItems: 'catalogWrite', // the console's bulk delete (§15)
  adjustStock: 'catalogWrite', // §12.3
  startImport: 'catalogWrite', // §13.2
  cancelImport: 'catalogWrite',
  import: 'catalogRead',
  imports: 'catalogRead',
  createCategory: 'catalogWrite',
  updateCategory: 'catalogWrite',
  deleteCategory: 'catalogWrite',
  saveSynonymGroup: 'catalogWrite',
  deleteSynonymGroup: 'catalogWrite',
  customers: 'customersRead',
  customer: 'customersRead',
  createCustomer: 'customersWrite',
  setCustomerDisabled: 'customersWrite',
  revokeAllSessionsOfCustomer: 'customersWrite',
  admins: 'owner',
  createAdmin: 'owner',
  setAdminRole: 'owner',
  setAdminDisabled: 'owner',
  resetTotp: 'owner',
  revokeAllSessionsOfAdmin: 'owner',
  apiKeys: 'owner',
  createApiKey: 'owner',
  revokeApiKey: 'owner',
  auditLog: 'owner',
  events: 'catalogRead', // §14.1
  webhooks: 'owner', // §14.2
  webhookDeliveries: 'owner',
  createWebhook: 'owner',
  updateWebhook: 'owner',
  deleteWebhook: 'owner',
  rotateWebhookSecret: 'owner',
  redeliverEvent: 'owner',
  sendTestEvent: 'owner',
};

type Field = GraphQLField<unknown, unknown>;
const rootFields = (): Array<{ kind: 'query' | 'mutation'; field: Field }> => [
  ...Object.values(schema.getQueryType()!.getFields()).map((field) => ({ kind: 'query' as const, field })),
  ...Object.values(schema.getMutationType()!.getFields()).map((field) => ({ kind: 'mutation' as const, field })),
];
const adminFields = rootFields().filter(({ field }) => scopesOf(field).some((s) => realmOfScope(s) === 'admin'));

/** A GraphQL literal of `type` that no validation lets through (ids 0, empty strings, past dates). */
function invalidLiteral(type: GraphQLInputType): string {
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) return '[]';
  if (isInputObjectType(inner)) {
    const fields = Object.values(inner.getFields()).filter((f) => isNonNullType(f.type));
    return `{ ${fields.map((f) => `${f.name}: ${invalidLiteral(f.type)}`).join(', ')} }`;
  }
  if (isEnumType(inner)) return inner.getValues()[0]!.name;
  if (isScalarType(inner)) {
    return (
      { Int: '0', ID: '""', String: '""', Boolean: 'false', Money: '-1', DateTime: '"2000-01-01T00:00:00.000Z"' }[
        inner.name
      ] ?? '""'
    );
  }
  throw new Error(`no literal for ${String(inner)}`);
}

/** `mutation { createItem(input: {…}) { __typename } }` with arguments that fail validation. */
function documentOf(kind: string, field: Field): string {
  const args = field.args
    .filter((a: GraphQLArgument) => isNonNullType(a.type))
    .map((a) => `${a.name}: ${invalidLiteral(a.type)}`);
  const selection = isLeafType(getNamedType(field.type)) ? '' : ' { __typename }';
  return `${kind} { ${field.name}${args.length ? `(${args.join(', ')})` : ''}${selection} }`;
}

let app: TestApp;
const tokens = {} as Record<AdminRole, string>;
const keys = {} as Record<Exclude<AdminRole, 'owner'>, string>;

beforeAll(async () => {
  app = await startTestApp({ LOGIN_IP_PER_MINUTE: '1000' });
  for (const role of ADMIN_ROLES) {
    const admin = await makeAdmin(app, { role, password: `${role}-password` });
    tokens[role] = await loginAsAdmin(app, { username: admin.username, password: `${role}-password` });
  }
  for (const role of ADMIN_ROLES) {
    if (role !== 'owner')
      keys[role] = (await createApiKeyAs(app, tokens.owner, { name: `matrix ${role}`, role })).secret;
  }
});
afterAll(() => app.close());

describe('every operation has a rule', () => {
  it('when the schema is read, then every root field is public by name or declares who may call it', () => {
    const unguarded = rootFields()
      .filter(({ field }) => scopesOf(field).length === 0 && !PUBLIC.has(field.name))
      .map(({ field }) => field.name);
    expect(unguarded).toEqual([]);
    expect(adminFields.length).toBeGreaterThan(25);
  });

  it('when the table and the operations are read, then they say what contract §10.1 says', () => {
    expect(PERMISSIONS).toEqual(CONTRACT_PERMISSIONS);
    const actual = Object.fromEntries(adminFields.map(({ field }) => [field.name, scopesOf(field).join(' | ')]));
    expect(actual).toEqual(CONTRACT_OPERATIONS);
  });

  it('when the docs are read, then each admin operation names its roles (GraphQL and OpenAPI)', async () => {
    const createItem = schema.getMutationType()!.getFields().createItem!;
    expect(createItem.description).toContain('Roles: owner, catalog_manager (an admin token or an API key).');
    expect(schema.getQueryType()!.getFields().auditLog!.description).toContain('Roles: owner');
    expect(schema.getQueryType()!.getFields().adminSessions!.description).toContain('not an API key');
    const openapi = (await app.request('/openapi.json')).body;
    const post = openapi.paths['/admin/api/items'].post;
    expect(post.description).toContain('Roles: owner, catalog_manager');
    expect(Object.keys(post.responses['403'].content['application/problem+json'].examples)).toContain('FORBIDDEN');
  });
});

describe('the role × operation matrix (generated from src/auth/roles.ts)', () => {
  it('when every role calls every admin operation with invalid arguments, then exactly the roles without the permission get FORBIDDEN, and nothing is written', async () => {
    const auditBefore = await app.db.prisma.auditEntry.count();
    const catalogBefore = await catalogCounts(app);
    const mismatches: string[] = [];
    const callers = [
      ...ADMIN_ROLES.map((role) => ({ who: `admin ${role}`, role, token: tokens[role], key: false })),
      ...Object.entries(keys).map(([role, token]) => ({
        who: `key ${role}`,
        role: role as AdminRole,
        token,
        key: true,
      })),
    ];
    for (const { kind, field } of adminFields) {
      const scopes = scopesOf(field);
      for (const caller of callers) {
        const allowed = rolesOf(scopes).includes(caller.role) && (!caller.key || apiKeysMay(scopes));
        const res = await app.graphql(documentOf(kind, field), {}, { token: caller.token });
        const code = gqlCode(res);
        if (allowed ? code === 'FORBIDDEN' : code !== 'FORBIDDEN') {
          mismatches.push(
            `${caller.who} ${field.name}: ${code ?? 'ok'} (expected ${allowed ? 'allowed' : 'FORBIDDEN'})`,
          );
        }
        if (code === 'FORBIDDEN') expect(res.body.errors[0].message).toMatch(/needs|API key/);
      }
    }
    expect(mismatches).toEqual([]);
    // Invalid arguments everywhere: no operation changed anything, refused or not.
    expect(await app.db.prisma.auditEntry.count()).toBe(auditBefore);
    expect(await catalogCounts(app)).toEqual(catalogBefore);
  });

  it('when a viewer posts an invalid item over REST, then 403 FORBIDDEN naming the roles, before validation, nothing written', async () => {
    const before = await catalogCounts(app);
    const res = await postItem(app, tokens.viewer, { name: '' });
    expectProblem(res, 403, 'FORBIDDEN');
    expect(res.body.detail).toBe("This needs the role owner or catalog_manager; the caller's role is viewer.");
    expect(res.body.errors).toBeUndefined();
    expect(await catalogCounts(app)).toEqual(before);
    const category = await app.db.prisma.category.create({ data: { name: 'Roles shelf' } });
    expect((await postItem(app, tokens.catalog_manager, itemBody(category.id))).status).toBe(201);
  });
});

describe('admins and roles (owner)', () => {
  const SET_ROLE = 'mutation ($id: Int!, $role: AdminRole!) { setAdminRole(id: $id, role: $role) { id role } }';

  it('when an owner creates an admin without a role, then it is a viewer; with one, that role', async () => {
    const create = (input: Record<string, unknown>) =>
      app.graphql(
        'mutation ($input: CreateAdminInput!) { createAdmin(input: $input) { username role } }',
        { input },
        {
          token: tokens.owner,
        },
      );
    expect((await create({ username: 'plain-new', password: 'plain-new-pw' })).body.data.createAdmin.role).toBe(
      'viewer',
    );
    const support = await create({ username: 'support-new', password: 'support-new-pw', role: 'support' });
    expect(support.body.data.createAdmin).toEqual({ username: 'support-new', role: 'support' });
    expect(gqlCode(await create({ username: 'bad-role', password: 'bad-role-pw', role: 'admin' }))).toBeDefined();
  });

  it("when an admin's role changes, then it takes effect on their next request (tokens carry no role)", async () => {
    const admin = await makeAdmin(app, { role: 'catalog_manager', password: 'demoted-pw' });
    const token = await loginAsAdmin(app, { username: admin.username, password: 'demoted-pw' });
    const createCategory = () =>
      app.graphql('mutation { createCategory(input: { name: "Role shelf" }) { id } }', {}, { token });
    expect(gqlCode(await createCategory())).toBeUndefined();
    const res = await app.graphql(SET_ROLE, { id: admin.id, role: 'viewer' }, { token: tokens.owner });
    expect(res.body.data.setAdminRole).toEqual({ id: admin.id, role: 'viewer' });
    expect(gqlCode(await createCategory())).toBe('FORBIDDEN');
    expect((await app.graphql('{ adminMe { role } }', {}, { token })).body.data.adminMe.role).toBe('viewer');
  });

  it('when the last enabled owner would be demoted or disabled, then VALIDATION_FAILED on role / disabled, and nothing changes', async () => {
    // Make the matrix's owner the only enabled one: every other owner is demoted first.
    const { id: ownerId } = await app.db.prisma.admin.findFirstOrThrow({
      where: { role: 'owner', username: { startsWith: 'admin-' } },
      orderBy: { id: 'asc' },
    });
    const others = await app.db.prisma.admin.findMany({ where: { role: 'owner', id: { not: ownerId } } });
    for (const other of others) {
      const res = await app.graphql(SET_ROLE, { id: other.id, role: 'support' }, { token: tokens.owner });
      expect(res.body.data?.setAdminRole?.role, res.text).toBe('support');
    }
    const demote = await app.graphql(SET_ROLE, { id: ownerId, role: 'viewer' }, { token: tokens.owner });
    expect(gqlCode(demote)).toBe('VALIDATION_FAILED');
    expect(demote.body.errors[0].extensions.errors).toEqual([
      { field: 'role', message: 'is the last enabled owner; make another admin owner first' },
    ]);
    // The operator's CLI is held to the same rule (and says so), for the role and for disabling.
    const { username } = await app.db.prisma.admin.findUniqueOrThrow({ where: { id: ownerId } });
    const cliDemote = await cliOn(app, ['set-role', username, 'viewer']);
    expect(cliDemote.code).toBe(1);
    expect(cliDemote.stderr).toMatch(/role: is the last enabled owner/);
    const cliDisable = await cliOn(app, ['disable-admin', username]);
    expect(cliDisable.code).toBe(1);
    expect(cliDisable.stderr).toMatch(/disabled: is the last enabled owner/);
    expect(await app.db.prisma.admin.findUniqueOrThrow({ where: { id: ownerId } })).toMatchObject({
      role: 'owner',
      disabled: false,
    });
    // With a second owner, the first may go.
    const second = await cliOn(app, ['set-role', others[0]!.username, 'owner']);
    expect(second.stdout).toMatch(/is now owner/);
    expect((await cliOn(app, ['set-role', username, 'viewer'])).code).toBe(0);
    expect((await cliOn(app, ['set-role', username, 'owner'])).code).toBe(0);
  });

  it('when create-admin runs at the CLI, then --role is required but for the first admin, and an unknown role is refused', async () => {
    const missing = await cliOn(app, ['create-admin', 'cli-no-role'], { stdin: 'cli-no-role-pw\n' });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/create-admin needs --role/);
    const unknown = await cliOn(app, ['create-admin', 'cli-bad-role', '--role', 'root'], { stdin: 'cli-bad-role\n' });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/role: must be one of owner, catalog_manager, support, viewer/);
    const ok = await cliOn(app, ['create-admin', 'cli-support', '--role', 'support'], { stdin: 'cli-support-pw\n' });
    expect(ok.stdout).toMatch(/^created admin #\d+ cli-support \(support\)\n$/);
  });
});
