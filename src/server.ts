/**
 * The entry point (`npm start`): on PostgreSQL a primary that supervises WORKERS serving processes
 * (src/process/), even when WORKERS is 1 — a worker accepts on many handles of the primary's socket
 * (shared-listener.ts), which one process alone cannot have, and a worker that dies is replaced — and
 * one background process beside them for the work no request waits for (process/background.ts). The
 * embedded database belongs to one process, which serves alone. The serving code is imported only
 * where it runs, so the primary stays small.
 */
import cluster from 'node:cluster';
import { type Config, ConfigError, loadConfig } from './config/config.ts';
import { DataDirLockedError } from './db/data-dir-lock.ts';
import { MigrationError } from './db/migrate.ts';
import { StartupError } from './errors/startup-error.ts';
import { BACKGROUND_ROLE, PROCESS_ROLE_ENV } from './process/process-role.ts';

async function main(config: Config): Promise<void> {
  if (cluster.isPrimary && config.database.kind === 'postgres') {
    await (await import('./process/supervise.ts')).supervise(config);
    return;
  }
  if (cluster.isWorker && process.env[PROCESS_ROLE_ENV] === BACKGROUND_ROLE) {
    await (await import('./process/background.ts')).runBackground(config);
    return;
  }
  // The first worker ever (id 1) prepares the database; replacements and later workers find it ready.
  const prepare = cluster.isPrimary || cluster.worker?.id === 1;
  await (await import('./process/serve.ts')).serve(config, { prepare });
}

let config: Config;
try {
  config = loadConfig();
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
}

main(config).catch((err: unknown) => {
  const expected = err instanceof MigrationError || err instanceof DataDirLockedError || err instanceof StartupError;
  const message = expected ? err.message : ((err as Error)?.stack ?? String(err));
  process.stderr.write(`shop service failed to start: ${message}\n`);
  process.exit(1);
});
