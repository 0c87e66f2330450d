/**
 * Customer sessions (contract §3.3): a login opens one; refresh rotates the token inside it. Only the
 * newest token (`currentJti`) may be refreshed; the one it replaced (`previousJti`) is honoured for a
 * short safe-retry window and then counts as a replay, which revokes the whole session.
 */
import { randomUUID } from 'node:crypto';
import { AppError } from '../errors/app-error.ts';
import type { Prisma as PrismaClient } from '../db/database.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import type { Context } from '../graphql/context.ts';
import type { IssuedToken, TokenClaims, TokenSystem } from './token-system.ts';

/** A retired token presented again within this window gets the same successor (safe retries, two tabs). */
export const RETRY_WINDOW_MS = 30_000;

type Db = PrismaClient | Prisma.TransactionClient;

const SESSION_SELECT = {
  id: true,
  customerId: true,
  currentJti: true,
  currentIssuedAt: true,
  previousJti: true,
  rotatedAt: true,
  expiresAt: true,
  revokedAt: true,
  customer: { select: { disabled: true } },
} as const satisfies Prisma.CustomerSessionSelect;

export type SessionState = Prisma.CustomerSessionGetPayload<{ select: typeof SESSION_SELECT }>;

const tokenError = (code: 'TOKEN_INVALID' | 'TOKEN_REVOKED' | 'TOKEN_EXPIRED', detail: string) =>
  new AppError(code, detail, { realm: 'customer', tokenPresented: true });

/** Opens a session for `customerId` (inside the caller's transaction, if any) and issues its first token. */
export async function openSession(
  db: Db,
  tokens: TokenSystem,
  sessionMaxAgeSeconds: number,
  customerId: number,
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
      expiresAt: new Date(now + sessionMaxAgeSeconds * 1000),
    },
    select: { id: true, currentJti: true },
  });
  return tokens.issue({ sub: String(customerId), sid: session.id, jti: session.currentJti, iat });
}

/** The session a token names, or TOKEN_INVALID when there is none for that customer. */
export async function loadSession(db: Db, claims: TokenClaims): Promise<SessionState> {
  const session = await db.customerSession.findUnique({ where: { id: claims.sid }, select: SESSION_SELECT });
  if (!session || String(session.customerId) !== claims.sub) throw tokenError('TOKEN_INVALID', 'The token names no session.');
  return session;
}

/** Throws unless the session may still be used: not revoked, within its absolute lifetime, account enabled. */
export function assertSessionLive(session: SessionState, now = Date.now()): void {
  if (session.revokedAt) throw tokenError('TOKEN_REVOKED', 'The session was revoked; log in again.');
  if (session.expiresAt.getTime() <= now) {
    throw tokenError('TOKEN_EXPIRED', `The session reached its maximum age at ${session.expiresAt.toISOString()}; log in again.`);
  }
  if (session.customer.disabled) throw new AppError('ACCOUNT_DISABLED', 'The account is disabled.');
}

/** True when `jti` names the rotation's previous token and the safe-retry window is still open. */
function withinRetryWindow(session: SessionState, jti: string, now: number): boolean {
  return session.previousJti === jti && session.rotatedAt !== null && now - session.rotatedAt.getTime() <= RETRY_WINDOW_MS;
}

/**
 * Checks that a token may authenticate a request: the session is live and the token is its newest one
 * (or the one just replaced, while requests that were in flight during a refresh finish).
 */
export function assertCurrentToken(session: SessionState, claims: TokenClaims, now = Date.now()): void {
  assertSessionLive(session, now);
  if (claims.jti !== session.currentJti && !withinRetryWindow(session, claims.jti, now)) {
    throw tokenError('TOKEN_REVOKED', 'This token was replaced by a refresh; use the newest token.');
  }
}

/**
 * Refresh (contract §3.3): the newest token is exchanged for a successor with a new `jti`; the token
 * it replaced, presented again within the retry window, gets that same successor; any other token of
 * the session is a replay and revokes the session. `claims` were verified with the refresh grace.
 */
export async function rotateSession(ctx: Context, claims: TokenClaims): Promise<IssuedToken> {
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
      data: { previousJti: claims.jti, currentJti: jti, currentIssuedAt: new Date(iat * 1000), rotatedAt: new Date(now) },
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

  await prisma.customerSession.updateMany({ where: { id: session.id, revokedAt: null }, data: { revokedAt: new Date(now) } });
  ctx.log.warn({ session_id: session.id, customer_id: session.customerId }, 'retired customer token replayed: session revoked');
  throw tokenError('TOKEN_REVOKED', 'This token was already refreshed; the session is revoked. Log in again.');
}

/** Revokes every live session of a customer (account disabled). */
export async function revokeCustomerSessions(db: Db, customerId: number): Promise<number> {
  const { count } = await db.customerSession.updateMany({
    where: { customerId, revokedAt: null },
    data: { revokedAt: new Date() },
  });
  return count;
}
