/**
 * Password logins of both token systems (contract §3.1, §3.4). Every failure — unknown user, wrong
 * password, account without a password — answers the same 401 after the same work (one argon2
 * verify), so neither the body nor the timing says whether an account exists. ACCOUNT_DISABLED is
 * said only after the right password.
 */
import { randomUUID } from 'node:crypto';
import { auditRow } from '../audit/audit-log.ts';
import type { LoginAttempt } from '../auth/login-limiter.ts';
import { openSession } from '../auth/sessions.service.ts';
import type { IssuedToken } from '../auth/token-system.ts';
import { acceptSecondFactor } from '../auth/totp.ts';
import { AppError, accountDisabled, type Realm } from '../errors/app-error.ts';
import type { Admin, Customer } from '../generated/prisma/client.ts';
import type { RequestContext } from '../request-context.ts';
import { usernameTaken } from './accounts.service.ts';
import type { AdminLoginInput, CustomerLoginInput, RegisterInput } from './login.schema.ts';

export interface CustomerLogin {
  token: IssuedToken;
  customer: Customer;
  /** Only for WeChat logins: whether this login created the account. */
  isNewUser?: boolean;
}

export interface AdminLogin {
  token: IssuedToken;
  admin: Admin;
}

const invalidCredentials = (realm: Realm) =>
  new AppError('INVALID_CREDENTIALS', 'The username or password is wrong.', { realm });

/**
 * The shared steps of a password login: a failure is reserved first (the limits), then one argon2
 * verify whatever the account (a dummy hash when there is none); only a right password — and, when
 * `then` checks more (a second factor), its success — gives the reservation back. A wrong one-time
 * code keeps it: it counts as a failure for the limits, as a wrong password does (contract §10.3).
 */
export async function checkPassword<A extends { passwordHash: string | null }>(
  ctx: RequestContext,
  attempt: LoginAttempt,
  password: string,
  find: () => Promise<A | null>,
  then?: (account: A) => Promise<void>,
): Promise<A> {
  const { loginLimiter, passwordHashing, passwords } = ctx.services;
  await loginLimiter.reserve(attempt);
  let account: A | null;
  let ok: boolean;
  try {
    account = await find();
    ok = await passwordHashing.run(() => passwords.verify(account?.passwordHash, password));
  } catch (err) {
    await loginLimiter.release(attempt).catch(() => {});
    throw err;
  }
  if (!ok || !account) {
    ctx.services.metrics.loginFailures.inc({ realm: attempt.realm, method: 'password' });
    await loginLimiter.failed(attempt);
    throw invalidCredentials(attempt.realm);
  }
  if (then) {
    try {
      await then(account);
    } catch (err) {
      if (err instanceof AppError && err.code === 'OTP_INVALID') {
        ctx.services.metrics.loginFailures.inc({ realm: attempt.realm, method: 'otp' });
        await loginLimiter.failed(attempt);
      } else {
        await loginLimiter.release(attempt).catch(() => {});
      }
      throw err;
    }
  }
  await loginLimiter.succeeded(attempt);
  return account;
}

/**
 * A signed-in admin's own one-time code (confirmTotp, disableTotp), counted toward that admin's login
 * limits exactly as a code at login is: reserved before `check` runs, kept as a failure when `check`
 * throws an error it passed through `wrongCode`, given back otherwise — a right code does not forgive
 * earlier failures, as only a right password does. Once the limits are spent, 429 RATE_LIMITED. A
 * wrong code is a refused write, so no audit entry (contract §10.2); it is logged.
 */
export async function checkOwnCode<T>(
  ctx: RequestContext,
  username: string,
  check: (wrongCode: (err: AppError) => AppError) => Promise<T>,
): Promise<T> {
  const { loginLimiter } = ctx.services;
  const attempt: LoginAttempt = { realm: 'admin', username, ip: ctx.clientIp };
  await loginLimiter.reserve(attempt);
  let wrong: AppError | undefined;
  try {
    const result = await check((err) => (wrong = err));
    await loginLimiter.release(attempt);
    return result;
  } catch (err) {
    if (err === wrong) {
      await loginLimiter.failed(attempt);
      ctx.log.warn('wrong two-factor code from a signed-in admin (counted as a failed login)');
    } else {
      await loginLimiter.release(attempt).catch(() => {});
    }
    throw err;
  }
}

/** `login(username, password)`: a customer's e-mail login; opens a session. */
export async function loginCustomer(
  ctx: RequestContext,
  { username, password }: CustomerLoginInput,
): Promise<CustomerLogin> {
  const customer = await checkPassword(ctx, { realm: 'customer', username, ip: ctx.clientIp }, password, () =>
    ctx.db.prisma.customer.findUnique({ where: { username } }),
  );
  if (customer.disabled) throw accountDisabled();
  return { token: await openSession(ctx, customer.id), customer };
}

/**
 * `adminLogin(username, password, otp?)` (contract §3.4, §10.3): with two-factor login on, a one-time
 * code or a recovery code is needed after the right password. Opens a session; every success and
 * every failure is an audit entry.
 */
export async function loginAdmin(
  ctx: RequestContext,
  { username, password, otp }: AdminLoginInput,
): Promise<AdminLogin> {
  const attempt: LoginAttempt = { realm: 'admin', username, ip: ctx.clientIp };
  let admin: Admin;
  try {
    admin = await checkPassword(
      ctx,
      attempt,
      password,
      () => ctx.db.prisma.admin.findUnique({ where: { username } }),
      (account) => checkSecondFactor(ctx, account, otp),
    );
  } catch (err) {
    if (err instanceof AppError && LOGIN_FAILURES.has(err.code)) await recordFailedAdminLogin(ctx, username);
    throw err;
  }
  return { token: await openAdminSession(ctx, admin), admin };
}

/** What an audit entry `admin.login_failed` records: wrong credentials or code, or a disabled account. */
const LOGIN_FAILURES = new Set(['INVALID_CREDENTIALS', 'OTP_INVALID', 'ACCOUNT_DISABLED']);

async function checkSecondFactor(ctx: RequestContext, admin: Admin, otp: string | null | undefined): Promise<void> {
  if (admin.disabled) throw accountDisabled();
  if (admin.totpSecret === null) return;
  if (!otp) {
    throw new AppError('OTP_REQUIRED', 'Two-factor login is on: send `otp` (a 6-digit code or a recovery code).', {
      realm: 'admin',
    });
  }
  if (!(await acceptSecondFactor(ctx.db.prisma, admin.id, admin.totpSecret, otp))) {
    throw new AppError('OTP_INVALID', 'The one-time code is wrong, expired or already used.', { realm: 'admin' });
  }
}

/**
 * A failed admin login's audit entry: the actor is anonymous, the target the admin when the username
 * exists (the attempted username itself is not kept: people type passwords into it).
 */
async function recordFailedAdminLogin(ctx: RequestContext, username: string): Promise<void> {
  const admin = await ctx.db.prisma.admin.findUnique({ where: { username }, select: { id: true } });
  await ctx.db.prisma.auditEntry.create({
    data: auditRow(
      ctx,
      { type: 'anonymous', id: null, name: null },
      { action: 'admin.login_failed', target: { type: 'admin', id: admin?.id ?? null } },
    ),
  });
}

/**
 * Issues an admin token and records its session and the login's audit entry in one statement (a
 * login costs one more statement than before sessions, not two).
 */
async function openAdminSession(ctx: RequestContext, admin: Admin): Promise<IssuedToken> {
  const token = await ctx.services.tokens.admin.issue({ sub: String(admin.id), sid: randomUUID() });
  const entry = auditRow(
    ctx,
    { type: 'admin', id: admin.id, name: admin.username },
    { action: 'admin.login', target: { type: 'admin', id: admin.id } },
  );
  await ctx.db.prisma.$executeRaw`
    WITH session AS (
      INSERT INTO admin_sessions (id, admin_id, expires_at, ip, user_agent)
      VALUES (${token.sid}::uuid, ${admin.id}, ${new Date(token.exp * 1000)}, ${ctx.clientIp}, ${ctx.userAgent})
      RETURNING admin_id)
    INSERT INTO audit_log (actor_type, actor_id, actor_name, action, target_type, target_id, changes, request_id, ip)
    SELECT ${entry.actorType}, admin_id, ${entry.actorName}, ${entry.action}, ${entry.targetType}, admin_id,
           ${JSON.stringify(entry.changes)}::jsonb, ${entry.requestId}, ${entry.ip}
      FROM session`;
  return token;
}

/** `register`: creates an e-mail customer and opens its first session, in one transaction. */
export async function registerCustomer(
  ctx: RequestContext,
  { username, password, nickname }: RegisterInput,
): Promise<CustomerLogin> {
  await ctx.services.loginLimiter.admitRegistration(ctx.clientIp);
  const passwordHash = await ctx.services.passwordHashing.run(() => ctx.services.passwords.hash(password));
  try {
    const login = await ctx.db.prisma.$transaction(async (tx) => {
      const customer = await tx.customer.create({ data: { username, passwordHash, nickname: nickname ?? null } });
      return { customer, token: await openSession(ctx, customer.id, tx) };
    });
    ctx.log.info({ customer_id: login.customer.id }, 'customer registered');
    return login;
  } catch (err) {
    throw usernameTaken(err) ?? err;
  }
}
