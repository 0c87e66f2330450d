/**
 * `npm run db:migrate`: applies pending migrations to the configured database (DATABASE_URL, or the
 * embedded one in DATA_DIR) and exits; the same runner the service uses at start.
 */
import { loadConfig } from '../src/config/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { applyMigrations, readMigrations } from '../src/db/migrate.ts';
import { databaseTarget } from '../src/db/prepare.ts';

const config = loadConfig();
const db = await openDatabase(databaseTarget(config));
try {
  const applied = await applyMigrations(db.sql, await readMigrations());
  console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
} finally {
  await db.close();
}
