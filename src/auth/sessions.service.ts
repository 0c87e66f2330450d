/**
 * Customer sessions (contract §3.3): a login opens one; refresh rotates the token inside it. Only the
 * newest token (`currentJti`) may be refreshed; the one it replaced (`previousJti`) is honoured for a
 * short safe-retry window and then counts as a replay, which revokes the whole session.
 */
import { randomUUID } from 'node:crypto';
import type { RequestContext } from '../request-context.ts';
import { assertSessionLive, type Db, loadSession, tokenError, withinRetryWindow } from './session-guard.ts';
import type { IssuedToken, TokenClaims } from './token-system.ts';

/** Opens a session for `customerId` (inside the caller's transaction `db`, if any) and issues its first token. */
export async function openSession(
  ctx: RequestContext,
  customerId: number,
  db: Db = ctx.db.prisma,
): Promise<IssuedToken> {
  const now = Date.now();
  // `iat` is stored exactly (whole seconds), so a safe retry can re-issue the token byte for byte.
  const iat = Math.floor(now / 1000);
  const session = await db.customerSession.create({
    data: {
      id: randomUUID(),
      customerId,
      currentJti: randomUUID(),
      currentIssuedAt: new Date(iat * 1000),
      expiresAt: new Date(now + ctx.services.config.jwt.sessionMaxAge * 1000),
      ip: ctx.clientIp,
      userAgent: ctx.userAgent,
    },
    select: { id: true, currentJti: true },
  });
  return ctx.services.tokens.customer.issue({ sub: String(customerId), sid: session.id, jti: session.currentJti, iat });
}

/**
 * Refresh: the newest token is exchanged for a successor with a new `jti`; the token it replaced,
 * presented again within the retry window, gets that same successor; any other token of the session
 * is a replay and revokes the session. `claims` were verified with the refresh grace.
 */
export async function refreshSession(ctx: RequestContext, claims: TokenClaims): Promise<IssuedToken> {
  const { prisma } = ctx.db;
  const tokens = ctx.services.tokens.customer;
  const now = Date.now();
  let session = await loadSession(prisma, claims);
  assertSessionLive(session, now);

  if (claims.jti === session.currentJti) {
    const iat = Math.floor(now / 1000);
    const jti = randomUUID();
    // Conditional on the presented jti still being current: of several parallel refreshes of one
    // token exactly one row update succeeds, so there is never more than one live successor.
    const { count } = await prisma.customerSession.updateMany({
      where: { id: session.id, currentJti: claims.jti, revokedAt: null },
      data: {
        previousJti: claims.jti,
        currentJti: jti,
        currentIssuedAt: new Date(iat * 1000),
        rotatedAt: new Date(now),
      },
    });
    if (count === 1) return tokens.issue({ sub: claims.sub, sid: session.id, jti, iat });
    // A parallel refresh won: answer as a safe retry, from the state it left.
    session = await loadSession(prisma, claims);
    assertSessionLive(session, now);
  }

  if (withinRetryWindow(session, claims.jti, now)) {
    // Same jti and iat as the stored successor: the very same token bytes.
    return tokens.issue({
      sub: claims.sub,
      sid: session.id,
      jti: session.currentJti,
      iat: session.currentIssuedAt.getTime() / 1000,
    });
  }

  await prisma.customerSession.updateMany({
    where: { id: session.id, revokedAt: null },
    data: { revokedAt: new Date(now) },
  });
  ctx.log.warn(
    { session_id: session.id, customer_id: session.customerId },
    'retired customer token replayed: session revoked',
  );
  throw tokenError('TOKEN_REVOKED', 'This token was already refreshed; the session is revoked. Log in again.');
}

/**
 * Revokes every live session of a customer (account disabled, password reset) — all but `exceptSessionId`
 * when given (a password change keeps the session that made it); inside the caller's transaction `db`.
 */
export async function revokeCustomerSessions(db: Db, customerId: number, exceptSessionId?: string): Promise<number> {
  const { count } = await db.customerSession.updateMany({
    where: { customerId, revokedAt: null, ...(exceptSessionId === undefined ? {} : { id: { not: exceptSessionId } }) },
    data: { revokedAt: new Date() },
  });
  return count;
}

/** `logout`: revokes the session of the request's customer token, so every token of it stops working. */
export async function closeSession(ctx: RequestContext): Promise<true> {
  const { customerId, sessionId } = await ctx.auth.customer();
  await ctx.db.prisma.customerSession.updateMany({
    where: { id: sessionId, revokedAt: null },
    data: { revokedAt: new Date() },
  });
  ctx.log.info({ customer_id: customerId, session_id: sessionId }, 'customer logged out');
  return true;
}

/** Revokes every live session of an admin (all but `exceptSessionId` when given), inside the caller's transaction. */
export async function revokeAdminSessions(db: Db, adminId: number, exceptSessionId?: string): Promise<number> {
  const { count } = await db.adminSession.updateMany({
    where: { adminId, revokedAt: null, ...(exceptSessionId === undefined ? {} : { id: { not: exceptSessionId } }) },
    data: { revokedAt: new Date() },
  });
  return count;
}
