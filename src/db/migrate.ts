/**
 * Applies prisma/migrations/* exactly as `prisma migrate deploy` would: same `_prisma_migrations`
 * table, same sha256 checksums, same advisory lock. The service runs it at start because Prisma's
 * schema engine is not available everywhere we run; a database migrated by either stays usable by both.
 */
import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SqlDriver } from './database.ts';

/** prisma/migrations of the project this module runs from (as source under src/, or bundled in dist/). */
export const migrationsDir = (): string =>
  findUp(dirname(fileURLToPath(import.meta.url)), join('prisma', 'migrations'));

function findUp(from: string, relative: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, relative))) return `${join(dir, relative)}/`;
    if (dirname(dir) === dir) throw new Error(`${relative} not found above ${from}`);
  }
}

export class MigrationError extends Error {
  override name = 'MigrationError';
}

export interface Migration {
  name: string;
  script: string;
  checksum: string;
}

// The table `prisma migrate deploy` creates, column for column.
const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
);`;

/** Reads the migration folders in name order, as Prisma does. */
export async function readMigrations(dir = migrationsDir()): Promise<Migration[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const script = await readFile(join(dir, name, 'migration.sql'), 'utf8');
      return { name, script, checksum: createHash('sha256').update(script).digest('hex') };
    }),
  );
}

interface AppliedRow {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
}

/**
 * Applies every pending migration, each in its own transaction, telling `onApplying` before each one
 * (a first start applies several: it says what it is doing). Returns the names applied.
 * Throws `MigrationError` when an applied migration was edited, or one failed earlier. `thenInLock`
 * runs after them, still holding the lock (grants: two instances granting at once could collide).
 */
export async function applyMigrations(
  sql: SqlDriver,
  migrations: Migration[],
  onApplying?: (name: string) => void,
  thenInLock?: () => Promise<void>,
): Promise<string[]> {
  return sql.withLock(async () => {
    await sql.exec(CREATE_TABLE);
    const done: string[] = [];
    for (const m of pendingOf(await appliedRows(sql), migrations)) {
      onApplying?.(m.name);
      await applyOne(sql, m);
      done.push(m.name);
    }
    await thenInLock?.();
    return done;
  });
}

/**
 * The migrations `applyMigrations` would apply, found by reading only: a role that may not create
 * tables (a serving role without MIGRATION_DATABASE_URL) can tell whether it has anything to do.
 * Throws `MigrationError` as `applyMigrations` does.
 */
export async function pendingMigrations(sql: SqlDriver, migrations: Migration[]): Promise<Migration[]> {
  const [table] = await sql.query<{ present: boolean }>(
    `SELECT to_regclass('"_prisma_migrations"') IS NOT NULL AS present`,
  );
  return pendingOf(table?.present ? await appliedRows(sql) : [], migrations);
}

const appliedRows = (sql: SqlDriver) =>
  sql.query<AppliedRow>(
    'SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations" ORDER BY started_at',
  );

function pendingOf(rows: AppliedRow[], migrations: Migration[]): Migration[] {
  const applied = new Map<string, AppliedRow>();
  for (const row of rows) {
    if (row.rolled_back_at) continue;
    if (!row.finished_at) {
      throw new MigrationError(
        `Migration ${row.migration_name} failed earlier and is not finished. Fix the database, then mark it ` +
          `with \`prisma migrate resolve\` (or delete its row in _prisma_migrations) before starting again.`,
      );
    }
    applied.set(row.migration_name, row);
  }
  return migrations.filter((m) => {
    const row = applied.get(m.name);
    if (row && row.checksum !== m.checksum) {
      throw new MigrationError(
        `Migration ${m.name} was changed after it was applied (checksum ${row.checksum} in the database, ` +
          `${m.checksum} on disk). Restore the original file and add a new migration instead.`,
      );
    }
    return !row;
  });
}

async function applyOne(sql: SqlDriver, m: Migration): Promise<void> {
  const id = randomUUID();
  try {
    // Statements and bookkeeping commit together, so a failed migration leaves nothing half-applied
    // (stricter than Prisma, which records the failure; migrations therefore must not use statements
    // that refuse to run in a transaction, such as CREATE INDEX CONCURRENTLY).
    await sql.execInTransaction(
      `${m.script}\n;\n` +
        `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count) ` +
        `VALUES ('${id}', '${m.checksum}', '${m.name.replaceAll("'", "''")}', now(), now(), 1);`,
    );
  } catch (err) {
    throw new MigrationError(`Migration ${m.name} failed: ${(err as Error).message}`, { cause: err });
  }
}
