/**
 * The entry point and the only file that listens: configuration, database, app, graceful stop.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { buildApp } from './app.ts';
import { ConfigError, loadConfig } from './config/config.ts';
import { openDatabase } from './db/database.ts';
import { MigrationError } from './db/migrate.ts';
import { databaseTarget, prepareDatabase } from './db/prepare.ts';
import { schema } from './graphql/schema.ts';
import { restRoutes } from './http/routes.ts';
import { createLogger } from './logger.ts';
import { buildServices } from './services.ts';

const SHUTDOWN_GRACE_MS = 10_000;

async function main(): Promise<void> {
  const started = performance.now();
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const log = createLogger(config.logLevel);
  const db = await openDatabase(databaseTarget(config));
  const admin = await prepareDatabase(db, config, log);
  if (admin.generatedPassword) {
    // Printed once, to the terminal only: the demo admin of a fresh development database.
    process.stdout.write(
      `\n  Bootstrap admin created — username: ${admin.username}  password: ${admin.generatedPassword}\n` +
        `  (shown only now; set ADMIN_USERNAME / ADMIN_PASSWORD to choose them)\n\n`,
    );
  }
  const services = await buildServices(config, db, log);
  let shuttingDown = false;
  const app = buildApp({ config, db, log, services, schema, routes: restRoutes, isShuttingDown: () => shuttingDown });
  const server = app.listen(config.port, config.host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  log.info(
    { port, host: config.host, database: db.sql.kind, startup_ms: Math.round(performance.now() - started) },
    'shop service listening',
  );

  const stop = async (signal: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    log.info({ signal }, 'shutting down: finishing in-flight requests');
    const force = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
    force.unref();
    server.close();
    server.closeIdleConnections();
    await once(server, 'close');
    clearTimeout(force);
    await services.close();
    await db.close();
    log.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((err: unknown) => {
  const message = err instanceof MigrationError ? err.message : (err as Error)?.stack ?? String(err);
  process.stderr.write(`shop service failed to start: ${message}\n`);
  process.exit(1);
});
