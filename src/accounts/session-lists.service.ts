/**
 * Session lists (contract §10.4): a customer's and an admin's own sessions, newest first, and ending
 * them — one, every other one, or (support / owner) every one of another account. Only live sessions
 * are listed (not revoked, not past their end). Ending a customer's own session is their business and
 * no audit entry; an admin's are entries (`admin.revoke_sessions`, `customer.revoke_sessions`).
 */
import { adminWrite } from '../audit/admin-write.ts';
import { revokeAdminSessions, revokeCustomerSessions } from '../auth/sessions.service.ts';
import { isUuid } from '../auth/token-system.ts';
import { notFound } from '../errors/app-error.ts';
import type { RequestContext } from '../request-context.ts';

export interface SessionView {
  id: string;
  createdAt: Date;
  lastUsedAt: Date;
  ip: string | null;
  userAgent: string | null;
  current: boolean;
}

const SELECT = { id: true, createdAt: true, lastUsedAt: true, ip: true, userAgent: true } as const;
const live = () => ({ revokedAt: null, expiresAt: { gt: new Date() } });
/** Session ids are the tokens' `sid`s (UUIDs); anything else names no session (404, never a database error). */
const assertSessionId = (id: string) => {
  if (!isUuid(id)) throw notFound('session');
};

/** The rows as the lists show them, the request's own session marked. */
const viewsOf = (rows: Omit<SessionView, 'current'>[], currentId: string | undefined): SessionView[] =>
  rows.map((row) => ({ ...row, current: row.id === currentId }));

const NEWEST_FIRST = [{ createdAt: 'desc' as const }, { id: 'desc' as const }];

export async function mySessions(ctx: RequestContext): Promise<SessionView[]> {
  const { customerId, sessionId } = await ctx.auth.customer();
  const rows = await ctx.db.prisma.customerSession.findMany({
    where: { customerId, ...live() },
    select: SELECT,
    orderBy: NEWEST_FIRST,
  });
  return viewsOf(rows, sessionId);
}

/** Ends one of the customer's own sessions; another customer's, or none, is NOT_FOUND. */
export async function revokeMySession(ctx: RequestContext, id: string): Promise<true> {
  const { customerId } = await ctx.auth.customer();
  assertSessionId(id);
  const { count } = await ctx.db.prisma.customerSession.updateMany({
    where: { id, customerId, revokedAt: null },
    data: { revokedAt: new Date() },
  });
  if (count === 0) throw notFound('session');
  ctx.log.info({ customer_id: customerId, session_id: id }, 'customer session revoked');
  return true;
}

export async function revokeMyOtherSessions(ctx: RequestContext): Promise<true> {
  const { customerId, sessionId } = await ctx.auth.customer();
  const revoked = await revokeCustomerSessions(ctx.db.prisma, customerId, sessionId);
  ctx.log.info({ customer_id: customerId, sessions_revoked: revoked }, 'customer ended their other sessions');
  return true;
}

export async function adminSessions(ctx: RequestContext): Promise<SessionView[]> {
  const { adminId, sessionId } = await ctx.auth.adminAccount();
  const rows = await ctx.db.prisma.adminSession.findMany({
    where: { adminId, ...live() },
    select: SELECT,
    orderBy: NEWEST_FIRST,
  });
  return viewsOf(rows, sessionId);
}

/** Ends one of the calling admin's own sessions; another admin's, or none, is NOT_FOUND. */
export async function revokeAdminSession(ctx: RequestContext, id: string): Promise<true> {
  const { adminId } = await ctx.auth.adminAccount();
  assertSessionId(id);
  return adminWrite(ctx, async (tx, audit) => {
    const { count } = await tx.adminSession.updateMany({
      where: { id, adminId, revokedAt: null },
      data: { revokedAt: new Date() },
    });
    if (count === 0) throw notFound('session');
    audit({ action: 'admin.revoke_sessions', target: { type: 'admin', id: adminId }, changes: { revoked: [0, 1] } });
    return true as const;
  });
}

/** Owner: ends every session of an admin (their tokens answer TOKEN_REVOKED from then on). */
export function revokeAllSessionsOfAdmin(ctx: RequestContext, adminId: number): Promise<true> {
  return adminWrite(ctx, async (tx, audit) => {
    if (!(await tx.admin.findUnique({ where: { id: adminId }, select: { id: true } }))) throw notFound('admin');
    const revoked = await revokeAdminSessions(tx, adminId);
    audit({
      action: 'admin.revoke_sessions',
      target: { type: 'admin', id: adminId },
      changes: { revoked: [0, revoked] },
    });
    return true as const;
  });
}

/** Support or owner: ends every session of a customer. */
export function revokeAllSessionsOfCustomer(ctx: RequestContext, customerId: number): Promise<true> {
  return adminWrite(ctx, async (tx, audit) => {
    if (!(await tx.customer.findUnique({ where: { id: customerId }, select: { id: true } }))) {
      throw notFound('customer');
    }
    const revoked = await revokeCustomerSessions(tx, customerId);
    audit({
      action: 'customer.revoke_sessions',
      target: { type: 'customer', id: customerId },
      changes: { revoked: [0, revoked] },
    });
    return true as const;
  });
}
