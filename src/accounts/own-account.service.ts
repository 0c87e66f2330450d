/**
 * What a customer does with their own account (contract §8.1): change the profile, change the
 * password (sign-up is a login flow: login.service.ts). A password change is
 * checked like a login (a wrong current password counts as a login failure) and ends every other
 * session, so a stolen session does not outlive the password it was opened with.
 */

import { revokeCustomerSessions } from '../auth/sessions.service.ts';
import type { Customer } from '../generated/prisma/client.ts';
import type { RequestContext } from '../request-context.ts';
import type { ChangePasswordInput, UpdateMeInput } from './accounts.schema.ts';
import { checkPassword } from './login.service.ts';

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
  const passwordHash = await ctx.services.passwordHashing.run(() => ctx.services.passwords.hash(newPassword));
  const revoked = await prisma.$transaction(async (tx) => {
    await tx.customer.update({ where: { id: customerId }, data: { passwordHash } });
    return revokeCustomerSessions(tx, customerId, sessionId);
  });
  ctx.log.info({ customer_id: customerId, other_sessions_revoked: revoked }, 'customer password changed');
  return true;
}
