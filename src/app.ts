/**
 * Builds the Express application: probes, the GraphQL endpoint, the REST adapters and the shared
 * error layer. It does not listen (src/server.ts does), so tests run it on port 0.
 */
import express, { type NextFunction, type Request, type Response } from 'express';
import type { GraphQLSchema } from 'graphql';
import type { Config } from './config/config.ts';
import type { Database } from './db/database.ts';
import { AppError } from './errors/app-error.ts';
import { toAppError } from './errors/to-app-error.ts';
import { createGraphQLServer } from './graphql/yoga.ts';
import { docsRoutes } from './http/docs.ts';
import { healthRoutes } from './http/health.ts';
import { buildOpenApiDocument } from './http/openapi.ts';
import { jsonBody } from './http/json-body.ts';
import { sendProblem } from './http/problem.ts';
import { contextOf, requestContextMiddleware } from './http/request-context.ts';
import { compileRoutes, runRoute, type RestRoute } from './http/rest-route.ts';
import type { Logger } from './logger.ts';
import type { Services } from './services.ts';

export interface AppDeps {
  config: Config;
  db: Database;
  log: Logger;
  services: Services;
  schema: GraphQLSchema;
  routes: RestRoute[];
  /** True once SIGTERM arrived: `/readyz` turns 503 so load balancers drain us. */
  isShuttingDown?: () => boolean;
}

export function buildApp(deps: AppDeps): express.Express {
  const { config, db, log, services, schema } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  app.set('etag', false);
  app.use(requestContextMiddleware(log));
  app.use(healthRoutes(db, deps.isShuttingDown ?? (() => false)));

  const contextFor = (req: Request, res: Response) => contextOf(req, res, db, services);
  const yoga = createGraphQLServer({ schema, graphiql: config.graphiql, log, contextFor });
  const graphql = (req: Request, res: Response) => yoga.handle(req, res, { req, res });
  app
    .route(yoga.graphqlEndpoint)
    .get(graphql)
    .post(jsonBody, graphql)
    .all(methodNotAllowed(['GET', 'HEAD', 'POST']));

  const routes = compileRoutes(schema, deps.routes);
  app.use(docsRoutes(buildOpenApiDocument(schema, routes)));

  // Group rows by path so a known path with another method answers 405 with `Allow`.
  const byPath = new Map<string, typeof routes>();
  for (const route of routes) {
    byPath.set(route.path, [...(byPath.get(route.path) ?? []), route]);
  }
  for (const [path, routes] of byPath) {
    const chain = app.route(path);
    for (const route of routes) {
      chain[route.method.toLowerCase() as 'get' | 'post'](jsonBody, async (req, res) => {
        await runRoute(route, schema, contextFor(req, res), req, res);
      });
    }
    const allowed = routes.flatMap((r) => (r.method === 'GET' ? ['GET', 'HEAD'] : [r.method]));
    chain.all(methodNotAllowed(allowed));
  }

  app.use((req, _res, next) => next(new AppError('NOT_FOUND', `No route ${req.method} ${req.path}.`)));
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const { error, unexpected } = toAppError(err);
    if (unexpected) ((res.locals.log as Logger | undefined) ?? log).error({ err }, 'request failed');
    if (res.headersSent) return void res.end();
    sendProblem(res, error);
  });
  return app;
}

function methodNotAllowed(allowed: string[]) {
  return (req: Request, res: Response, next: NextFunction) => {
    res.set('Allow', allowed.join(', '));
    next(new AppError('METHOD_NOT_ALLOWED', `${req.method} is not allowed here; use ${allowed.join(' or ')}.`));
  };
}
