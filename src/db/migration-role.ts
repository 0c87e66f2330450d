/**
 * Two roles on PostgreSQL (issue 34): the migration role of MIGRATION_DATABASE_URL owns the tables and
 * changes the schema; the serving role of DATABASE_URL only reads and writes rows. An owner may disable
 * or drop any trigger of its table, and TRUNCATE it, so the audit log's append-only trigger (contract
 * §10.2) binds the service only when the service does not own the table.
 *
 * The migration role grants the serving role its privileges itself, after every migration run, from
 * nothing: `ALL TABLES IN SCHEMA` covers tables a later migration adds without anyone remembering to,
 * the exceptions (append-only tables) are said here once, and a privilege someone granted by hand is
 * taken back at the next start. Then the result is checked, so a serving role that still owns a table
 * (one created in the simple mode) or is a superuser stops start-up instead of serving unprotected.
 */
import { openDatabase, type SqlDriver } from './database.ts';
import { applyMigrations, type Migration, MigrationError } from './migrate.ts';

/** Tables the serving role may append to and read, never change: no UPDATE, DELETE or TRUNCATE. */
export const APPEND_ONLY_TABLES: readonly string[] = ['audit_log'];

const SCHEMA = 'public';
/** Every schema the migrations create: the service's own, and the job queue's (migration 20261204000000_jobs). */
const SCHEMAS = [SCHEMA, 'pgboss'];

const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * The statements that give `role` what the service needs and nothing more, to run in one transaction
 * (no other session sees a moment without them). Sequences: USAGE for the ids of INSERTs, SELECT for
 * currval; never UPDATE (setval). `_prisma_migrations`: read, to see that nothing is pending.
 */
export function servingRoleGrants(role: string): string {
  const r = ident(role);
  return [
    ...SCHEMAS.flatMap((schema) => [
      // From nothing: grants this role made earlier, or by hand through it, do not outlive this list.
      `REVOKE ALL ON ALL TABLES IN SCHEMA ${schema} FROM ${r}`,
      `REVOKE ALL ON ALL SEQUENCES IN SCHEMA ${schema} FROM ${r}`,
      `GRANT USAGE ON SCHEMA ${schema} TO ${r}`,
      `GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ${schema} TO ${r}`,
      `GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA ${schema} TO ${r}`,
    ]),
    ...APPEND_ONLY_TABLES.map((table) => `REVOKE UPDATE, DELETE ON ${SCHEMA}.${ident(table)} FROM ${r}`),
    `REVOKE INSERT, UPDATE, DELETE ON ${SCHEMA}."_prisma_migrations" FROM ${r}`,
  ]
    .map((statement) => `${statement};`)
    .join('\n');
}

interface TableHold {
  table: string;
  /** The role owns the table, is a member of its owner, or is a superuser: it may drop its triggers. */
  owns: boolean;
  /** The role may UPDATE, DELETE or TRUNCATE its rows. */
  rewrites: boolean;
}

/**
 * Throws `MigrationError` when `role` owns a table, or (`rewrites`) can rewrite an append-only one:
 * what a REVOKE cannot take away (ownership, superuser, grants another role made) is found here.
 */
export async function checkServingRole(sql: SqlDriver, role: string, { rewrites = true } = {}): Promise<void> {
  const holds = await sql.queryUnbounded<TableHold>(
    `SELECT c.relname AS "table",
            pg_has_role($1, c.relowner, 'MEMBER') AS owns,
            has_table_privilege($1, c.oid, 'UPDATE') OR has_table_privilege($1, c.oid, 'DELETE')
              OR has_table_privilege($1, c.oid, 'TRUNCATE') AS rewrites
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $2 AND c.relkind IN ('r', 'p')`,
    [role, SCHEMA],
  );
  const owned = holds.filter((h) => h.owns).map((h) => h.table);
  if (owned.length) {
    throw new MigrationError(
      `DATABASE_URL's role "${role}" owns (or is a superuser or a member of the owner of) ${owned.sort().join(', ')}: ` +
        `it could drop the audit log's trigger. Give the tables to the migration role ` +
        `(as a superuser: REASSIGN OWNED BY "${role}" TO <migration role>) and make DATABASE_URL's role a plain LOGIN role.`,
    );
  }
  if (!rewrites) return;
  const rewritable = holds.filter((h) => h.rewrites && APPEND_ONLY_TABLES.includes(h.table)).map((h) => h.table);
  if (rewritable.length) {
    throw new MigrationError(
      `DATABASE_URL's role "${role}" may UPDATE, DELETE or TRUNCATE ${rewritable.join(', ')} through a grant ` +
        `the migration role cannot revoke (another role made it, or PUBLIC holds it): revoke it.`,
    );
  }
}

/**
 * Applies pending migrations as MIGRATION_DATABASE_URL's role, then (in the same lock) grants
 * `servingRole` its privileges and checks them. Returns the names applied.
 */
export async function migrateAsOwner(
  migrationUrl: string,
  servingRole: string,
  migrations: Migration[],
  onApplying?: (name: string) => void,
): Promise<string[]> {
  // One connection (and the maintenance pool's one) for a few statements at start; closed at once.
  const owner = await openDatabase({ kind: 'postgres', url: migrationUrl, poolSize: 1 });
  try {
    const [me] = await owner.sql.queryUnbounded<{ role: string }>('SELECT current_user AS role');
    if (me?.role === servingRole) {
      throw new MigrationError(
        `MIGRATION_DATABASE_URL and DATABASE_URL both log in as "${servingRole}": give DATABASE_URL a role ` +
          `of its own that owns nothing (or unset MIGRATION_DATABASE_URL for the simple mode)`,
      );
    }
    // Before migrating: a migration's ALTER TABLE on a table the serving role owns would fail less clearly.
    await checkServingRole(owner.sql, servingRole, { rewrites: false });
    return await applyMigrations(owner.sql, migrations, onApplying, async () => {
      await owner.sql.execInTransaction(servingRoleGrants(servingRole)).catch((err: Error) => {
        // A table of a third role, say: the migration role may grant only on what it owns.
        throw new MigrationError(
          `Granting DATABASE_URL's role "${servingRole}" its privileges failed: ${err.message}`,
          {
            cause: err,
          },
        );
      });
      await checkServingRole(owner.sql, servingRole);
    });
  } finally {
    await owner.close();
  }
}
