/**
 * Per-request plumbing shared by every route: the request id (echoed when sane, else generated),
 * a child logger carrying it, one access-log line per response, and the GraphQL context.
 */
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { createContext, type Context } from '../graphql/context.ts';
import type { Database } from '../db/database.ts';
import type { Logger } from '../logger.ts';
import type { Services } from '../services.ts';

// Ids we echo: short, printable, no separators that could forge log lines or headers.
const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestContextMiddleware(log: Logger) {
  return (req: Request, res: Response, next: NextFunction) => {
    const incoming = req.get('x-request-id');
    const requestId = incoming && SANE_ID.test(incoming) ? incoming : randomUUID();
    const started = process.hrtime.bigint();
    res.locals.requestId = requestId;
    res.locals.log = log.child({ request_id: requestId });
    res.set('X-Request-Id', requestId);
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const line = { method: req.method, path: req.path, status: res.statusCode, ms: Math.round(ms * 10) / 10 };
      if (res.statusCode >= 500) res.locals.log.error(line, 'request failed');
      else res.locals.log.info(line, 'request');
    });
    next();
  };
}

/** The GraphQL context of this request, built on first use and reused (REST and Yoga alike). */
export function contextOf(req: Request, res: Response, db: Database, services: Services): Context {
  return (res.locals.context ??= createContext(db, services, {
    requestId: res.locals.requestId as string,
    log: res.locals.log as Logger,
    authorization: req.get('authorization'),
    clientIp: req.ip ?? req.socket.remoteAddress ?? 'unknown',
  })) as Context;
}
