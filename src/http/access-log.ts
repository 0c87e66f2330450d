/**
 * The request log and HTTP metrics (contract §7.7) for what Express serves: the rule itself is
 * answer-rules.ts's `observeAnswer`, which the front door applies to what it serves.
 */
import type { NextFunction, Request, Response } from 'express';
import type { Metrics } from '../observability/metrics.ts';
import type { RequestContext } from '../request-context.ts';
import { observeAnswer, UNMATCHED_ROUTE } from './answer-rules.ts';
import { clientIpOf } from './request-scope.ts';

/** The route pattern the request matched (`/api/v1/items/:id`), or UNMATCHED_ROUTE. */
function routeOf(req: Request): string {
  const path = (req.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' ? req.baseUrl + path : UNMATCHED_ROUTE;
}

/** The request's context, if one was built (GraphQL and REST requests). */
const contextOf = (res: Response) => res.locals.context as RequestContext | undefined;

/** Install right after the request scope (request id, logger) and before compression. */
export function accessLog(metrics: Pick<Metrics, 'httpRequests' | 'httpDuration'>, graphqlEndpoint: string) {
  return (req: Request, res: Response, next: NextFunction) => {
    observeAnswer(req, res, metrics, graphqlEndpoint, {
      log: res.locals.log,
      route: () => routeOf(req),
      clientIp: clientIpOf(req),
      principal: () => contextOf(res)?.auth.principal,
      operation: () => contextOf(res)?.observed.operationName,
    });
    next();
  };
}
