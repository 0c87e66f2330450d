/**
 * What a customer does with their own account (contract §8.1): sign up, change the profile, change
 * the password. Sign-ups are counted per client IP before anything is hashed; a password change is
 * checked like a login (a wrong current password counts as a login failure) and ends every other
 * session, so a stolen session does not outlive the password it was opened with.
 */
import type { CustomerLogin } from '../auth/login.service.ts';
import { checkPassword } from '../auth/login.service.ts';
import { hashPassword } from '../auth/password.ts';
import { openSession, revokeCustomerSessions } from '../auth/sessions.service.ts';
import type { Customer } from '../generated/prisma/client.ts';
import type { RequestContext } from '../request-context.ts';
import type { ChangePasswordInput, RegisterInput, UpdateMeInput } from './accounts.schema.ts';
import { usernameTaken } from './accounts.service.ts';

/** `register`: creates an e-mail customer and opens its first session, in one transaction. */
export async function registerCustomer(
  ctx: RequestContext,
  { username, password, nickname }: RegisterInput,
): Promise<CustomerLogin> {
  await ctx.services.loginLimiter.admitRegistration(ctx.clientIp);
  const passwordHash = await ctx.services.passwordHashing.run(() => hashPassword(password));
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

/** `updateMe`: an omitted field stays as it is, null clears it. */
export async function updateProfile(ctx: RequestContext, input: UpdateMeInput): Promise<Customer> {
  const { customerId } = await ctx.auth.customer();
  return ctx.db.prisma.customer.update({
    where: { id: customerId },
    data: { nickname: input.nickname, avatarUrl: input.avatarUrl },
  });
}

/**
 * `changePassword`: the current password is checked as a login is (same limits, same uniform 401);
 * then the new hash is stored and every other session of the customer revoked, in one transaction.
 */
export async function changePassword(
  ctx: RequestContext,
  { currentPassword, newPassword }: ChangePasswordInput,
): Promise<true> {
  const { customerId, sessionId } = await ctx.auth.customer();
  const { prisma } = ctx.db;
  const account = await prisma.customer.findUniqueOrThrow({ where: { id: customerId } });
  // A mini-program account has no username (and no password, so the check always fails).
  const attempt = { realm: 'customer' as const, username: account.username ?? `#${customerId}`, ip: ctx.clientIp };
  await checkPassword(ctx, attempt, currentPassword, async () => account);
  const passwordHash = await ctx.services.passwordHashing.run(() => hashPassword(newPassword));
  const revoked = await prisma.$transaction(async (tx) => {
    await tx.customer.update({ where: { id: customerId }, data: { passwordHash } });
    return revokeCustomerSessions(tx, customerId, sessionId);
  });
  ctx.log.info({ customer_id: customerId, other_sessions_revoked: revoked }, 'customer password changed');
  return true;
}
