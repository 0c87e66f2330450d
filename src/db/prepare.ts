/**
 * Everything that happens to the database before the service takes traffic: migrations, the
 * bootstrap admin, and (development) the demo catalogue on an empty database.
 */

import { type BootstrapResult, ensureBootstrapAdmin } from '../accounts/bootstrap-admin.ts';
import type { Config } from '../config/config.ts';
import type { Logger } from '../logger.ts';
import type { Database, DatabaseTarget } from './database.ts';
import { seedDemoCatalog } from './demo-catalog.ts';
import { applyMigrations, readMigrations } from './migrate.ts';

/** The database the configuration names; `role` says who opens it (the embedded database's lock). */
export function databaseTarget(config: Config, role = 'server'): DatabaseTarget {
  return config.database.kind === 'postgres'
    ? {
        kind: 'postgres',
        url: config.database.url,
        poolSize: config.poolSize,
        statementTimeoutMs: config.statementTimeoutMs,
        replicaUrls: config.replicaUrls,
      }
    : { kind: 'pglite', dataDir: config.dataDir, role, statementTimeoutMs: config.statementTimeoutMs };
}

/**
 * Migrations, the bootstrap admin, the demo catalogue. Each step that does work says so before it
 * starts (contract §11): a first start takes seconds, and a silent one looks hung.
 */
export async function prepareDatabase(db: Database, config: Config, log: Logger): Promise<BootstrapResult> {
  const applied = await applyMigrations(db.sql, await readMigrations(), (migration) =>
    log.info({ migration }, 'applying migration'),
  );
  if (applied.length) log.info({ migrations: applied.length }, 'migrations applied');
  const admin = await ensureBootstrapAdmin(db.prisma, config, log);
  if (config.seedDemo) {
    const items = await seedDemoCatalog(db.prisma, () => log.info('seeding the demo catalogue'));
    if (items) log.info({ items }, 'demo catalogue seeded');
  }
  return admin;
}
