/**
 * Per-request plumbing shared by every route: the request id (answer-rules.ts), a child logger
 * carrying it, the client's address, and the GraphQL context. (The line per request: access-log.ts.)
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import type { Database } from '../db/database.ts';
import type { Logger } from '../logger.ts';
import { createRequestContext, type RequestContext } from '../request-context.ts';
import type { Services } from '../services.ts';
import { beginAnswer } from './answer-rules.ts';

/**
 * What is known of a request before any route runs, kept as `res.locals` (Express's place for it,
 * which Express keeps when it finds one): opened by the front door (rest/front-door.ts) for what it
 * serves, else by Express's first middleware — once per request either way. A class, not a bag of
 * properties: it is made on every request, and its child logger only when something logs.
 */
export class RequestScope {
  /** The GraphQL context, once built (contextOf). */
  context?: RequestContext;
  /** Its log line and metrics are arranged (answer-rules.ts's observation of the answer). */
  observed?: object;
  #log?: Logger;
  #clientIp?: string;

  constructor(
    readonly requestId: string,
    private readonly baseLog: Logger,
    private readonly req: IncomingMessage,
    private readonly clientIpOf: (req: never) => string,
  ) {}

  /** The client's address under TRUST_PROXY (see clientIpOf), worked out when first asked for. */
  get clientIp(): string {
    this.#clientIp ??= this.clientIpOf(this.req as never);
    return this.#clientIp;
  }

  /**
   * A child logger carrying the request id, made on first use: most requests write no line but
   * their request line, and LOG_LEVEL may leave that out too.
   */
  get log(): Logger {
    this.#log ??= this.baseLog.child({ request_id: this.requestId });
    return this.#log;
  }

  /** Whether a line at `level` would be written: a child logger has its parent's level. */
  logs(level: 'info' | 'warn' | 'error'): boolean {
    return this.baseLog.isLevelEnabled(level);
  }
}

type WithLocals = ServerResponse & { locals?: unknown };

/** The request's scope, opened on first call: its request id is sent as `X-Request-Id` then. */
export function openRequestScope<R extends IncomingMessage>(
  req: R,
  res: ServerResponse,
  log: Logger,
  clientIp: (req: R) => string,
): RequestScope {
  const locals = (res as WithLocals).locals;
  if (locals instanceof RequestScope) return locals;
  // Express's own (empty) locals, if it made them first, give way to the scope.
  const scope = new RequestScope(beginAnswer(req, res), log, req, clientIp);
  (res as WithLocals).locals = scope;
  return scope;
}

/** The scope of a request whose scope is open (every request past the first middleware). */
export const scopeOf = (res: ServerResponse): RequestScope => (res as WithLocals).locals as RequestScope;

export function requestContextMiddleware(log: Logger) {
  return (req: Request, res: Response, next: NextFunction) => {
    openRequestScope(req, res, log, clientIpOf);
    next();
  };
}

/**
 * Every `Authorization` header of the request. Node keeps only the first of duplicates in
 * `req.headers`, but proxies disagree on which one wins, so the raw list is what counts (§7.1).
 */
function authorizationHeaders(req: IncomingMessage): string[] {
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
  req: IncomingMessage,
  res: ServerResponse,
  db: Database,
  services: Services,
  readFromPrimary = false,
): RequestContext {
  const scope = scopeOf(res);
  scope.context ??= createRequestContext(db, services, {
    scope,
    authorization: authorizationHeaders(req),
    userAgent: shortUserAgent(req.headers['user-agent']),
    readFromPrimary,
  });
  return scope.context;
}
