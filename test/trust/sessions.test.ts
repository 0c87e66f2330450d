/**
 * Contract §10.4: every login is a session with created_at, last_used_at (refreshed at most once a
 * minute), ip and a short user agent; customers list and end theirs over REST and GraphQL, admins
 * over GraphQL; an owner ends another admin's, support / owner a customer's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CUSTOMER_PASSWORD,
  customerLogin,
  expectProblem,
  gqlCode,
  loginAsAdmin,
  loginAsCustomer,
  makeAdmin,
  makeCustomer,
} from '../helpers/accounts.ts';
import { ISO_UTC } from '../helpers/catalog.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { auditEntries } from '../helpers/trust.ts';

let app: TestApp;
let owner: string;

beforeAll(async () => {
  app = await startTestApp({ LOGIN_IP_PER_MINUTE: '1000' });
  owner = await loginAsAdmin(app);
});
afterAll(() => app.close());

const loginFrom = async (username: string, userAgent: string) => {
  const res = await customerLogin(app, username, CUSTOMER_PASSWORD, { 'user-agent': userAgent });
  expect(res.status, res.text).toBe(200);
  return res.body.access_token as string;
};
const sessionsOf = (token: string) => app.request('/api/v1/me/sessions', { token });

describe('a customer’s sessions (REST)', () => {
  it('when a customer lists sessions, then each login is there, newest first, with ip, a short user agent and `current`', async () => {
    const customer = await makeCustomer(app);
    const phone = await loginFrom(customer.username!, 'ShopApp/1.0 (iPhone)');
    const laptop = await loginFrom(customer.username!, `Mozilla/5.0 ${'x'.repeat(400)}`);
    const res = await sessionsOf(laptop);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const { sessions } = res.body;
    expect(sessions).toHaveLength(2);
    expect(sessions[0]).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      created_at: expect.stringMatching(ISO_UTC),
      last_used_at: expect.stringMatching(ISO_UTC),
      ip: expect.stringMatching(/127\.0\.0\.1|::1/),
      user_agent: expect.stringMatching(/^Mozilla\/5\.0 x+$/),
      current: true,
    });
    expect(sessions[0].user_agent).toHaveLength(200);
    expect(sessions[1]).toMatchObject({ user_agent: 'ShopApp/1.0 (iPhone)', current: false });
    // The phone sees the same two, with itself as current.
    const fromPhone = (await sessionsOf(phone)).body.sessions;
    expect(fromPhone.map((s: { current: boolean }) => s.current)).toEqual([false, true]);
  });

  it('when one session is ended, then its token answers TOKEN_REVOKED and the list loses it; another customer’s id is 404', async () => {
    const customer = await makeCustomer(app);
    const keep = await loginFrom(customer.username!, 'keep');
    const lose = await loginFrom(customer.username!, 'lose');
    const loseId = (await sessionsOf(lose)).body.sessions.find((s: { current: boolean }) => s.current).id as string;
    const stranger = await loginAsCustomer(app, (await makeCustomer(app)).username!);
    expectProblem(
      await app.request(`/api/v1/me/sessions/${loseId}`, { method: 'DELETE', token: stranger }),
      404,
      'NOT_FOUND',
    );
    expectProblem(
      await app.request('/api/v1/me/sessions/not-a-session', { method: 'DELETE', token: keep }),
      404,
      'NOT_FOUND',
    );
    const res = await app.request(`/api/v1/me/sessions/${loseId}`, { method: 'DELETE', token: keep });
    expect(res.status, res.text).toBe(204);
    expectProblem(await app.request('/api/v1/me', { token: lose }), 401, 'TOKEN_REVOKED');
    expect((await sessionsOf(keep)).body.sessions.map((s: { id: string }) => s.id)).not.toContain(loseId);
  });

  it('when every other session is ended, then only the current one works', async () => {
    const customer = await makeCustomer(app);
    const others = [await loginFrom(customer.username!, 'a'), await loginFrom(customer.username!, 'b')];
    const current = await loginFrom(customer.username!, 'c');
    expect((await app.request('/api/v1/me/sessions', { method: 'DELETE', token: current })).status).toBe(204);
    for (const token of others) expectProblem(await app.request('/api/v1/me', { token }), 401, 'TOKEN_REVOKED');
    expect((await sessionsOf(current)).body.sessions).toHaveLength(1);
    // An admin token or API key is of the other system here.
    expectProblem(await sessionsOf(owner), 401, 'TOKEN_INVALID');
  });

  it('when GraphQL is used, then mySessions / revokeMySession / revokeMyOtherSessions say the same', async () => {
    const customer = await makeCustomer(app);
    const a = await loginFrom(customer.username!, 'gql-a');
    const b = await loginFrom(customer.username!, 'gql-b');
    const list = await app.graphql('{ mySessions { id userAgent current } }', {}, { token: a });
    expect(list.body.data.mySessions.map((s: { userAgent: string }) => s.userAgent)).toEqual(['gql-b', 'gql-a']);
    const bId = list.body.data.mySessions[0].id;
    const res = await app.graphql('mutation ($id: ID!) { revokeMySession(id: $id) }', { id: bId }, { token: a });
    expect(res.body.data.revokeMySession).toBe(true);
    expect(gqlCode(await app.graphql('{ me { id } }', {}, { token: b }))).toBe('TOKEN_REVOKED');
    expect(
      (await app.graphql('mutation { revokeMyOtherSessions }', {}, { token: a })).body.data.revokeMyOtherSessions,
    ).toBe(true);
  });
});

describe('last_used_at', () => {
  it('when a session is used again within a minute, then nothing is written; after a minute, it moves', async () => {
    const customer = await makeCustomer(app);
    const token = await loginFrom(customer.username!, 'clock');
    const [{ id }] = (await sessionsOf(token)).body.sessions;
    const hourAgo = new Date(Date.now() - 3_600_000);
    await app.db.prisma.customerSession.update({ where: { id }, data: { lastUsedAt: hourAgo } });
    await app.request('/api/v1/me', { token });
    const touched = await app.db.prisma.customerSession.findUniqueOrThrow({ where: { id } });
    expect(touched.lastUsedAt.getTime()).toBeGreaterThan(Date.now() - 10_000);
    const fiftySecondsAgo = new Date(Date.now() - 50_000);
    await app.db.prisma.customerSession.update({ where: { id }, data: { lastUsedAt: fiftySecondsAgo } });
    for (let i = 0; i < 3; i++) await app.request('/api/v1/me', { token });
    const kept = await app.db.prisma.customerSession.findUniqueOrThrow({ where: { id } });
    expect(kept.lastUsedAt.getTime()).toBe(fiftySecondsAgo.getTime());
  });
});

describe('an admin’s sessions (GraphQL)', () => {
  it('when an admin lists and ends own sessions, then the ended token is TOKEN_REVOKED; another admin’s session is NOT_FOUND', async () => {
    const admin = await makeAdmin(app, { username: 'two-laptops', password: 'two-laptops-pw', role: 'viewer' });
    const first = await loginAsAdmin(app, { username: 'two-laptops', password: 'two-laptops-pw' });
    const second = await loginAsAdmin(app, { username: 'two-laptops', password: 'two-laptops-pw' });
    const list = await app.graphql(
      '{ adminSessions { id createdAt lastUsedAt ip userAgent current } }',
      {},
      {
        token: second,
      },
    );
    const sessions = list.body.data.adminSessions;
    expect(sessions).toHaveLength(2);
    expect(sessions[0].current).toBe(true);
    const firstId = sessions[1].id;
    const REVOKE = 'mutation ($id: ID!) { revokeAdminSession(id: $id) }';
    expect(gqlCode(await app.graphql(REVOKE, { id: firstId }, { token: owner }))).toBe('NOT_FOUND');
    expect((await app.graphql(REVOKE, { id: firstId }, { token: second })).body.data.revokeAdminSession).toBe(true);
    expect(gqlCode(await app.graphql('{ adminMe { id } }', {}, { token: first }))).toBe('TOKEN_REVOKED');
    const [entry] = await auditEntries(app, owner, { action: 'admin.revoke_sessions', targetId: admin.id });
    expect(entry!.actor).toMatchObject({ type: 'admin', id: admin.id });
  });

  it('when an owner ends every session of an admin, or support every session of a customer, then their tokens stop working', async () => {
    await makeAdmin(app, { username: 'ended-admin', password: 'ended-admin-pw', role: 'viewer' });
    const ended = await loginAsAdmin(app, { username: 'ended-admin', password: 'ended-admin-pw' });
    const { id: endedId } = await app.db.prisma.admin.findUniqueOrThrow({ where: { username: 'ended-admin' } });
    const res = await app.graphql(
      'mutation ($id: Int!) { revokeAllSessionsOfAdmin(adminId: $id) }',
      { id: endedId },
      {
        token: owner,
      },
    );
    expect(res.body.data.revokeAllSessionsOfAdmin).toBe(true);
    expect(gqlCode(await app.graphql('{ adminMe { id } }', {}, { token: ended }))).toBe('TOKEN_REVOKED');

    await makeAdmin(app, { username: 'support-desk', password: 'support-desk-pw', role: 'support' });
    const support = await loginAsAdmin(app, { username: 'support-desk', password: 'support-desk-pw' });
    const customer = await makeCustomer(app);
    const customerToken = await loginAsCustomer(app, customer.username!);
    const END = 'mutation ($id: Int!) { revokeAllSessionsOfCustomer(customerId: $id) }';
    expect(
      (await app.graphql(END, { id: customer.id }, { token: support })).body.data.revokeAllSessionsOfCustomer,
    ).toBe(true);
    expectProblem(await app.request('/api/v1/me', { token: customerToken }), 401, 'TOKEN_REVOKED');
    expect(gqlCode(await app.graphql(END, { id: 999999 }, { token: support }))).toBe('NOT_FOUND');
  });

  it('when an admin changes their password, then the other sessions end and the change is audited, redacted', async () => {
    const admin = await makeAdmin(app, { username: 'pw-changer', password: 'pw-changer-old', role: 'viewer' });
    const other = await loginAsAdmin(app, { username: 'pw-changer', password: 'pw-changer-old' });
    const token = await loginAsAdmin(app, { username: 'pw-changer', password: 'pw-changer-old' });
    const CHANGE = 'mutation ($c: String!, $n: String!) { changeAdminPassword(currentPassword: $c, newPassword: $n) }';
    expect(gqlCode(await app.graphql(CHANGE, { c: 'wrong-old-pw', n: 'pw-changer-new' }, { token }))).toBe(
      'INVALID_CREDENTIALS',
    );
    expect((await app.graphql(CHANGE, { c: 'pw-changer-old', n: 'pw-changer-new' }, { token })).body.data).toEqual({
      changeAdminPassword: true,
    });
    expect(gqlCode(await app.graphql('{ adminMe { id } }', {}, { token: other }))).toBe('TOKEN_REVOKED');
    expect((await app.graphql('{ adminMe { id } }', {}, { token })).body.data.adminMe.id).toBe(admin.id);
    await loginAsAdmin(app, { username: 'pw-changer', password: 'pw-changer-new' });
    const [entry] = await auditEntries(app, owner, { action: 'admin.password', targetId: admin.id });
    expect(entry!.changes).toEqual({ password: ['[redacted]', '[redacted]'], otherSessionsRevoked: [0, 1] });
  });
});

describe('what sessions cost (contract §10: at most one more statement on a login, none on a read)', () => {
  const statementsOf = async (fn: () => Promise<unknown>): Promise<number> => {
    const before = app.db.statementCount();
    await fn();
    return app.db.statementCount() - before;
  };

  it('when customers and admins log in and make requests, then the statements are what they were, plus one on an admin login', async () => {
    const customer = await makeCustomer(app);
    // The account, then the session (with ip and user agent in the same insert): as before §10.
    expect(await statementsOf(() => loginFrom(customer.username!, 'count'))).toBe(2);
    const token = await loginFrom(customer.username!, 'count');
    // A request within the minute writes nothing: every call costs the same reads.
    const me = () => app.request('/api/v1/me', { token });
    const reads = await statementsOf(me);
    expect(await statementsOf(me)).toBe(reads);
    // Once last_used_at is a minute old, the next request adds exactly the one update.
    await app.db.prisma.customerSession.updateMany({
      where: { customerId: customer.id },
      data: { lastUsedAt: new Date(Date.now() - 61_000) },
    });
    expect(await statementsOf(me)).toBe(reads + 1);
    expect(await statementsOf(me)).toBe(reads);
    // The account, then one statement writing the session and the login's audit entry (was: the account only).
    await makeAdmin(app, { username: 'counted-admin', password: 'counted-admin-pw', role: 'viewer' });
    expect(
      await statementsOf(() => loginAsAdmin(app, { username: 'counted-admin', password: 'counted-admin-pw' })),
    ).toBe(2);
    const adminToken = await loginAsAdmin(app, { username: 'counted-admin', password: 'counted-admin-pw' });
    // The session with its account (was: the account), then the field's own read.
    const adminMe = () => app.graphql('{ adminMe { id } }', {}, { token: adminToken });
    expect(await statementsOf(adminMe)).toBe(
      await statementsOf(() => app.graphql('{ adminMe { id } }', {}, { token: adminToken })),
    );
    expect(await statementsOf(adminMe)).toBeLessThanOrEqual(2);
    const { id: adminId } = await app.db.prisma.admin.findUniqueOrThrow({ where: { username: 'counted-admin' } });
    await app.db.prisma.adminSession.updateMany({
      where: { adminId },
      data: { lastUsedAt: new Date(Date.now() - 61_000) },
    });
    expect(await statementsOf(adminMe)).toBe(3);
    const sessions = await app.db.prisma.adminSession.findMany({ where: { adminId }, orderBy: { lastUsedAt: 'desc' } });
    expect(sessions[0]!.lastUsedAt.getTime()).toBeGreaterThan(Date.now() - 10_000);
    // A public catalogue read authenticates nobody: one statement, whatever the Authorization header.
    expect(await statementsOf(() => app.request('/api/v1/categories', { token }))).toBeLessThanOrEqual(1);
  });
});
