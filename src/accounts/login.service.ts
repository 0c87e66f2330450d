/**
 * Password logins of both token systems (contract §3.1, §3.4). Every failure — unknown user, wrong
 * password, account without a password — answers the same 401 after the same work (one argon2
 * verify), so neither the body nor the timing says whether an account exists. ACCOUNT_DISABLED is
 * said only after the right password.
 */
import { randomUUID } from 'node:crypto';
import type { LoginAttempt } from '../auth/login-limiter.ts';
import { openSession } from '../auth/sessions.service.ts';
import type { IssuedToken } from '../auth/token-system.ts';
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
 * verify whatever the account (a dummy hash when there is none); only a right password gives the
 * reservation back.
 */
export async function checkPassword<A extends { passwordHash: string | null }>(
  ctx: RequestContext,
  attempt: LoginAttempt,
  password: string,
  find: () => Promise<A | null>,
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
    throw invalidCredentials(attempt.realm);
  }
  await loginLimiter.succeeded(attempt);
  return account;
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

/** `adminLogin(username, password)`: admin tokens carry a fresh `sid` but no server-side session. */
export async function loginAdmin(ctx: RequestContext, { username, password }: AdminLoginInput): Promise<AdminLogin> {
  const admin = await checkPassword(ctx, { realm: 'admin', username, ip: ctx.clientIp }, password, () =>
    ctx.db.prisma.admin.findUnique({ where: { username } }),
  );
  if (admin.disabled) throw accountDisabled();
  const token = await ctx.services.tokens.admin.issue({ sub: String(admin.id), sid: randomUUID() });
  return { token, admin };
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
