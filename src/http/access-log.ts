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
export function observeOnce<R extends IncomingMessage>(
  req: R,
  res: ServerResponse,
  metrics: HttpMetrics,
  graphqlEndpoint: string,
  facts: AnswerFacts<R>,
): void {
  const scope = scopeOf(res);
  if (scope.observed) return;
  observeAnswer(req, res, metrics, graphqlEndpoint, scope, facts);
}

/** The route pattern the request matched (`/api/v1/items/:id`), or UNMATCHED_ROUTE. */
function routeOf(req: Request): string {
  const path = (req.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' ? req.baseUrl + path : UNMATCHED_ROUTE;
}

/** What Express's requests report: the route its router matched, the operation the context ran. */
const EXPRESS_FACTS: AnswerFacts<Request> = {
  route: routeOf,
  operation: (scope) => scope.context?.observed.operationName,
};

/** Install right after the request scope (request id, logger) and before compression. */
export function accessLog(metrics: HttpMetrics, graphqlEndpoint: string) {
  return (req: Request, res: Response, next: NextFunction) => {
    observeOnce(req, res, metrics, graphqlEndpoint, EXPRESS_FACTS);
    next();
  };
}
