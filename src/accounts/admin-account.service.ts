/**
 * What an admin does with their own account (contract §10.1, §10.3): change the password, turn
 * two-factor login on and off; and an owner's reset of another admin's two-factor login. Every
 * change is an audit entry (admin-write.ts); `enrollTotp` changes nothing visible until it is
 * confirmed and is no entry.
 */
import { adminWrite, type Tx } from '../audit/admin-write.ts';
import { revokeAdminSessions } from '../auth/sessions.service.ts';
import {
  acceptSecondFactor,
  acceptTotpCode,
  newRecoveryCodes,
  newTotpSecret,
  otpauthUri,
  qrSvg,
} from '../auth/totp.ts';
import { notFound, validationFailed } from '../errors/app-error.ts';
import type { RequestContext } from '../request-context.ts';
import type { ChangePasswordInput } from './accounts.schema.ts';
import { checkOwnCode, checkPassword } from './login.service.ts';

export interface TotpEnrollment {
  secret: string;
  otpauthUri: string;
  qrSvg: string;
}

const codeError = (message: string) => validationFailed([{ field: 'code', message }]);

/**
 * `changeAdminPassword`: the current password is checked as a login is (same limits, same uniform
 * 401); then the new hash is stored and the admin's other sessions revoked, in one transaction.
 */
export async function changeAdminPassword(
  ctx: RequestContext,
  { currentPassword, newPassword }: ChangePasswordInput,
): Promise<true> {
  const { adminId, sessionId } = await ctx.auth.adminAccount({ enrolling: true });
  const account = await ctx.db.prisma.admin.findUniqueOrThrow({ where: { id: adminId } });
  await checkPassword(
    ctx,
    { realm: 'admin', username: account.username, ip: ctx.clientIp },
    currentPassword,
    async () => account,
  );
  const passwordHash = await ctx.services.passwordHashing.run(() => ctx.services.passwords.hash(newPassword));
  await adminWrite(ctx, async (tx, audit) => {
    await tx.admin.update({ where: { id: adminId }, data: { passwordHash } });
    const revoked = await revokeAdminSessions(tx, adminId, sessionId);
    audit({
      action: 'admin.password',
      target: { type: 'admin', id: adminId },
      changes: { password: [true, true], otherSessionsRevoked: [0, revoked] },
    });
  });
  return true;
}

/** `enrollTotp`: a new secret for the calling admin, pending until `confirmTotp`. */
export async function enrollTotp(ctx: RequestContext): Promise<TotpEnrollment> {
  const { adminId } = await ctx.auth.adminAccount({ enrolling: true });
  const secret = newTotpSecret();
  const { count } = await ctx.db.prisma.admin.updateMany({
    where: { id: adminId, totpSecret: null },
    data: { totpPendingSecret: secret },
  });
  if (count === 0) throw codeError('two-factor login is already on; turn it off (disableTotp) to enrol again');
  const admin = await ctx.db.prisma.admin.findUniqueOrThrow({ where: { id: adminId }, select: { username: true } });
  const uri = otpauthUri(secret, admin.username, ctx.services.config.shopName);
  return { secret, otpauthUri: uri, qrSvg: await qrSvg(uri) };
}

/** `confirmTotp(code)`: turns two-factor login on and returns the ten recovery codes, once. */
export async function confirmTotp(ctx: RequestContext, code: string): Promise<string[]> {
  const principal = await ctx.auth.adminAccount({ enrolling: true });
  const { adminId } = principal;
  const { codes, hashes } = newRecoveryCodes();
  await checkOwnCode(ctx, principal.actor.name, (wrongCode) =>
    adminWrite(ctx, async (tx, audit) => {
      const admin = await tx.admin.findUniqueOrThrow({ where: { id: adminId } });
      if (admin.totpSecret !== null) throw codeError('two-factor login is already on');
      if (admin.totpPendingSecret === null) throw codeError('no enrolment is pending; call enrollTotp first');
      if (!(await acceptTotpCode(tx, adminId, admin.totpPendingSecret, code))) {
        throw wrongCode(codeError('is not the current code of the enrolled secret'));
      }
      await tx.admin.update({
        where: { id: adminId },
        data: { totpSecret: admin.totpPendingSecret, totpPendingSecret: null },
      });
      await tx.adminRecoveryCode.deleteMany({ where: { adminId } });
      await tx.adminRecoveryCode.createMany({ data: hashes.map((codeHash) => ({ adminId, codeHash })) });
      audit({
        action: 'admin.totp_enable',
        target: { type: 'admin', id: adminId },
        changes: { totpSecret: [null, true], recoveryCodes: [null, true] },
      });
    }),
  );
  return codes;
}

/**
 * `disableTotp(code)`: needs a current code (or a recovery code) of the admin's own two-factor login.
 * A stolen token must not be able to guess its way past the second factor: wrong codes count toward
 * the admin's login limits (checkOwnCode).
 */
export async function disableTotp(ctx: RequestContext, code: string): Promise<true> {
  const principal = await ctx.auth.adminAccount();
  const { adminId } = principal;
  await checkOwnCode(ctx, principal.actor.name, (wrongCode) =>
    adminWrite(ctx, async (tx, audit) => {
      const admin = await tx.admin.findUniqueOrThrow({ where: { id: adminId } });
      if (admin.totpSecret === null) throw codeError('two-factor login is not on');
      if (!(await acceptSecondFactor(tx, adminId, admin.totpSecret, code))) {
        throw wrongCode(codeError('is wrong, expired or already used'));
      }
      await clearTotp(tx, adminId);
      audit({
        action: 'admin.totp_disable',
        target: { type: 'admin', id: adminId },
        changes: { totpSecret: [true, null], recoveryCodes: [true, null] },
      });
    }),
  );
  return true;
}

/**
 * `resetTotp(adminId)` (owner, or the CLI): turns another admin's two-factor login off, e.g. after a
 * lost phone. Not one's own (contract §10.3: "for another admin"): that would turn the second factor
 * off without a code, which is what disableTotp exists to require.
 */
export async function resetTotp(ctx: RequestContext, adminId: number): Promise<true> {
  if ((await ctx.auth.actingAdminId()) === adminId) {
    throw validationFailed([
      { field: 'adminId', message: 'is your own account: turn your two-factor login off with disableTotp(code)' },
    ]);
  }
  await adminWrite(ctx, async (tx, audit) => {
    const admin = await tx.admin.findUnique({ where: { id: adminId }, select: { totpSecret: true } });
    if (!admin) throw notFound('admin');
    await clearTotp(tx, adminId);
    audit({
      action: 'admin.totp_reset',
      target: { type: 'admin', id: adminId },
      // Nothing to show when it was off already (the reset is recorded all the same).
      changes: admin.totpSecret === null ? {} : { totpSecret: [true, null], recoveryCodes: [true, null] },
    });
  });
  return true;
}

async function clearTotp(tx: Tx, adminId: number): Promise<void> {
  await tx.admin.update({ where: { id: adminId }, data: { totpSecret: null, totpPendingSecret: null } });
  await tx.adminRecoveryCode.deleteMany({ where: { adminId } });
}
