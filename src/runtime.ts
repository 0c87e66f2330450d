/**
 * Opening what a process works with, in one order everywhere (the server, the CLI, the migrator,
 * the tests): configuration → database (migrated, and prepared where asked) → long-lived services.
 */
import type { BootstrapResult } from './accounts/bootstrap-admin.ts';
import type { Config } from './config/config.ts';
import { type Database, openDatabase } from './db/database.ts';
import { databaseTarget } from './db/database-target.ts';
import { waitForDatabase } from './db/wait-for-database.ts';
import { runWebhooks, type Webhooks } from './events/webhooks-runner.ts';
import { createLogger, type Logger } from './logger.ts';
import { memoBy } from './memo.ts';
import { histogramSeries } from './observability/metric-series.ts';
import { createMetrics, type Metrics } from './observability/metrics.ts';
import type { Rounds } from './process/rounds.ts';
import { type FacetFold, startFacetFold } from './search/facet-fold.ts';
import { buildServices, type Services } from './services.ts';
import { migrateDatabase, prepareDatabase } from './setup/prepare-database.ts';
import { startAbandonedUploadSweep } from './transfer/abandoned-uploads.ts';
import { importRunner, workImports } from './transfer/import-job.ts';

export interface Runtime {
  readonly config: Config;
  readonly log: Logger;
  readonly db: Database;
  readonly services: Services;
  /** This process's Prometheus metrics, on a registry of its own. */
  readonly metrics: Metrics;
  /** The bootstrap admin created while preparing, if any (its generated password is shown once). */
  readonly bootstrap?: BootstrapResult;
  /** Closes the services, then the database (bounded: a silent database cannot hang it). */
  close(): Promise<void>;
}

export interface RuntimeOptions {
  /** Who opens the database; the embedded database's lock names it (`server`, `npm run cli`). */
  role: string;
  /**
   * `everything`: migrations, bootstrap admin and demo data (a starting service); `migrations`: only
   * those (the CLI); `nothing`: the database is ready (a later worker).
   */
  prepare: 'everything' | 'migrations' | 'nothing';
  /**
   * Runs the background work in this process: imports, the webhook dispatch and deliveries, the facet
   * counts' fold (a process alone, the tests' in-process service, the background process of a cluster
   * — process/background.ts); the others only queue jobs.
   */
  background: boolean;
  /** A logger other than the configured one (the CLI keeps quiet). */
  log?: Logger;
  /** A database opened by the caller (tests open a fresh one per file). */
  db?: Database;
}

export async function openRuntime(config: Config, opts: RuntimeOptions): Promise<Runtime> {
  const log = opts.log ?? createLogger(config.logLevel, config.logFormat);
  // Process metrics only for a serving process: a test process opens many runtimes.
  const metrics = createMetrics({ processMetrics: opts.role === 'server' || opts.role === 'background' });
  if (!opts.db && config.database.kind === 'pglite') {
    // Creating it (a first start) takes seconds: say what is happening.
    log.info({ data_dir: config.dataDir }, 'opening the embedded database');
  }
  const db = opts.db ?? (await openDatabase(databaseTarget(config, opts.role)));
  metrics.observePools(() => db.poolUsage());
  // Every statement is timed: each pool's series found once (observability/metric-series.ts).
  const statementSeries = memoBy((pool: string) => histogramSeries(metrics.statementDuration, { pool }));
  db.observeStatements((seconds, pool) => statementSeries(pool).observe(seconds));
  db.observeSilence((silent, pool) =>
    silent
      ? log.warn({ pool }, 'database not answering: requests fail at once (503) until a probe gets an answer')
      : log.info({ pool }, 'database answering again'),
  );
  try {
    // A database this process was pointed at may still be starting (a container beside ours).
    if (!opts.db && config.database.kind === 'postgres') {
      await waitForDatabase(db.sql, { url: config.database.url, timeoutMs: config.databaseConnectTimeoutMs, log });
    }
    let bootstrap: BootstrapResult | undefined;
    if (opts.prepare === 'everything') bootstrap = await prepareDatabase(db, config, log);
    if (opts.prepare === 'migrations') await migrateDatabase(db, config);
    const services = await buildServices(config, log, db, metrics, { runsJobs: opts.background });
    let webhooks: Webhooks | undefined;
    let facetFold: FacetFold | undefined;
    let uploadSweep: Rounds | undefined;
    if (opts.background) {
      const imports = importRunner(db, services, log);
      await workImports(imports);
      uploadSweep = startAbandonedUploadSweep(imports, config.importUploadAbandonedAfterSeconds, log);
      webhooks = await runWebhooks(db, services, config, log);
      // The kept facet counts' pending deltas, folded after the writes that append them commit.
      facetFold = startFacetFold(db.sql, log);
      services.onCatalogChange(facetFold.kick);
    }
    return {
      config,
      log,
      db,
      services,
      metrics,
      bootstrap,
      close: async () => {
        await webhooks?.stop();
        await facetFold?.stop();
        await uploadSweep?.stop();
        await services.close();
        await db.close();
      },
    };
  } catch (err) {
    await db.close();
    throw err;
  }
}

/**
 * `npm run db:migrate`: applies pending migrations to the configured database (as MIGRATION_DATABASE_URL's
 * role when set, granting DATABASE_URL's role its privileges); returns their names.
 */
export async function migrate(config: Config): Promise<string[]> {
  const db = await openDatabase(databaseTarget(config, 'npm run db:migrate'));
  try {
    return await migrateDatabase(db, config);
  } finally {
    await db.close();
  }
}
