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
 * Throws `MigrationError` when an applied migration was edited, or one failed earlier.
 */
export async function applyMigrations(
  sql: SqlDriver,
  migrations: Migration[],
  onApplying?: (name: string) => void,
): Promise<string[]> {
  return sql.withLock(async () => {
    await sql.exec(CREATE_TABLE);
    const rows = await sql.query<AppliedRow>(
      'SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations" ORDER BY started_at',
    );
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
    const done: string[] = [];
    for (const m of migrations) {
      const row = applied.get(m.name);
      if (row) {
        if (row.checksum !== m.checksum) {
          throw new MigrationError(
            `Migration ${m.name} was changed after it was applied (checksum ${row.checksum} in the database, ` +
              `${m.checksum} on disk). Restore the original file and add a new migration instead.`,
          );
        }
        continue;
      }
      onApplying?.(m.name);
      await applyOne(sql, m);
      done.push(m.name);
    }
    return done;
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
    throw new MigrationError(`Migration ${m.name} failed: ${(err as Error).message}`);
  }
}
