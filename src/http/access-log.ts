/**
 * The request log and HTTP metrics (contract §7.7), once per request: the rule itself is
 * answer-rules.ts's `observeAnswer`. The front door (rest/front-door.ts) observes what it takes on;
 * Express's middleware observes the rest — and a request the door handed over is not observed twice.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import type { Metrics } from '../observability/metrics.ts';
import { type AnswerFacts, observeAnswer, UNMATCHED_ROUTE } from './answer-rules.ts';
import { scopeOf } from './request-scope.ts';

type HttpMetrics = Pick<Metrics, 'httpRequests' | 'httpDuration'>;

/** Observes the request's answer unless it is observed already (its scope must be open). */
export function observeOnce(
  req: IncomingMessage,
  res: ServerResponse,
  metrics: HttpMetrics,
  graphqlEndpoint: string,
  facts: Omit<AnswerFacts, 'log' | 'clientIp'>,
): void {
  const scope = scopeOf(res);
  if (scope.observed) return;
  scope.observed = true;
  observeAnswer(req, res, metrics, graphqlEndpoint, { ...facts, log: scope.log, clientIp: scope.clientIp });
}

/** The route pattern the request matched (`/api/v1/items/:id`), or UNMATCHED_ROUTE. */
function routeOf(req: Request): string {
  const path = (req.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' ? req.baseUrl + path : UNMATCHED_ROUTE;
}

/** Install right after the request scope (request id, logger) and before compression. */
export function accessLog(metrics: HttpMetrics, graphqlEndpoint: string) {
  return (req: Request, res: Response, next: NextFunction) => {
    const scope = scopeOf(res);
    observeOnce(req, res, metrics, graphqlEndpoint, {
      route: () => routeOf(req),
      principal: () => scope.context?.auth.principal,
      operation: () => scope.context?.observed.operationName,
    });
    next();
  };
}
