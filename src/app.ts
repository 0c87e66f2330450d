/**
 * Builds the Express application: probes, the GraphQL endpoint, the REST adapters (the route table,
 * and the export's streamed file) and the shared error layer. It does not listen (src/process/serve.ts
 * does), so tests run it on port 0.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { GraphQLSchema } from 'graphql';
import onHeaders from 'on-headers';
import proxyaddr from 'proxy-addr';
import { AppError, importFileTooLarge } from './errors/app-error.ts';
import { toAppError } from './errors/to-app-error.ts';
import { createGraphQLServer, GRAPHQL_ENDPOINT } from './graphql/yoga.ts';
import { accessLog } from './http/access-log.ts';
import { setSecurityHeaders } from './http/answer-rules.ts';
import { compressLargeAnswers } from './http/compression.ts';
import { consoleRoutes } from './http/console.ts';
import { createCors } from './http/cors.ts';
import { docsRoutes } from './http/docs.ts';
import { faviconRoutes } from './http/favicon.ts';
import { fileBody } from './http/file-body.ts';
import { frontPageRoutes } from './http/front-page.ts';
import { createGraphiQL, wantsGraphiQL } from './http/graphiql.ts';
import { healthRoutes } from './http/health.ts';
import { BODY_LIMIT_BYTES, jsonBody } from './http/json-body.ts';
import { sendProblem } from './http/problem.ts';
import { cappedIp, contextOf, requestContextMiddleware } from './http/request-scope.ts';
import { consolePagePolicy, htmlPagePolicy } from './http/security-headers.ts';
import { undecodablePathAsLiteral } from './http/undecodable-path.ts';
import type { Logger } from './logger.ts';
import { metricsRoute } from './observability/metrics-endpoint.ts';
import { buildOpenApiDocument } from './openapi/document.ts';
import { frontDoor } from './rest/front-door.ts';
import { compileRoutes, type RestRoute } from './rest/route.ts';
import { routeRunner } from './rest/run.ts';
import type { Runtime } from './runtime.ts';
import { ITEM_EXPORT_PATH, itemExportHandler, itemExportRoute } from './transfer/export.http.ts';
import { importErrorsRoutes } from './transfer/imports.http.ts';

export interface AppDeps {
  runtime: Runtime;
  schema: GraphQLSchema;
  routes: RestRoute[];
  /** True once SIGTERM arrived: `/readyz` turns 503 so load balancers drain us. */
  isShuttingDown?: () => boolean;
  /** The Prometheus text for `/metrics`; default this process's registry (a worker asks its primary). */
  metricsText?: () => Promise<string>;
}

/** What a GraphQL multipart request carries besides its file (the operation, the map, part headers). */
const MULTIPART_ALLOWANCE = 64 * 1024;

/** The request listener: the front door for public reads, Express for everything else. */
export type AppHandler = (req: IncomingMessage, res: ServerResponse) => void;

export function buildApp(deps: AppDeps): AppHandler {
  const { config, db, log, services } = deps.runtime;
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  app.set('etag', false);
  app.use(requestContextMiddleware(log));
  app.use(accessLog(deps.runtime.metrics, GRAPHQL_ENDPOINT));
  // Answers over 1 KiB go out as br or gzip when accepted; precompressed ones (catalogue answers)
  // already carry Content-Encoding and pass untouched.
  app.use(compressLargeAnswers);
  app.use(undecodablePathAsLiteral);
  app.use(requireHost);
  const cors = createCors(config.corsOrigins);
  app.use((req, res, next) => {
    setSecurityHeaders(res);
    // OPTIONS requests are answered by `options` on the paths that exist; elsewhere they are 404s.
    if (req.method !== 'OPTIONS') cors.answer(req, res);
    next();
  });

  /** Rounds off a path: `OPTIONS` (CORS preflight, `Allow`) and 405 with `Allow` for other methods. */
  const finishPath = (path: string, methods: string[]) => {
    const allowed = methods.flatMap((m) => (m === 'GET' ? ['GET', 'HEAD'] : [m]));
    app.route(path).options(cors.options(allowed)).all(methodNotAllowed(allowed));
  };

  app.use(healthRoutes(db, deps.isShuttingDown ?? (() => false)));
  finishPath('/healthz', ['GET']);
  finishPath('/readyz', ['GET']);
  app.use(faviconRoutes());
  finishPath('/favicon.ico', ['GET']);
  app.use(
    frontPageRoutes({
      graphiql: config.graphiql,
      metrics: config.metrics.onMainPort,
      pagePolicy: htmlPagePolicy,
      // How the demo accounts stand, for a developer's first look (never said in production).
      demoStatus: config.production
        ? undefined
        : async () => {
            const [row] = await db.sql.query<{ admins: number; items: number; bootstrap: boolean }>(
              `SELECT (SELECT count(*) FROM admins)::int AS admins, (SELECT count(*) FROM items)::int AS items,
                      EXISTS (SELECT 1 FROM admins WHERE username = $1) AS bootstrap`,
              [config.bootstrapAdmin.username],
            );
            return {
              admins: row?.admins ?? 0,
              items: row?.items ?? 0,
              ...(row?.bootstrap ? { bootstrapAdmin: config.bootstrapAdmin.username } : {}),
            };
          },
    }),
  );
  finishPath('/', ['GET']);
  if (config.metrics.onMainPort) {
    app.get('/metrics', metricsRoute(deps.metricsText ?? (() => deps.runtime.metrics.registry.metrics())));
    finishPath('/metrics', ['GET']);
  }

  // One pipeline for both protocols: Yoga serves /graphql, and the REST routes execute through its
  // enveloped pipeline with the same per-request context.
  const contextFor = (req: IncomingMessage, res: ServerResponse, readFromPrimary: boolean) =>
    contextOf(req, res, db, services, readFromPrimary);
  const yoga = createGraphQLServer({
    schema: deps.schema,
    introspection: config.introspection,
    hideFieldSuggestions: config.production,
    log,
    metrics: deps.runtime.metrics,
    contextFor,
    maxCost: config.graphqlMaxCost,
    maxFieldBytes: BODY_LIMIT_BYTES,
  });
  const graphql = (req: Request, res: Response) => yoga.handle(req, res, { req, res });
  const graphiql = config.graphiql
    ? createGraphiQL({ endpoint: yoga.graphqlEndpoint, title: 'Shop API — GraphiQL' })
    : undefined;
  const page: RequestHandler = (req, res, next) => {
    if (!wantsGraphiQL(req.get('accept'), req.query)) return next();
    // Yoga would answer a browser with a bare 406; every answer is problem+json (§7.1).
    if (!graphiql) {
      return next(
        new AppError('NOT_ACCEPTABLE', 'GraphiQL is off on this server (GRAPHIQL); send GraphQL requests as JSON.'),
      );
    }
    htmlPagePolicy(req, res, () => graphiql.sendPage(res));
  };
  // Answers that may carry a token or personal data are never stored by a cache (§7.5). Set as the
  // head goes out: Yoga's own transports set their own (`no-cache` for text/event-stream).
  const noStore: RequestHandler = (_req, res, next) => {
    onHeaders(res, () => res.setHeader('Cache-Control', 'no-store'));
    next();
  };
  // JSON, or a multipart request carrying a file (startImport): read as it arrives, graphql/streamed-upload.ts.
  const graphqlBody: RequestHandler = (req, res, next) => {
    if (!req.is('multipart/form-data')) {
      return jsonBody(req, res, (err?: unknown) => {
        // Yoga's server adapter takes a parsed body only when it has keys: for `{}`, `[]`, `42` or `null`
        // it would read the body's stream again, which has ended, and wait for ever. Given as its text,
        // Yoga reads that (and answers why it is no GraphQL request).
        const body: unknown = req.body;
        if (!err && body !== undefined && (typeof body !== 'object' || body === null || !Object.keys(body).length)) {
          req.body = JSON.stringify(body);
        }
        next(err);
      });
    }
    // The operations and map parts are small: a declared length past the file limit is refused unread
    // (a chunked body is held to the same limit as startImport reads it).
    if (Number(req.get('content-length') ?? 0) > config.importMaxBytes + MULTIPART_ALLOWANCE) {
      return next(importFileTooLarge(config.importMaxBytes));
    }
    next();
  };
  app.route(yoga.graphqlEndpoint).get(page, noStore, graphql).post(noStore, graphqlBody, graphql);
  finishPath(yoga.graphqlEndpoint, ['GET', 'POST']);
  if (graphiql) app.use(graphiql.routes);

  app.use(importErrorsRoutes(contextFor));
  finishPath('/admin/api/imports/:id/errors.csv', ['GET']);

  const routes = compileRoutes(yoga, deps.routes);
  // Public reads keep their answers in the catalogue's cache, the one answer cache there is.
  const runner = routeRunner(yoga, services.catalogCache, contextFor);
  // Routes outside the table (a streamed file) are described for the document by hand.
  const described = [itemExportRoute];
  app.use(docsRoutes(buildOpenApiDocument(yoga.getEnveloped({} as never).schema, routes, described), htmlPagePolicy));
  finishPath('/openapi.json', ['GET']);
  finishPath('/docs', ['GET']);

  // The export streams a file (contract §13.3): a handler of its own that keeps the rows' rules
  // (transfer/export.http.ts), before the table, as any route outside it.
  app.get(
    ITEM_EXPORT_PATH,
    itemExportHandler((req, res) => contextFor(req, res, false)),
  );
  finishPath(ITEM_EXPORT_PATH, ['GET']);

  // Grouped by path so a known path with another method answers 405 with `Allow`.
  const byPath = new Map<string, typeof routes>();
  for (const route of routes) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route]);
  for (const [path, pathRoutes] of byPath) {
    const chain = app.route(path);
    for (const route of pathRoutes) {
      const body = route.fileBody ? fileBody(route.fileBody.types, config.importMaxBytes) : jsonBody;
      chain[route.method.toLowerCase() as Lowercase<typeof route.method>](body, (req, res) =>
        runner.runRoute(route, req, res),
      );
    }
    finishPath(
      path,
      pathRoutes.map((r) => r.method),
    );
  }

  // The admin console (§15): /admin and every path under it but /admin/api/*, which stays the API's
  // (an unknown one is the 404 below).
  const consoleMethods = ['GET', 'HEAD'];
  app.use(
    consoleRoutes({
      pagePolicy: consolePagePolicy,
      options: cors.options(consoleMethods),
      otherMethod: methodNotAllowed(consoleMethods),
      warm: config.env !== 'test',
    }),
  );

  app.use((req, _res, next) => next(new AppError('NOT_FOUND', `No route ${req.method} ${req.path}.`)));
  // Errors of the HTTP layer itself (GraphQL's are masked and logged in the pipeline, graphql/yoga.ts).
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const { error, unexpected } = toAppError(err);
    if (unexpected) ((res.locals.log as Logger | undefined) ?? log).error({ err }, 'request failed');
    if (res.headersSent) return void res.end();
    sendProblem(res, error);
  });

  // Public reads are answered before Express is entered (rest/front-door.ts), with what every
  // answer carries from the same functions Express's middleware calls.
  const trustProxy = app.get('trust proxy fn') as Parameters<typeof proxyaddr>[1];
  const door = frontDoor({
    routes,
    runner,
    cors,
    log,
    metrics: deps.runtime.metrics,
    graphqlEndpoint: yoga.graphqlEndpoint,
    clientIp: (req) => cappedIp(proxyaddr(req, trustProxy)),
  });
  return (req, res) => {
    const visit = door.recognise(req);
    if (!visit) return void app(req, res);
    door.serve(visit, req, res).then(
      (served) => {
        if (!served) app(req, res);
      },
      (err: unknown) => {
        // Only sending the answer can fail here (before it, the door falls back to the app).
        log.error({ err }, 'front door failed to send an answer');
        res.destroy();
      },
    );
  };
}

/** HTTP/1.1 requires `Host` (RFC 9112 §3.2); Node lets it through so the answer can be problem+json. */
function requireHost(req: Request, _res: Response, next: NextFunction) {
  if (req.httpVersionMajor === 1 && req.httpVersionMinor >= 1 && req.headers.host === undefined) {
    return next(new AppError('MALFORMED_REQUEST', 'An HTTP/1.1 request needs a Host header.'));
  }
  next();
}

function methodNotAllowed(allowed: string[]) {
  return (req: Request, res: Response, next: NextFunction) => {
    res.set('Allow', allowed.join(', '));
    next(new AppError('METHOD_NOT_ALLOWED', `${req.method} is not allowed here; use ${allowed.join(' or ')}.`));
  };
}
