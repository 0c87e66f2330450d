/**
 * The GraphQL context, built once per request for Yoga and for the REST adapters alike.
 */
import { RequestAuth } from '../auth/request-auth.ts';
import type { Database } from '../db/database.ts';
import type { Logger } from '../logger.ts';
import type { Services } from '../services.ts';

export interface Context {
  readonly requestId: string;
  readonly log: Logger;
  readonly db: Database;
  readonly services: Services;
  /** The request's principal, resolved lazily for the audience a field declares. */
  readonly auth: RequestAuth;
  readonly clientIp: string;
}

export interface RequestInfo {
  requestId: string;
  log: Logger;
  authorization: string | undefined;
  clientIp: string;
}

export function createContext(db: Database, services: Services, req: RequestInfo): Context {
  const { authorization, ...rest } = req;
  const auth = new RequestAuth(authorization, services.tokens, db.prisma, services.config.jwt.refreshGrace);
  return { ...rest, db, services, auth };
}

/** What a domain service needs to act on behalf of someone (the CLI acts for no admin). */
export interface ServiceContext {
  readonly db: Database;
  readonly log: Logger;
  /** The admin performing the operation, when there is one. */
  readonly actingAdminId?: number;
}

/** The service context of an admin field; its `admin` scope has already resolved (and cached) the admin. */
export async function asAdmin(ctx: Context): Promise<ServiceContext & { actingAdminId: number }> {
  const { adminId } = await ctx.auth.admin();
  return { db: ctx.db, log: ctx.log, actingAdminId: adminId };
}
