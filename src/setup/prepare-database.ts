/**
 * Everything that happens to the database before the service takes traffic: migrations, the
 * bootstrap admin, (development) the demo catalogue on an empty database, and search documents for
 * items that have none.
 */

import { type BootstrapResult, ensureBootstrapAdmin } from '../accounts/bootstrap-admin.ts';
import { seedDemoCatalog } from '../catalog/demo-catalog.ts';
import type { Config } from '../config/config.ts';
import type { Database } from '../db/database.ts';
import { applyMigrations, readMigrations } from '../db/migrate.ts';
import type { Logger } from '../logger.ts';
import { indexMissing } from '../search/documents.ts';
import { maintenanceIndexerSql } from '../search/indexer-sql.ts';

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
  // Items from before search existed, the demo catalogue, or rows inserted behind the service's back:
  // start-up work, without the request statement limit (one batch of a large catalogue may take longer).
  const indexed = await indexMissing(maintenanceIndexerSql(db.sql));
  if (indexed) log.info({ items: indexed }, 'search documents written');
  return admin;
}
