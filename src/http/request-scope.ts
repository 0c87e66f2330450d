/**
 * Per-request plumbing shared by every route: the request id (answer-rules.ts), a child logger
 * carrying it, and the GraphQL context. (The line per request: access-log.ts.)
 */
import type { NextFunction, Request, Response } from 'express';
import type { Database } from '../db/database.ts';
import type { Logger } from '../logger.ts';
import { createRequestContext, type RequestContext } from '../request-context.ts';
import type { Services } from '../services.ts';
import { beginAnswer } from './answer-rules.ts';

export function requestContextMiddleware(log: Logger) {
  return (req: Request, res: Response, next: NextFunction) => {
    const requestId = beginAnswer(req, res);
    res.locals.requestId = requestId;
    res.locals.log = log.child({ request_id: requestId });
    next();
  };
}

/**
 * Every `Authorization` header of the request. Node keeps only the first of duplicates in
 * `req.headers`, but proxies disagree on which one wins, so the raw list is what counts (§7.1).
 */
function authorizationHeaders(req: Request): string[] {
  const values: string[] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i]!.toLowerCase() === 'authorization') values.push(req.rawHeaders[i + 1]!);
  }
  return values;
}

/**
 * The client's address under the TRUST_PROXY rule (Express' `req.ip`); the socket's peer otherwise.
 * At most 64 characters (an IPv6 address has 45): a trusted proxy may still pass on whatever a client
 * wrote in X-Forwarded-For, and sessions and audit entries store the address.
 */
export function clientIpOf(req: Request): string {
  return cappedIp(req.ip ?? req.socket.remoteAddress);
}

/** An address as the service records it (see clientIpOf). */
export const cappedIp = (ip: string | undefined): string => (ip ?? 'unknown').slice(0, 64);

/**
 * What a session list shows of a User-Agent: its first 200 characters. (Node's parser refuses control
 * characters in header values but a tab, so nothing unstorable gets this far.)
 */
export function shortUserAgent(header: string | undefined): string | null {
  const ua = header?.trim().slice(0, 200);
  return ua ? ua : null;
}

/**
 * The context of this request, built on first use and reused (REST and GraphQL alike);
 * `readFromPrimary` when its answer will be kept by the answer cache (rest/run.ts).
 */
export function contextOf(
  req: Request,
  res: Response,
  db: Database,
  services: Services,
  readFromPrimary = false,
): RequestContext {
  return (res.locals.context ??= createRequestContext(db, services, {
    requestId: res.locals.requestId as string,
    log: res.locals.log as Logger,
    authorization: authorizationHeaders(req),
    clientIp: clientIpOf(req),
    userAgent: shortUserAgent(req.headers['user-agent']),
    readFromPrimary,
  })) as RequestContext;
}
