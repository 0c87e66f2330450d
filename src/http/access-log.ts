/**
 * What each answered request leaves behind (contract §7.7): one log line and the HTTP metrics, made
 * from the same facts — route pattern, method, status, duration, bytes sent, client, principal and
 * the GraphQL operation. Never a credential: the line holds no headers, no body, and no query string
 * on the GraphQL endpoint (a GET there carries documents and variables, which may hold a password).
 */
import type { NextFunction, Request, Response } from 'express';
import type { Metrics } from '../observability/metrics.ts';
import type { RequestContext } from '../request-context.ts';
import { clientIpOf } from './request-scope.ts';

/** The route label of a request no route matched: unknown paths must not each become a series. */
const UNMATCHED_ROUTE = '(unmatched)';

const MAX_QUERY_LENGTH = 512;

interface Observed {
  bytes: number;
}

/** The route pattern the request matched (`/api/v1/items/:id`), or UNMATCHED_ROUTE. */
function routeOf(req: Request): string {
  const path = (req.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' ? req.baseUrl + path : UNMATCHED_ROUTE;
}

/** Counts the bytes of the body as they leave (after compression, when this runs before it). */
function countBytes(res: Response, into: Observed): void {
  const size = (chunk: unknown, encoding?: unknown) =>
    typeof chunk === 'string'
      ? Buffer.byteLength(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
      : chunk instanceof Uint8Array
        ? chunk.byteLength
        : 0;
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => Response;
  (res as unknown as { write: (...args: unknown[]) => boolean }).write = (...args) => {
    into.bytes += size(args[0], args[1]);
    return write(...args);
  };
  (res as unknown as { end: (...args: unknown[]) => Response }).end = (...args) => {
    if (typeof args[0] !== 'function') into.bytes += size(args[0], args[1]);
    return end(...args);
  };
}

/** The request's context, if one was built (GraphQL and REST requests). */
const contextOf = (res: Response) => res.locals.context as RequestContext | undefined;

/** Install right after the request scope (request id, logger) and before compression. */
export function accessLog(metrics: Pick<Metrics, 'httpRequests' | 'httpDuration'>, graphqlEndpoint: string) {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    const facts: Observed = { bytes: 0 };
    res.locals.observed = facts;
    countBytes(res, facts);
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = routeOf(req);
      const labels = { method: req.method, route, status: String(res.statusCode) };
      metrics.httpRequests.inc(labels);
      metrics.httpDuration.observe(labels, seconds);
      const queryAt = req.originalUrl.indexOf('?');
      const path = queryAt >= 0 ? req.originalUrl.slice(0, queryAt) : req.originalUrl;
      const line = {
        method: req.method,
        route,
        path,
        ...(queryAt >= 0 && path !== graphqlEndpoint
          ? { query: req.originalUrl.slice(queryAt + 1, queryAt + 1 + MAX_QUERY_LENGTH) }
          : {}),
        status: res.statusCode,
        duration_ms: Math.round(seconds * 10_000) / 10,
        bytes: facts.bytes,
        client_ip: clientIpOf(req),
        // `customer:7` / `admin:1`: whoever the request's token was verified to be, if anyone.
        principal: contextOf(res)?.auth.principal,
        graphql_operation: contextOf(res)?.observed.operationName,
      };
      // Error level is for what needs fixing here (a 500); a 503 is an expected state the service
      // answers as designed — a database or WeChat away, mini-program login not configured.
      if (res.statusCode === 500) res.locals.log.error(line, 'request failed');
      else if (res.statusCode >= 500) res.locals.log.warn(line, 'request not served');
      else res.locals.log.info(line, 'request');
    });
    next();
  };
}
