/**
 * Opens the database the configuration names: embedded PGlite in the data directory by default,
 * a real PostgreSQL through `pg` when DATABASE_URL is set. Both get the same generated Prisma
 * client and the same migrations; `sql` runs raw, multi-statement scripts (migrations, seeds).
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from '../generated/prisma/client.ts';

export type Prisma = PrismaClient;

/** Raw SQL access beside Prisma, for what Prisma cannot express (migrations, bulk seeds, health). */
export interface SqlDriver {
  readonly kind: 'pglite' | 'postgres';
  /** Runs a script of one or more statements without parameters. */
  exec(script: string): Promise<void>;
  /** Runs a script atomically: all of its statements commit, or none do. */
  execInTransaction(script: string): Promise<void>;
  /** Runs one parameterised statement and returns its rows. */
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  /** Runs `fn` holding a database-wide lock, so concurrent starts migrate one at a time. */
  withLock<T>(fn: () => Promise<T>): Promise<T>;
}

export interface Database {
  readonly prisma: Prisma;
  readonly sql: SqlDriver;
  /** Statements sent so far, by Prisma and raw SQL alike (diagnostics; tests count a page's queries). */
  statementCount(): number;
  close(): Promise<void>;
}

/** Counts calls of `obj[method]` into `counter`, leaving the method's behaviour untouched. */
function countCalls<T extends object, K extends keyof T>(obj: T, method: K, counter: { n: number }): void {
  const original = obj[method] as unknown as (...args: unknown[]) => unknown;
  (obj as Record<K, unknown>)[method] = function (this: unknown, ...args: unknown[]) {
    counter.n++;
    return original.apply(this, args);
  };
}

export type DatabaseTarget =
  | { kind: 'pglite'; dataDir?: string } // dataDir undefined → in memory (tests)
  | { kind: 'postgres'; url: string; poolSize?: number };

// The key `prisma migrate deploy` takes, so our runner and Prisma's CLI exclude each other.
const MIGRATION_LOCK_KEY = 72707369;

export async function openDatabase(target: DatabaseTarget): Promise<Database> {
  return target.kind === 'pglite' ? openPglite(target.dataDir) : openPostgres(target.url, target.poolSize);
}

async function openPglite(dataDir: string | undefined): Promise<Database> {
  // Loaded only when used: the embedded engine adds ~45 MB to a process that talks to PostgreSQL.
  const [{ PGlite }, { pg_trgm }, { PrismaPGlite }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('@electric-sql/pglite/contrib/pg_trgm'),
    import('pglite-prisma-adapter'),
  ]);
  if (dataDir) await mkdir(dataDir, { recursive: true });
  const db = await PGlite.create(dataDir ? join(dataDir, 'pglite') : 'memory://', { extensions: { pg_trgm } });
  const statements = { n: 0 };
  countCalls(db, 'query', statements);
  const sql: SqlDriver = {
    kind: 'pglite',
    exec: async (script) => void (await db.exec(script)),
    execInTransaction: (script) => db.transaction(async (tx) => void (await tx.exec(script))),
    query: async <T>(text: string, params?: unknown[]) => (await db.query<T>(text, params)).rows,
    // PGlite is a single in-process connection: nothing else can migrate at the same time.
    withLock: (fn) => fn(),
  };
  const prisma = new PrismaClient({ adapter: new PrismaPGlite(db) });
  return {
    prisma,
    sql,
    statementCount: () => statements.n,
    close: async () => {
      await prisma.$disconnect();
      await db.close();
    },
  };
}

async function openPostgres(url: string, poolSize = 10): Promise<Database> {
  const pool = new pg.Pool({ connectionString: url, max: poolSize, connectionTimeoutMillis: 5000 });
  // An idle client losing its connection (database restart) must not crash the process.
  pool.on('error', () => {});
  const statements = { n: 0 };
  pool.on('connect', (client) => countCalls(client, 'query', statements));
  const sql: SqlDriver = {
    kind: 'postgres',
    exec: async (script) => void (await pool.query(script)),
    execInTransaction: async (script) => {
      // One client for BEGIN … COMMIT/ROLLBACK: a pooled query could land on another connection.
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query(script);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
    query: async <T>(text: string, params?: unknown[]) => (await pool.query(text, params)).rows as T[],
    withLock: async (fn) => {
      const client = await pool.connect();
      try {
        await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
        try {
          return await fn();
        } finally {
          await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
        }
      } finally {
        client.release();
      }
    },
  };
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  return {
    prisma,
    sql,
    statementCount: () => statements.n,
    close: async () => {
      await prisma.$disconnect();
      await pool.end();
    },
  };
}
