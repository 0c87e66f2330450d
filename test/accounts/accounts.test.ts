/**
 * Account management over GraphQL (contract §5): createCustomer, setCustomerDisabled, createAdmin,
 * setAdminDisabled — admin only, validated like every input, effective on the next request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { passwordHasher } from '../../src/auth/password.ts';
import {
  adminLogin,
  CUSTOMER_PASSWORD,
  customerLogin,
  expectProblem,
  gqlCode,
  loginAsAdmin,
  loginAsCustomer,
  makeAdmin,
  makeCustomer,
  refresh,
  uniqueEmail,
} from '../helpers/accounts.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

// The test suite's cost (NODE_ENV=test): verifying reads the cost from the hash itself.
const { verify: verifyPassword } = passwordHasher('test');

let app: TestApp;
let rootToken: string;
beforeAll(async () => {
  app = await startTestApp({ LOGIN_IP_PER_MINUTE: '1000' });
  rootToken = await loginAsAdmin(app);
});
afterAll(() => app.close());

const CREATE_CUSTOMER = /* GraphQL */ `
  mutation ($input: CreateCustomerInput!) { createCustomer(input: $input) { id username nickname avatarUrl } }`;
const SET_CUSTOMER_DISABLED = /* GraphQL */ `
  mutation ($id: Int!, $disabled: Boolean!) { setCustomerDisabled(id: $id, disabled: $disabled) { id username } }`;
const CREATE_ADMIN = /* GraphQL */ `
  mutation ($input: CreateAdminInput!) { createAdmin(input: $input) { id username role } }`;
const SET_ADMIN_DISABLED = /* GraphQL */ `
  mutation ($id: Int!, $disabled: Boolean!) { setAdminDisabled(id: $id, disabled: $disabled) { id username role } }`;

const asRoot = (query: string, variables: Record<string, unknown>) =>
  app.graphql(query, variables, { token: rootToken });
const fieldsOf = (res: { body: any }) => res.body.errors[0].extensions.errors.map((e: { field: string }) => e.field);

describe('createCustomer', () => {
  it('when an admin creates a customer, then it is returned and can log in with its normalised e-mail', async () => {
    const email = uniqueEmail('Created');
    const res = await asRoot(CREATE_CUSTOMER, {
      input: { username: `  ${email.toUpperCase()} `, password: 'a-new-password', nickname: ' Neo ' },
    });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.createCustomer).toEqual({
      id: expect.any(Number),
      username: email.toLowerCase(),
      nickname: 'Neo',
      avatarUrl: null,
    });
    const stored = await app.db.prisma.customer.findUniqueOrThrow({ where: { id: res.body.data.createCustomer.id } });
    expect(stored.passwordHash).toMatch(/^\$argon2id\$/);
    expect((await customerLogin(app, email, 'a-new-password')).status).toBe(200);
  });

  it('when the input is invalid, then VALIDATION_FAILED lists every field and nothing is created', async () => {
    const before = await app.db.prisma.customer.count();
    const res = await asRoot(CREATE_CUSTOMER, {
      input: { username: 'not an email', password: 'short', nickname: 'x'.repeat(101) },
    });
    expect(gqlCode(res)).toBe('VALIDATION_FAILED');
    expect(fieldsOf(res)).toEqual(['username', 'password', 'nickname']);
    expect(await app.db.prisma.customer.count()).toBe(before);
  });

  it('when the e-mail is taken (in any case), then VALIDATION_FAILED on username', async () => {
    const existing = await makeCustomer(app);
    const res = await asRoot(CREATE_CUSTOMER, {
      input: { username: existing.username!.toUpperCase(), password: 'another-password' },
    });
    expect(gqlCode(res)).toBe('VALIDATION_FAILED');
    expect(res.body.errors[0].extensions.errors).toEqual([{ field: 'username', message: 'is already taken' }]);
  });

  it('when called without a token or with a customer token, then UNAUTHENTICATED / TOKEN_INVALID and nothing is created', async () => {
    const before = await app.db.prisma.customer.count();
    const input = { username: uniqueEmail(), password: 'password-123' };
    expect(gqlCode(await app.graphql(CREATE_CUSTOMER, { input }))).toBe('UNAUTHENTICATED');
    const customer = await makeCustomer(app);
    const customerToken = await loginAsCustomer(app, customer.username!);
    expect(gqlCode(await app.graphql(CREATE_CUSTOMER, { input }, { token: customerToken }))).toBe('TOKEN_INVALID');
    expect(await app.db.prisma.customer.count()).toBe(before + 1);
  });
});

describe('setCustomerDisabled', () => {
  it('when a customer is disabled, then their tokens stop at once, refresh is refused, and login says 403 only after the right password', async () => {
    const customer = await makeCustomer(app);
    const token = await loginAsCustomer(app, customer.username!);
    const otherSession = await loginAsCustomer(app, customer.username!);
    const res = await asRoot(SET_CUSTOMER_DISABLED, { id: customer.id, disabled: true });
    expect(res.body.data.setCustomerDisabled).toEqual({ id: customer.id, username: customer.username });

    expect(gqlCode(await app.graphql('{ me { id } }', {}, { token }))).toBe('TOKEN_REVOKED');
    expectProblem(await refresh(app, otherSession), 401, 'TOKEN_REVOKED');
    expect(await app.db.prisma.customerSession.count({ where: { customerId: customer.id, revokedAt: null } })).toBe(0);
    expectProblem(await customerLogin(app, customer.username, 'wrong password'), 401, 'INVALID_CREDENTIALS');
    expectProblem(await customerLogin(app, customer.username, CUSTOMER_PASSWORD), 403, 'ACCOUNT_DISABLED');
  });

  it('when a disabled customer is enabled again, then they can log in (old sessions stay revoked)', async () => {
    const customer = await makeCustomer(app);
    const old = await loginAsCustomer(app, customer.username!);
    await asRoot(SET_CUSTOMER_DISABLED, { id: customer.id, disabled: true });
    await asRoot(SET_CUSTOMER_DISABLED, { id: customer.id, disabled: false });
    expect((await customerLogin(app, customer.username, CUSTOMER_PASSWORD)).status).toBe(200);
    expect(gqlCode(await app.graphql('{ me { id } }', {}, { token: old }))).toBe('TOKEN_REVOKED');
  });

  it('when the customer does not exist, then NOT_FOUND; a bad id is VALIDATION_FAILED', async () => {
    expect(gqlCode(await asRoot(SET_CUSTOMER_DISABLED, { id: 987654, disabled: true }))).toBe('NOT_FOUND');
    expect(gqlCode(await asRoot(SET_CUSTOMER_DISABLED, { id: 0, disabled: true }))).toBe('VALIDATION_FAILED');
  });
});

describe('createAdmin and setAdminDisabled', () => {
  it('when an admin creates another admin, then the new one can log in and see itself in adminMe', async () => {
    const res = await asRoot(CREATE_ADMIN, { input: { username: ' night-shift ', password: 'night-shift-pw' } });
    expect(res.body.data.createAdmin).toEqual({ id: expect.any(Number), username: 'night-shift', role: 'viewer' });
    const stored = await app.db.prisma.admin.findUniqueOrThrow({ where: { username: 'night-shift' } });
    expect(await verifyPassword(stored.passwordHash, 'night-shift-pw')).toBe(true);
    const token = await loginAsAdmin(app, { username: 'night-shift', password: 'night-shift-pw' });
    expect((await app.graphql('{ adminMe { username } }', {}, { token })).body.data.adminMe.username).toBe(
      'night-shift',
    );
  });

  it('when the admin input is invalid or the name taken, then VALIDATION_FAILED naming the fields', async () => {
    const invalid = await asRoot(CREATE_ADMIN, { input: { username: 'ab', password: '1234567' } });
    expect(fieldsOf(invalid)).toEqual(['username', 'password']);
    const taken = await asRoot(CREATE_ADMIN, { input: { username: 'root', password: 'long-enough-pw' } });
    expect(taken.body.errors[0].extensions.errors).toEqual([{ field: 'username', message: 'is already taken' }]);
  });

  it('when an admin is disabled, then its existing token stops working at once (403) and login says 403 after the right password', async () => {
    const admin = await makeAdmin(app, { password: 'soon-disabled-pw' });
    const token = await loginAsAdmin(app, { username: admin.username, password: 'soon-disabled-pw' });
    expect((await app.graphql('{ adminMe { id } }', {}, { token })).body.data.adminMe.id).toBe(admin.id);

    const res = await asRoot(SET_ADMIN_DISABLED, { id: admin.id, disabled: true });
    expect(res.body.data.setAdminDisabled).toEqual({ id: admin.id, username: admin.username, role: 'owner' });
    expect(gqlCode(await app.graphql('{ adminMe { id } }', {}, { token }))).toBe('ACCOUNT_DISABLED');
    expect(
      gqlCode(
        await app.graphql(CREATE_CUSTOMER, { input: { username: uniqueEmail(), password: 'password-123' } }, { token }),
      ),
    ).toBe('ACCOUNT_DISABLED');
    expectProblem(await adminLogin(app, admin.username, 'wrong-password'), 401, 'INVALID_CREDENTIALS');
    expectProblem(await adminLogin(app, admin.username, 'soon-disabled-pw'), 403, 'ACCOUNT_DISABLED');

    await asRoot(SET_ADMIN_DISABLED, { id: admin.id, disabled: false });
    expect((await adminLogin(app, admin.username, 'soon-disabled-pw')).status).toBe(200);
  });

  it('when an admin tries to disable their own account, then VALIDATION_FAILED (no self-lockout)', async () => {
    const me = await app.graphql('{ adminMe { id } }', {}, { token: rootToken });
    const res = await asRoot(SET_ADMIN_DISABLED, { id: me.body.data.adminMe.id, disabled: true });
    expect(gqlCode(res)).toBe('VALIDATION_FAILED');
    expect(res.body.errors[0].extensions.errors).toEqual([
      { field: 'id', message: 'you cannot disable your own account' },
    ]);
  });

  it('when the admin does not exist, then NOT_FOUND', async () => {
    expect(gqlCode(await asRoot(SET_ADMIN_DISABLED, { id: 987654, disabled: true }))).toBe('NOT_FOUND');
  });
});

describe('the bootstrap admin', () => {
  it('when ADMIN_USERNAME / ADMIN_PASSWORD are set and no admin exists, then exactly that admin is created at start', async () => {
    const fresh = await startTestApp({ ADMIN_USERNAME: 'first-admin', ADMIN_PASSWORD: 'first-admin-password' });
    try {
      expect(await fresh.db.prisma.admin.findMany({ select: { username: true, role: true, disabled: true } })).toEqual([
        { username: 'first-admin', role: 'owner', disabled: false },
      ]);
      expect((await adminLogin(fresh, 'first-admin', 'first-admin-password')).status).toBe(200);
    } finally {
      await fresh.close();
    }
  });
});
