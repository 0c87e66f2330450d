/**
 * Everything that happens to the database before the service takes traffic: migrations, the
 * bootstrap admin, (development) the demo catalogue on an empty database, and search documents for
 * items that have none.
 */

import { type BootstrapResult, ensureBootstrapAdmin } from '../accounts/bootstrap-admin.ts';
import { seedDemoCatalog } from '../catalog/demo-catalog.ts';
import { keepMissingItemJson } from '../catalog/item-rest-json.ts';
import type { Config } from '../config/config.ts';
import type { Database } from '../db/database.ts';
import { applyMigrations, MigrationError, pendingMigrations, readMigrations } from '../db/migrate.ts';
import { migrateAsOwner } from '../db/migration-role.ts';
import type { Logger } from '../logger.ts';
import { indexMissing } from '../search/documents.ts';
import { maintenanceIndexerSql } from '../search/indexer-sql.ts';

/**
 * Migrations, the bootstrap admin, the demo catalogue. Each step that does work says so before it
 * starts (contract §11): a first start takes seconds, and a silent one looks hung.
 */
export async function prepareDatabase(db: Database, config: Config, log: Logger): Promise<BootstrapResult> {
  const applied = await migrateDatabase(db, config, (migration) => log.info({ migration }, 'applying migration'));
  if (applied.length) log.info({ migrations: applied.length }, 'migrations applied');
  const admin = await ensureBootstrapAdmin(db.prisma, config, log);
  if (config.seedDemo) {
    const items = await seedDemoCatalog(db.prisma, () => log.info('seeding the demo catalogue'));
    if (items) log.info({ items }, 'demo catalogue seeded');
  }
  // Items from before search existed, the demo catalogue, or rows inserted behind the service's back:
  // start-up work, without the request statement limit (one batch of a large catalogue may take longer).
  const indexed = await indexMissing(maintenanceIndexerSql(db.sql));
  if (indexed) log.info({ items: indexed }, 'search documents written');
  // Their kept REST JSON is written by triggers; only rows written with those off lack it.
  const kept = await keepMissingItemJson(maintenanceIndexerSql(db.sql));
  if (kept) log.info({ items: kept }, 'kept item JSON written');
  return admin;
}

/**
 * Brings the schema up to date. With MIGRATION_DATABASE_URL, as that role, which then grants
 * DATABASE_URL's role what serving needs (db/migration-role.ts). Without it, as DATABASE_URL's role
 * (the simple mode), and only when something is pending: a serving role that may not change the
 * schema starts on a database migrated beforehand (`npm run db:migrate` as the owner), and is told
 * what to do when it is not. Returns the names applied.
 */
export async function migrateDatabase(
  db: Database,
  config: Config,
  onApplying?: (migration: string) => void,
): Promise<string[]> {
  const migrations = await readMigrations();
  if (config.database.kind === 'postgres' && config.database.migrationUrl) {
    // Asked of the server, not read from the URL: a pooler may log in as another role than it is given.
    const [serving] = await db.sql.query<{ role: string }>('SELECT current_user AS role');
    return migrateAsOwner(config.database.migrationUrl, serving!.role, migrations, onApplying);
  }
  const pending = await pendingMigrations(db.sql, migrations);
  if (!pending.length) return [];
  try {
    return await applyMigrations(db.sql, migrations, onApplying);
  } catch (err) {
    if (!isPermissionDenied(err)) throw err;
    throw new MigrationError(
      `${pending.length} migration(s) pending (${pending.map((m) => m.name).join(', ')}) and DATABASE_URL's role ` +
        `may not apply them (${(err as Error).message}): set MIGRATION_DATABASE_URL to the role that owns the ` +
        'tables, or run `npm run db:migrate` with it before starting',
    );
  }
}

// 42501 insufficient_privilege, on the statement itself or inside a migration that failed with it.
const isPermissionDenied = (err: unknown): boolean =>
  (err as { code?: unknown })?.code === '42501' ||
  (err instanceof MigrationError && (err.cause as { code?: unknown })?.code === '42501');
