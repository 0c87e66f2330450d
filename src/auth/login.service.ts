/**
 * Password logins of both token systems (contract §3.1, §3.4). Every failure — unknown user, wrong
 * password, account without a password — answers the same 401 after the same work (one argon2
 * verify), so neither the body nor the timing says whether an account exists. ACCOUNT_DISABLED is
 * said only after the right password.
 */
import { randomUUID } from 'node:crypto';
import type { Admin, Customer } from '../generated/prisma/client.ts';
import { AppError, type Realm } from '../errors/app-error.ts';
import type { Context } from '../graphql/context.ts';
import { parseInput } from '../validation/parse-input.ts';
import { adminLoginInput, customerLoginInput } from './auth.schema.ts';
import { openSession } from './customer-session.service.ts';
import type { LoginAttempt } from './login-limiter.ts';
import { verifyPassword } from './password.ts';
import type { IssuedToken } from './token-system.ts';

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

export const accountDisabled = () => new AppError('ACCOUNT_DISABLED', 'The account is disabled.');

/**
 * The shared steps of a password login: limits first, then one argon2 verify whatever the account
 * (a dummy hash when there is none), then the failure counters.
 */
async function checkPassword<A extends { passwordHash: string | null }>(
  ctx: Context,
  attempt: LoginAttempt,
  password: string,
  find: () => Promise<A | null>,
): Promise<A> {
  const { loginLimiter, passwordHashing } = ctx.services;
  await loginLimiter.admit(attempt);
  const account = await find();
  const ok = await passwordHashing.run(() => verifyPassword(account?.passwordHash, password));
  if (!ok || !account) {
    await loginLimiter.recordFailure(attempt);
    throw invalidCredentials(attempt.realm);
  }
  await loginLimiter.recordSuccess(attempt);
  return account;
}

/** `login(username, password)`: a customer's e-mail login; opens a session. */
export async function loginCustomer(ctx: Context, args: unknown): Promise<CustomerLogin> {
  const { username, password } = parseInput(customerLoginInput, args);
  const customer = await checkPassword(ctx, { realm: 'customer', username, ip: ctx.clientIp }, password, () =>
    ctx.db.prisma.customer.findUnique({ where: { username } }),
  );
  if (customer.disabled) throw accountDisabled();
  const { config, tokens } = ctx.services;
  const token = await openSession(ctx.db.prisma, tokens.customer, config.jwt.sessionMaxAge, customer.id);
  return { token, customer };
}

/** `adminLogin(username, password)`: admin tokens carry a fresh `sid` but no server-side session. */
export async function loginAdmin(ctx: Context, args: unknown): Promise<AdminLogin> {
  const { username, password } = parseInput(adminLoginInput, args);
  const admin = await checkPassword(ctx, { realm: 'admin', username, ip: ctx.clientIp }, password, () =>
    ctx.db.prisma.admin.findUnique({ where: { username } }),
  );
  if (admin.disabled) throw accountDisabled();
  const token = await ctx.services.tokens.admin.issue({ sub: String(admin.id), sid: randomUUID() });
  return { token, admin };
}
