/**
 * `npm run db:migrate`: applies pending migrations to the configured database (DATABASE_URL, or the
 * embedded one in DATA_DIR) and exits; the same runner the service uses at start.
 */
import { ConfigError, loadConfig } from '../src/config/config.ts';
import { DataDirLockedError } from '../src/db/data-dir-lock.ts';
import { MigrationError } from '../src/db/migrate.ts';
import { migrate } from '../src/runtime.ts';

try {
  const applied = await migrate(loadConfig());
  console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
} catch (err) {
  if (!(err instanceof ConfigError || err instanceof DataDirLockedError || err instanceof MigrationError)) throw err;
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
}
