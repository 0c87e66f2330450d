/**
 * One serving process: the database, the long-lived services, the app on its HTTP server, and the
 * graceful stop of contract §7.4. Runs alone, or as one of the workers of src/process/supervise.ts.
 */
import cluster from 'node:cluster';
import { buildApp } from '../app.ts';
import type { Config } from '../config/config.ts';
import { listenFailure, servicePort } from '../errors/startup-error.ts';
import { schema } from '../graphql/schema.ts';
import { createHttpServer } from '../http/http-server.ts';
import { createLogger } from '../logger.ts';
import { workerClusterMetrics } from '../observability/cluster-metrics.ts';
import { createMetrics } from '../observability/metrics.ts';
import { listenForMetrics } from '../observability/metrics-endpoint.ts';
import { restRoutes } from '../rest/routes.ts';
import { openRuntime } from '../runtime.ts';
import { bindListener, requestListeners, SERVING, STOP_ACCEPTING, STOPPED_ACCEPTING } from './shared-listener.ts';
import { warmUp } from './warm-up.ts';

/** In-flight requests get this long after SIGTERM; what is still open then is closed. */
const SHUTDOWN_GRACE_MS = 10_000;

export interface ServeOptions {
  /** Apply migrations, create the bootstrap admin and seed demo data first (once per deployment start). */
  prepare: boolean;
}

export async function serve(config: Config, { prepare }: ServeOptions): Promise<void> {
  const started = performance.now();
  const log = createLogger(config.logLevel, config.logFormat);
  if (config.production && config.database.kind === 'pglite') {
    log.warn(
      `PRODUCTION ON THE EMBEDDED DATABASE: no DATABASE_URL is set, so all data lives in ${config.dataDir} ` +
        'inside this one process (no workers, no replicas, no managed backups) — set DATABASE_URL to a PostgreSQL server',
    );
  }
  // The port first, before the database is touched (contract §11): a taken PORT is said at once, not
  // after migrations, seeding and a bootstrap password nobody will see, and leaves no lock behind. A
  // worker gets handles of the primary's socket (shared-listener.ts); a process on its own binds it —
  // bound, not yet listening, so nothing connects before the app is ready.
  const handles = cluster.isWorker
    ? await requestListeners()
    : [
        await bindListener(config.host, config.port).catch((err: unknown) => {
          throw listenFailure(err, servicePort(config));
        }),
      ];
  // A worker leaves the background work to its instance's background process (background.ts).
  const runtime = await openRuntime(config, {
    role: 'server',
    prepare: prepare ? 'everything' : 'nothing',
    background: !cluster.isWorker,
    log,
  });
  const { db, bootstrap } = runtime;
  if (bootstrap?.generatedPassword) {
    // Printed once, to the terminal only: the demo admin of a fresh development database.
    process.stdout.write(
      `\n  Bootstrap admin created — username: ${bootstrap.username}  password: ${bootstrap.generatedPassword}\n` +
        `  (shown only now; set ADMIN_USERNAME / ADMIN_PASSWORD to choose them)\n\n`,
    );
  }
  let shuttingDown = false;
  // A worker's own registry is only part of the picture: the primary sums every worker's.
  const metricsText = cluster.isWorker
    ? workerClusterMetrics(runtime.metrics.registry)
    : () => runtime.metrics.registry.metrics();
  const app = buildApp({ runtime, schema, routes: restRoutes, isShuttingDown: () => shuttingDown, metricsText });
  const http = createHttpServer(app, { keepAliveTimeoutMs: config.keepAliveTimeoutMs });
  // In production only: a development or test server has no load balancer handing it full load the
  // moment it listens, and starts sooner without (~0.7 s of CPU: a second app and 21 requests).
  if (config.production) {
    // Warmed through an app of its own, with a silent log and metrics of its own: the warm-up's requests
    // are not the traffic the log and /metrics report (the code, the caches and Prisma are shared).
    const rehearsal = buildApp({
      runtime: { ...runtime, log: createLogger('silent'), metrics: createMetrics({ processMetrics: false }) },
      schema,
      routes: restRoutes,
    });
    const warm = await warmUp(rehearsal, db);
    log.info({ warm_up_requests: warm.requests, warm_up_ms: warm.ms }, 'warmed up');
  }
  const port = await http.listenOnHandles(handles);
  // The primary starts the other workers once the first serves (supervise.ts).
  if (cluster.isWorker) process.send?.({ type: SERVING });
  // With workers the primary serves METRICS_PORT (supervise.ts).
  if (config.metrics.port !== undefined && !cluster.isWorker) {
    await listenForMetrics(config.metrics.port, config.metrics.host, metricsText);
  }
  log.info(
    { port, host: config.host, database: db.sql.kind, startup_ms: Math.round(performance.now() - started) },
    'shop service listening',
  );

  // /readyz turns 503 at once, no new connections, every later answer says `Connection: close`,
  // in-flight requests finish (up to 10 s), then Redis and the database close.
  const stop = async (signal: string) => {
    if (draining) return;
    draining = shuttingDown = true;
    log.info({ signal }, 'shutting down: finishing in-flight requests');
    await http.drain(SHUTDOWN_GRACE_MS);
    await runtime.close();
    log.info('stopped');
    process.exit(0);
  };
  let draining = false;
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  // With workers, the primary first has every worker stop accepting, and only then has them drain:
  // a `Connection: close` answer sends its client to reconnect, and that reconnection must meet a
  // closed socket (refused at once), not a socket still listening that the kernel resets at exit.
  process.on('message', (message: { type?: unknown }) => {
    if (message?.type !== STOP_ACCEPTING) return;
    shuttingDown = true;
    http.stopAccepting();
    process.send?.({ type: STOPPED_ACCEPTING });
  });
}
