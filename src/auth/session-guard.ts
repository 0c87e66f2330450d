/**
 * The guard request authentication applies to a customer token (contract §3.3): its session must be
 * live — not revoked, within its absolute lifetime, account enabled — and the token its newest one
 * (or the one a refresh just replaced, while requests in flight during the refresh finish).
 */
import type { Prisma as PrismaClient } from '../db/database.ts';
import { AppError, accountDisabled, type Realm } from '../errors/app-error.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import type { TokenClaims } from './token-system.ts';

/** A retired token presented again within this window still works, and refreshes to the same successor. */
export const RETRY_WINDOW_MS = 30_000;

export type Db = PrismaClient | Prisma.TransactionClient;

const SESSION_SELECT = {
  id: true,
  customerId: true,
  currentJti: true,
  currentIssuedAt: true,
  previousJti: true,
  rotatedAt: true,
  lastUsedAt: true,
  expiresAt: true,
  revokedAt: true,
  customer: { select: { disabled: true } },
} as const satisfies Prisma.CustomerSessionSelect;

export type SessionState = Prisma.CustomerSessionGetPayload<{ select: typeof SESSION_SELECT }>;

/** A presented token refused (RFC 6750 `error="invalid_token"`), in its system's realm. */
export const tokenError = (
  code: 'TOKEN_INVALID' | 'TOKEN_REVOKED' | 'TOKEN_EXPIRED',
  detail: string,
  realm: Realm = 'customer',
) => new AppError(code, detail, { realm, tokenPresented: true });

/** The session a token names, or TOKEN_INVALID when there is none for that customer. */
export async function loadSession(db: Db, claims: TokenClaims): Promise<SessionState> {
  const session = await db.customerSession.findUnique({ where: { id: claims.sid }, select: SESSION_SELECT });
  if (!session || String(session.customerId) !== claims.sub)
    throw tokenError('TOKEN_INVALID', 'The token names no session.');
  return session;
}

/** Throws unless the session may still be used: not revoked, within its absolute lifetime, account enabled. */
export function assertSessionLive(session: SessionState, now = Date.now()): void {
  if (session.revokedAt) throw tokenError('TOKEN_REVOKED', 'The session was revoked; log in again.');
  if (session.expiresAt.getTime() <= now) {
    throw tokenError(
      'TOKEN_EXPIRED',
      `The session reached its maximum age at ${session.expiresAt.toISOString()}; log in again.`,
    );
  }
  if (session.customer.disabled) throw accountDisabled();
}

/** True when `jti` names the rotation's previous token and the safe-retry window is still open. */
export function withinRetryWindow(session: SessionState, jti: string, now: number): boolean {
  return (
    session.previousJti === jti && session.rotatedAt !== null && now - session.rotatedAt.getTime() <= RETRY_WINDOW_MS
  );
}

/** Checks that a token may authenticate a request: a live session, and its newest token (or the one just replaced). */
export function assertCurrentToken(session: SessionState, claims: TokenClaims, now = Date.now()): void {
  assertSessionLive(session, now);
  if (claims.jti !== session.currentJti && !withinRetryWindow(session, claims.jti, now)) {
    throw tokenError('TOKEN_REVOKED', 'This token was replaced by a refresh; use the newest token.');
  }
}
