/**
 * Contract §10.3: two-factor login for admins — enrolment, confirmation with recovery codes, login with
 * a one-time code or a recovery code, the replay rule (also across two instances on PostgreSQL),
 * failures counted by the login limits, disabling, an owner's reset, ADMIN_REQUIRE_TOTP. Codes are
 * computed in the test from the secret, as an authenticator app computes them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminLogin, expectProblem, gqlCode, loginAsAdmin, makeAdmin } from '../helpers/accounts.ts';
import { cliOn } from '../helpers/cli.ts';
import { startTestApp, TEST_ADMIN, type TestApp } from '../helpers/test-app.ts';
import { auditEntries, totpCode } from '../helpers/trust.ts';

const TEST_DB = process.env.TEST_DB;
const STEP = 30;

let app: TestApp;
let owner: string;

beforeAll(async () => {
  app = await startTestApp({ LOGIN_IP_PER_MINUTE: '1000', LOGIN_MAX_FAILURES: '3' });
  owner = await loginAsAdmin(app);
});
afterAll(() => app.close());

const ENROLL = 'mutation { enrollTotp { secret otpauthUri qrSvg } }';
const CONFIRM = 'mutation ($code: String!) { confirmTotp(code: $code) }';

/** A new admin with two-factor login on: its secret, recovery codes and the step its confirmation used. */
async function enrolledAdmin(name: string, role: 'support' | 'owner' = 'support') {
  const admin = await makeAdmin(app, { username: name, password: `${name}-password`, role });
  const token = await loginAsAdmin(app, { username: name, password: `${name}-password` });
  const enrolment = (await app.graphql(ENROLL, {}, { token })).body.data.enrollTotp;
  const now = Math.floor(Date.now() / 1000);
  const confirmed = await app.graphql(CONFIRM, { code: await totpCode(enrolment.secret, now) }, { token });
  expect(confirmed.body.errors, confirmed.text).toBeUndefined();
  return {
    admin,
    token,
    secret: enrolment.secret as string,
    recoveryCodes: confirmed.body.data.confirmTotp as string[],
    /** The code of the step after the confirmation's: accepted (±1 step) and not used yet. */
    nextCode: () => totpCode(enrolment.secret, now + STEP),
    confirmedCode: () => totpCode(enrolment.secret, now),
  };
}

const loginWith = (name: string, otp?: string) =>
  app.request('/admin/api/auth/login', { body: { username: name, password: `${name}-password`, otp } });

describe('enrolment', () => {
  it('when an admin enrols, then a base32 secret, its otpauth URI and an SVG QR code; nothing is on until confirmed', async () => {
    const admin = await makeAdmin(app, { username: 'enrolling', password: 'enrolling-password' });
    const token = await loginAsAdmin(app, { username: 'enrolling', password: 'enrolling-password' });
    const { enrollTotp } = (await app.graphql(ENROLL, {}, { token })).body.data;
    expect(enrollTotp.secret).toMatch(/^[A-Z2-7]{16,}$/);
    expect(enrollTotp.otpauthUri).toMatch(/^otpauth:\/\/totp\/.*enrolling.*secret=/);
    expect(enrollTotp.qrSvg).toMatch(/^<svg[\s\S]*<\/svg>\s*$/);
    // Not on yet: the password alone still logs in, and no audit entry was written.
    expect((await adminLogin(app, 'enrolling', 'enrolling-password')).status).toBe(200);
    expect(await auditEntries(app, owner, { action: 'admin.totp_enable', targetId: admin.id })).toEqual([]);

    const wrong = await app.graphql(CONFIRM, { code: '000000' }, { token });
    expect(gqlCode(wrong)).toBe('VALIDATION_FAILED');
    expect(wrong.body.errors[0].extensions.errors[0].field).toBe('code');
    const right = await app.graphql(CONFIRM, { code: await totpCode(enrollTotp.secret) }, { token });
    const codes = right.body.data.confirmTotp as string[];
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    const stored = await app.db.prisma.adminRecoveryCode.findMany({ where: { adminId: admin.id } });
    expect(stored.map((r) => r.codeHash)).not.toContain(codes[0]);
    const [entry] = await auditEntries(app, owner, { action: 'admin.totp_enable', targetId: admin.id });
    expect(entry!.changes).toEqual({ totpSecret: [null, '[redacted]'], recoveryCodes: [null, '[redacted]'] });
    expect(JSON.stringify(entry)).not.toContain(enrollTotp.secret);
  });

  it('when an admin turns two-factor login on and off, then Admin.totpEnabled says so (to them and to an owner); nothing requires it here', async () => {
    const a = await enrolledAdmin('totp-state');
    const state = '{ adminMe { totpEnabled totpEnrollmentRequired } }';
    expect((await app.graphql(state, {}, { token: a.token })).body.data.adminMe).toEqual({
      totpEnabled: true,
      totpEnrollmentRequired: false,
    });
    const listed = async () =>
      (await app.graphql('{ admins { username totpEnabled } }', {}, { token: owner })).body.data.admins.find(
        (x: { username: string }) => x.username === 'totp-state',
      );
    expect(await listed()).toEqual({ username: 'totp-state', totpEnabled: true });
    const off = await app.graphql(
      'mutation ($code: String!) { disableTotp(code: $code) }',
      { code: a.recoveryCodes[0] },
      { token: a.token },
    );
    expect(off.body.errors, off.text).toBeUndefined();
    expect((await app.graphql(state, {}, { token: a.token })).body.data.adminMe).toEqual({
      totpEnabled: false,
      totpEnrollmentRequired: false,
    });
    expect(await listed()).toEqual({ username: 'totp-state', totpEnabled: false });
  });
});

describe('logging in with two-factor login on', () => {
  it('when the password is right but no code is sent, then 401 OTP_REQUIRED (not a failure); a right code logs in', async () => {
    const a = await enrolledAdmin('otp-login');
    for (let i = 0; i < 5; i++) expectProblem(await loginWith('otp-login'), 401, 'OTP_REQUIRED');
    const res = await loginWith('otp-login', await a.nextCode());
    expect(res.status, res.text).toBe(200);
    expect(res.body.admin.username).toBe('otp-login');
    // A wrong password is still INVALID_CREDENTIALS, whatever the code.
    expectProblem(
      await app.request('/admin/api/auth/login', { body: { username: 'otp-login', password: 'nope', otp: '123456' } }),
      401,
      'INVALID_CREDENTIALS',
    );
  });

  it('when a code is used twice, or the code the confirmation used is tried, then 401 OTP_INVALID', async () => {
    const a = await enrolledAdmin('otp-replay');
    expectProblem(await loginWith('otp-replay', await a.confirmedCode()), 401, 'OTP_INVALID');
    const code = await a.nextCode();
    expect((await loginWith('otp-replay', code)).status).toBe(200);
    const again = await loginWith('otp-replay', code);
    expectProblem(again, 401, 'OTP_INVALID');
    expect(again.headers.get('www-authenticate')).toBe('Bearer realm="admin"');
  });

  it('when the same code is sent by parallel logins, then exactly one is accepted', async () => {
    const a = await enrolledAdmin('otp-race');
    const code = await a.nextCode();
    // Three: LOGIN_MAX_FAILURES, so the limits never answer before the code is looked at.
    const results = await Promise.all(Array.from({ length: 3 }, () => loginWith('otp-race', code)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 401, 401]);
  });

  it('when a recovery code is used, then it logs in once; a second time it is OTP_INVALID', async () => {
    const a = await enrolledAdmin('otp-recovery');
    const [first, second] = a.recoveryCodes;
    expect((await loginWith('otp-recovery', first!.toUpperCase())).status).toBe(200);
    expectProblem(await loginWith('otp-recovery', first), 401, 'OTP_INVALID');
    expect((await loginWith('otp-recovery', second)).status).toBe(200);
  });

  it('when wrong codes are sent, then they count as failed logins: after LOGIN_MAX_FAILURES even the right code is 429', async () => {
    const a = await enrolledAdmin('otp-limited');
    for (let i = 0; i < 3; i++) expectProblem(await loginWith('otp-limited', '000000'), 401, 'OTP_INVALID');
    expectProblem(await loginWith('otp-limited', await a.nextCode()), 429, 'RATE_LIMITED');
    const failed = await auditEntries(app, owner, { action: 'admin.login_failed', targetId: a.admin.id });
    expect(failed).toHaveLength(3);
  });

  it('when the admin logs in over GraphQL, then adminLogin takes `otp` the same way', async () => {
    const a = await enrolledAdmin('otp-graphql');
    const LOGIN =
      'mutation ($o: String) { adminLogin(username: "otp-graphql", password: "otp-graphql-password", otp: $o) { admin { username } } }';
    expect(gqlCode(await app.graphql(LOGIN, {}))).toBe('OTP_REQUIRED');
    const ok = await app.graphql(LOGIN, { o: await a.nextCode() });
    expect(ok.body.data.adminLogin.admin.username).toBe('otp-graphql');
  });
});

describe('turning it off', () => {
  it('when an admin disables it with a code, then the password alone logs in again; a wrong code changes nothing', async () => {
    const a = await enrolledAdmin('otp-off');
    const DISABLE = 'mutation ($code: String!) { disableTotp(code: $code) }';
    expect(gqlCode(await app.graphql(DISABLE, { code: '000000' }, { token: a.token }))).toBe('VALIDATION_FAILED');
    expectProblem(await loginWith('otp-off'), 401, 'OTP_REQUIRED');
    const res = await app.graphql(DISABLE, { code: a.recoveryCodes[3] }, { token: a.token });
    expect(res.body.data?.disableTotp, res.text).toBe(true);
    expect((await loginWith('otp-off')).status).toBe(200);
    expect(await app.db.prisma.adminRecoveryCode.count({ where: { adminId: a.admin.id } })).toBe(0);
  });

  it('when disableTotp gets wrong codes, then they count as failed logins: after LOGIN_MAX_FAILURES even the right code is 429 with Retry-After', async () => {
    const a = await enrolledAdmin('otp-off-guessed');
    const DISABLE = 'mutation ($code: String!) { disableTotp(code: $code) }';
    for (let i = 0; i < 3; i++) {
      expect(gqlCode(await app.graphql(DISABLE, { code: `00000${i}` }, { token: a.token }))).toBe('VALIDATION_FAILED');
    }
    const limited = await app.graphql(DISABLE, { code: await a.nextCode() }, { token: a.token });
    expect(gqlCode(limited)).toBe('RATE_LIMITED');
    expect(limited.body.errors[0].extensions.retryAfter).toBeGreaterThan(1);
    // The same limits as the admin's logins: the password login from this IP is locked as well.
    expectProblem(await loginWith('otp-off-guessed', await a.nextCode()), 429, 'RATE_LIMITED');
    expect(await app.db.prisma.admin.count({ where: { id: a.admin.id, totpSecret: null } })).toBe(0);
    // A refused write is no audit entry (contract §10.2).
    expect(await auditEntries(app, owner, { action: 'admin.totp_disable', targetId: a.admin.id })).toEqual([]);
  });

  it('when confirmTotp gets wrong codes, then they count toward the login limits the same way', async () => {
    await makeAdmin(app, { username: 'otp-confirm-guessed', password: 'otp-confirm-guessed-password' });
    const token = await loginAsAdmin(app, {
      username: 'otp-confirm-guessed',
      password: 'otp-confirm-guessed-password',
    });
    const { enrollTotp } = (await app.graphql(ENROLL, {}, { token })).body.data;
    for (let i = 0; i < 3; i++)
      expect(gqlCode(await app.graphql(CONFIRM, { code: '000000' }, { token }))).toBe('VALIDATION_FAILED');
    const limited = await app.graphql(CONFIRM, { code: await totpCode(enrollTotp.secret) }, { token });
    expect(gqlCode(limited)).toBe('RATE_LIMITED');
  });

  it('when an owner calls resetTotp on their own id, then 400 VALIDATION_FAILED on adminId and two-factor login stays on', async () => {
    const a = await enrolledAdmin('otp-self-reset', 'owner');
    const res = await app.graphql(
      'mutation ($id: Int!) { resetTotp(adminId: $id) }',
      { id: a.admin.id },
      { token: a.token },
    );
    expect(gqlCode(res)).toBe('VALIDATION_FAILED');
    expect(res.body.errors[0].extensions.errors).toEqual([
      { field: 'adminId', message: expect.stringMatching(/disableTotp/) },
    ]);
    expectProblem(await loginWith('otp-self-reset'), 401, 'OTP_REQUIRED');
  });

  it('when an owner resets another admin (or the CLI does), then their two-factor login is off and the reset is audited', async () => {
    const a = await enrolledAdmin('otp-lost-phone');
    const res = await app.graphql(
      'mutation ($id: Int!) { resetTotp(adminId: $id) }',
      { id: a.admin.id },
      { token: owner },
    );
    expect(res.body.data?.resetTotp, res.text).toBe(true);
    expect((await loginWith('otp-lost-phone')).status).toBe(200);
    const [entry] = await auditEntries(app, owner, { action: 'admin.totp_reset', targetId: a.admin.id });
    expect(entry).toMatchObject({ actor: { type: 'admin' }, changes: { totpSecret: ['[redacted]', null] } });

    const b = await enrolledAdmin('otp-cli-reset');
    const cli = await cliOn(app, ['reset-totp', 'otp-cli-reset']);
    expect(cli.code).toBe(0);
    expect((await loginWith('otp-cli-reset')).status).toBe(200);
    const [byCli] = await auditEntries(app, owner, { action: 'admin.totp_reset', targetId: b.admin.id });
    expect(byCli!.actor.type).toBe('cli');
  });
});

describe('SHOP_NAME', () => {
  it("when SHOP_NAME is set, then the authenticator entry's issuer is the shop's name, not a fixed one", async () => {
    const named = await startTestApp({ SHOP_NAME: 'Acme Bikes & Co' });
    try {
      const token = await loginAsAdmin(named);
      const { otpauthUri } = (await named.graphql(ENROLL, {}, { token })).body.data.enrollTotp;
      const uri = new URL(otpauthUri);
      expect(uri.searchParams.get('issuer')).toBe('Acme Bikes & Co');
      expect(decodeURIComponent(uri.pathname)).toBe('/Acme Bikes & Co:root');
    } finally {
      await named.close();
    }
  });
});

describe('ADMIN_REQUIRE_TOTP=true', () => {
  let strict: TestApp;
  beforeAll(async () => {
    strict = await startTestApp({ ADMIN_REQUIRE_TOTP: 'true', LOGIN_IP_PER_MINUTE: '1000' });
  });
  afterAll(() => strict?.close());

  it('when an admin without two-factor login acts, then only adminMe, enrolment and the own password work until confirmed', async () => {
    const token = await loginAsAdmin(strict);
    const category = () =>
      strict.graphql('mutation { createCategory(input: { name: "Strict" }) { id } }', {}, { token });
    // The login's answer says the token is restricted until enrolment (the console's cue, §15).
    const login = await strict.graphql(
      'mutation ($u: String!, $p: String!) { adminLogin(username: $u, password: $p) { admin { totpEnabled totpEnrollmentRequired } } }',
      { u: TEST_ADMIN.username, p: TEST_ADMIN.password },
    );
    expect(login.body.data.adminLogin.admin).toEqual({ totpEnabled: false, totpEnrollmentRequired: true });
    const refused = await category();
    expect(gqlCode(refused)).toBe('FORBIDDEN');
    expect(refused.body.errors[0].message).toMatch(/requires two-factor login/);
    expect(gqlCode(await strict.graphql('{ adminSessions { id } }', {}, { token }))).toBe('FORBIDDEN');
    expect((await strict.graphql('{ adminMe { username } }', {}, { token })).body.data.adminMe).toBeTruthy();
    const { enrollTotp } = (await strict.graphql(ENROLL, {}, { token })).body.data;
    await strict.graphql(CONFIRM, { code: await totpCode(enrollTotp.secret) }, { token });
    expect(gqlCode(await category())).toBeUndefined();
    expect(
      (await strict.graphql('{ adminMe { totpEnabled totpEnrollmentRequired } }', {}, { token })).body.data,
    ).toEqual({
      adminMe: { totpEnabled: true, totpEnrollmentRequired: false },
    });
  });
});

describe.skipIf(TEST_DB !== 'postgres')('two instances on one database', () => {
  let other: TestApp;
  beforeAll(async () => {
    other = await startTestApp({ LOGIN_IP_PER_MINUTE: '1000' }, { url: app.databaseUrl! });
  });
  afterAll(() => other?.close());

  it('when one code is sent to both instances at once, then exactly one accepts it (the replay rule is shared)', async () => {
    const a = await enrolledAdmin('otp-two-instances');
    const code = await a.nextCode();
    const body = { username: 'otp-two-instances', password: 'otp-two-instances-password', otp: code };
    const results = await Promise.all(
      [app, other, other].map((instance) => instance.request('/admin/api/auth/login', { body })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 401, 401]);
    expect(results.filter((r) => r.status === 401).every((r) => r.body.code === 'OTP_INVALID')).toBe(true);
  });
});
