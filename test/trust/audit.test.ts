/**
 * Contract §10.2: every successful admin write and every admin login appends one entry, in the
 * write's transaction, with before/after of what changed and secrets redacted; refused writes are
 * no entries; the database refuses UPDATE and DELETE of entries; `auditLog` reads them, newest first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminLogin, expectProblem, gqlCode, loginAsAdmin, makeAdmin, makeCustomer } from '../helpers/accounts.ts';
import { itemBody, postItem } from '../helpers/catalog-admin.ts';
import { cliOn } from '../helpers/cli.ts';
import { startTestApp, TEST_ADMIN, type TestApp } from '../helpers/test-app.ts';
import { auditEntries, createApiKeyAs, totpCode } from '../helpers/trust.ts';

let app: TestApp;
let owner: string;
let ownerId: number;

beforeAll(async () => {
  app = await startTestApp({ LOGIN_IP_PER_MINUTE: '1000' });
  owner = await loginAsAdmin(app);
  ownerId = (await app.db.prisma.admin.findUniqueOrThrow({ where: { username: TEST_ADMIN.username } })).id;
});
afterAll(() => app.close());

const gql = async (query: string, variables: Record<string, unknown> = {}, token = owner) => {
  const res = await app.graphql(query, variables, { token, headers: { 'x-request-id': 'audit-test-request' } });
  expect(res.body.errors, res.text).toBeUndefined();
  return res.body.data;
};

describe('what the audit log records', () => {
  it('when an admin writes the catalogue, then each write is one entry with the changed fields before and after', async () => {
    const { createCategory } = await gql('mutation { createCategory(input: { name: "Audit shelf" }) { id } }');
    await gql(
      'mutation ($id: Int!) { updateCategory(id: $id, input: { name: "Audit shelf 2", sortOrder: 4 }) { id } }',
      {
        id: createCategory.id,
      },
    );
    const created = await postItem(app, owner, itemBody(createCategory.id, { name: 'Audited boot', price: 10 }), {
      'x-request-id': 'audit-test-request',
    });
    expect(created.status).toBe(201);
    const itemId = created.body.id as number;
    await gql('mutation ($id: Int!) { updateItem(id: $id, input: { price: "12.50", stock: 3 }) { id } }', {
      id: itemId,
    });
    await gql('mutation ($id: Int!) { deleteItem(id: $id) }', { id: itemId });
    await gql('mutation ($id: Int!) { deleteCategory(id: $id) }', { id: createCategory.id });
    const { saveSynonymGroup } = await gql('mutation { saveSynonymGroup(terms: ["靴子", "boots"]) { id } }');
    await gql('mutation ($id: Int!) { deleteSynonymGroup(id: $id) }', { id: saveSynonymGroup.id });

    const entries = await auditEntries(app, owner, { actorType: 'admin' });
    const mine = entries.filter((e) => e.requestId === 'audit-test-request').reverse();
    expect(mine.map((e) => e.action)).toEqual([
      'category.create',
      'category.update',
      'item.create',
      'item.update',
      'item.delete',
      'category.delete',
      'synonym_group.save',
      'synonym_group.delete',
    ]);
    const byAction = Object.fromEntries(mine.map((e) => [e.action, e]));
    expect(byAction['category.update']!.changes).toEqual({ name: ['Audit shelf', 'Audit shelf 2'], sortOrder: [0, 4] });
    expect(byAction['item.update']!.changes).toEqual({
      price: [10, 12.5],
      stock: [expect.any(Number), 3],
    });
    expect(byAction['item.create']!.changes.name).toEqual([null, 'Audited boot']);
    expect(byAction['item.delete']!.changes.name).toEqual(['Audited boot', null]);
    expect(byAction['synonym_group.save']!.changes).toEqual({ terms: [null, ['靴子', 'boots']] });
    expect(byAction['item.create']).toMatchObject({
      actor: { type: 'admin', id: ownerId, name: TEST_ADMIN.username },
      target: { type: 'item', id: itemId },
      ip: expect.any(String),
      at: expect.stringMatching(/Z$/),
    });
  });

  it('when a write is refused, then there is no entry', async () => {
    const before = await app.db.prisma.auditEntry.count();
    const res = await app.graphql('mutation { deleteItem(id: 999999) }', {}, { token: owner });
    expect(gqlCode(res)).toBe('NOT_FOUND');
    const invalid = await app.graphql('mutation { createCategory(input: { name: "" }) { id } }', {}, { token: owner });
    expect(gqlCode(invalid)).toBe('VALIDATION_FAILED');
    expect(await app.db.prisma.auditEntry.count()).toBe(before);
  });

  it('when accounts change, then customer and admin entries name the target, and passwords are redacted', async () => {
    const { createCustomer } = await gql(
      'mutation { createCustomer(input: { username: "audited@example.com", password: "audited-password" }) { id } }',
    );
    await gql('mutation ($id: Int!) { setCustomerDisabled(id: $id, disabled: true) { id } }', {
      id: createCustomer.id,
    });
    await gql('mutation ($id: Int!) { setCustomerDisabled(id: $id, disabled: false) { id } }', {
      id: createCustomer.id,
    });
    await gql('mutation ($id: Int!) { revokeAllSessionsOfCustomer(customerId: $id) }', { id: createCustomer.id });
    const { createAdmin } = await gql(
      'mutation { createAdmin(input: { username: "audited-admin", password: "audited-admin-pw", role: support }) { id } }',
    );
    await gql('mutation ($id: Int!) { setAdminRole(id: $id, role: viewer) { id } }', { id: createAdmin.id });
    await gql('mutation ($id: Int!) { setAdminDisabled(id: $id, disabled: true) { id } }', { id: createAdmin.id });
    await gql('mutation ($id: Int!) { setAdminDisabled(id: $id, disabled: false) { id } }', { id: createAdmin.id });
    await gql('mutation ($id: Int!) { revokeAllSessionsOfAdmin(adminId: $id) }', { id: createAdmin.id });

    const customer = await auditEntries(app, owner, { targetType: 'customer', targetId: createCustomer.id });
    expect(customer.map((e) => e.action).reverse()).toEqual([
      'customer.create',
      'customer.disable',
      'customer.enable',
      'customer.revoke_sessions',
    ]);
    expect(customer.at(-1)!.changes).toEqual({
      username: [null, 'audited@example.com'],
      password: [null, '[redacted]'],
    });
    expect(customer[2]!.changes).toEqual({ disabled: [false, true] });

    const admin = await auditEntries(app, owner, { targetType: 'admin', targetId: createAdmin.id });
    expect(admin.map((e) => e.action).reverse()).toEqual([
      'admin.create',
      'admin.role',
      'admin.disable',
      'admin.enable',
      'admin.revoke_sessions',
    ]);
    expect(admin[3]!.changes).toEqual({ role: ['support', 'viewer'] });
    const text = JSON.stringify(await auditEntries(app, owner));
    expect(text).not.toContain('audited-password');
    expect(text).not.toContain('audited-admin-pw');
    expect(text).not.toContain('$argon2id$');
  });

  it('when an admin logs in, fails, or an unknown name is tried, then login entries say so (the unknown name is not kept)', async () => {
    const admin = await makeAdmin(app, { username: 'login-audited', password: 'login-audited-pw' });
    expect((await adminLogin(app, 'login-audited', 'login-audited-pw')).status).toBe(200);
    expectProblem(await adminLogin(app, 'login-audited', 'wrong-password'), 401, 'INVALID_CREDENTIALS');
    expectProblem(await adminLogin(app, 'nobody-by-this-name', 'wrong-password'), 401, 'INVALID_CREDENTIALS');
    const mine = await auditEntries(app, owner, { targetType: 'admin', targetId: admin.id });
    expect(mine.map((e) => [e.action, e.actor.type, e.actor.id])).toEqual([
      ['admin.login_failed', 'anonymous', null],
      ['admin.login', 'admin', admin.id],
    ]);
    const unknown = (await auditEntries(app, owner, { action: 'admin.login_failed' })).filter(
      (e) => e.target.id === null,
    );
    expect(unknown).toHaveLength(1);
    expect(JSON.stringify(unknown)).not.toContain('nobody-by-this-name');
  });

  it('when an operator or an API key writes, then the actor is `cli` or the key by name', async () => {
    await makeCustomer(app, { username: 'cli-audited@example.com' });
    expect((await cliOn(app, ['disable-customer', 'cli-audited@example.com'])).code).toBe(0);
    const [cli] = await auditEntries(app, owner, { action: 'customer.disable', actorType: 'cli' });
    expect(cli).toMatchObject({ actor: { type: 'cli', id: null, name: 'cli' }, requestId: 'cli' });

    const key = await createApiKeyAs(app, owner, { name: 'ERP sync', role: 'catalog_manager' });
    const res = await app.graphql(
      'mutation { createCategory(input: { name: "ERP shelf" }) { id } }',
      {},
      {
        token: key.secret,
      },
    );
    const [byKey] = await auditEntries(app, owner, { action: 'category.create', actorType: 'api_key' });
    expect(byKey).toMatchObject({
      actor: { type: 'api_key', id: key.id, name: 'ERP sync' },
      target: { type: 'category', id: res.body.data.createCategory.id },
    });
    const [created] = await auditEntries(app, owner, { action: 'api_key.create', targetId: key.id });
    expect(created!.changes).toMatchObject({ name: [null, 'ERP sync'], secret: [null, '[redacted]'] });
    expect(JSON.stringify(created)).not.toContain(key.secret.slice(12));
  });
});

describe('append-only', () => {
  it('when anything tries to UPDATE, DELETE or TRUNCATE entries, then the database refuses', async () => {
    const before = await app.db.prisma.auditEntry.count();
    expect(before).toBeGreaterThan(0);
    for (const statement of [
      `UPDATE audit_log SET action = 'item.nothing'`,
      'DELETE FROM audit_log',
      'TRUNCATE audit_log',
    ]) {
      await expect(app.db.sql.exec(statement), statement).rejects.toThrow(/append-only/);
    }
    expect(await app.db.prisma.auditEntry.count()).toBe(before);
    const noWayIn = await app.graphql('{ __type(name: "Mutation") { fields { name } } }');
    const names = (noWayIn.body.data.__type.fields as Array<{ name: string }>).map((f) => f.name);
    expect(names.filter((n) => /audit/i.test(n))).toEqual([]);
  });
});

describe('auditLog (owner)', () => {
  it('when read with filters and pages, then newest first, counted, and bounded by time', async () => {
    const all = await app.graphql(
      '{ auditLog(limit: 2) { page limit total totalPages entries { id at } } }',
      {},
      {
        token: owner,
      },
    );
    const page = all.body.data.auditLog;
    expect(page.limit).toBe(2);
    expect(page.entries).toHaveLength(2);
    expect(page.totalPages).toBe(Math.ceil(page.total / 2));
    expect(page.entries[0].at >= page.entries[1].at).toBe(true);
    if (page.entries[0].at === page.entries[1].at) expect(page.entries[0].id).toBeGreaterThan(page.entries[1].id);
    const future = await app.graphql(
      '{ auditLog(from: "2999-01-01T00:00:00.000Z") { total entries { id } } }',
      {},
      {
        token: owner,
      },
    );
    expect(future.body.data.auditLog).toEqual({ total: 0, entries: [] });
    const bad = await app.graphql(
      '{ auditLog(from: "2026-02-01T00:00:00.000Z", to: "2026-01-01T00:00:00.000Z", limit: 101) { total } }',
      {},
      { token: owner },
    );
    expect(gqlCode(bad)).toBe('VALIDATION_FAILED');
    expect(bad.body.errors[0].extensions.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'from',
      'limit',
    ]);
  });
});

describe('every kind of entry', () => {
  const CONTRACT_ACTIONS = [
    'item.create',
    'item.update',
    'item.delete',
    'category.create',
    'category.update',
    'category.delete',
    'customer.create',
    'customer.disable',
    'customer.enable',
    'customer.revoke_sessions',
    'admin.create',
    'admin.role',
    'admin.disable',
    'admin.enable',
    'admin.password',
    'admin.totp_enable',
    'admin.totp_disable',
    'admin.totp_reset',
    'admin.revoke_sessions',
    'admin.login',
    'admin.login_failed',
    'api_key.create',
    'api_key.revoke',
    'synonym_group.save',
    'synonym_group.delete',
    'item.status', // §12.1
    'item.stock', // §12.3
  ];

  it('when the remaining writes run (password, two-factor on / off / reset, key revoked), then the log holds every action of contract §10.2', async () => {
    await makeAdmin(app, { username: 'all-kinds', password: 'all-kinds-pw', role: 'viewer' });
    const token = await loginAsAdmin(app, { username: 'all-kinds', password: 'all-kinds-pw' });
    const mine = (query: string, variables: Record<string, unknown> = {}) => gql(query, variables, token);
    await mine('mutation { changeAdminPassword(currentPassword: "all-kinds-pw", newPassword: "all-kinds-pw-2") }');
    const { enrollTotp } = await mine('mutation { enrollTotp { secret } }');
    const now = Math.floor(Date.now() / 1000);
    await mine('mutation ($c: String!) { confirmTotp(code: $c) }', { c: await totpCode(enrollTotp.secret, now) });
    await mine('mutation ($c: String!) { disableTotp(code: $c) }', { c: await totpCode(enrollTotp.secret, now + 30) });
    const { id } = await app.db.prisma.admin.findUniqueOrThrow({ where: { username: 'all-kinds' } });
    await gql('mutation ($id: Int!) { resetTotp(adminId: $id) }', { id });
    const key = await createApiKeyAs(app, owner, { name: 'Short-lived', role: 'viewer' });
    await gql('mutation ($id: Int!) { revokeApiKey(id: $id) }', { id: key.id });
    const category = await app.db.prisma.category.create({ data: { name: 'All kinds' } });
    const created = await postItem(app, owner, itemBody(category.id, { name: 'All kinds boot' }));
    expect(created.status, created.text).toBe(201);
    const item = created.body as { id: number; skus: Array<{ id: number }> };
    await gql('mutation ($ids: [Int!]!) { setItemsStatus(ids: $ids, status: archived) }', { ids: [item.id] });
    await gql(
      'mutation ($a: [StockAdjustmentInput!]!) { adjustStock(adjustments: $a, idempotencyKey: "audit-all-kinds") { id } }',
      {
        a: [{ skuId: item.skus[0]!.id, delta: 1 }],
      },
    );

    const seen = new Set((await app.db.prisma.auditEntry.findMany({ select: { action: true } })).map((e) => e.action));
    expect(CONTRACT_ACTIONS.filter((a) => !seen.has(a))).toEqual([]);
    const [disabled] = await auditEntries(app, owner, { action: 'admin.totp_disable', targetId: id });
    expect(disabled).toMatchObject({
      actor: { type: 'admin', id },
      changes: { totpSecret: ['[redacted]', null], recoveryCodes: ['[redacted]', null] },
    });
  });
});
