/**
 * Opens the database the configuration names: embedded PGlite in the data directory by default,
 * a real PostgreSQL through `pg` when DATABASE_URL is set. Both get the same generated Prisma
 * client and the same migrations; `sql` runs raw, multi-statement scripts (migrations, seeds).
 */

import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { PrismaPg } from '@prisma/adapter-pg';
import type pg from 'pg';
import { PrismaClient, type Prisma as PrismaNamespace } from '../generated/prisma/client.ts';
import type { PoolUsage } from '../observability/metrics.ts';
import { type DataDirLock, lockDataDir } from './data-dir-lock.ts';
import { listenPostgres, type NotificationHandlers } from './pg-listen.ts';
import { keepInitdbTemplate, readInitdbTemplate } from './pglite-template.ts';
import { type QueryOptions, queryRows } from './prepared.ts';

export type { NotificationHandlers } from './pg-listen.ts';

import { openPgPools } from './pg-pool.ts';

export type Prisma = PrismaClient;

/**
 * Reads in raw SQL: the catalogue's one-statement reads, the probes. Bounded by the statement timeout.
 */
export interface SqlReader {
  readonly kind: 'pglite' | 'postgres';
  /** Runs one parameterised statement and returns its rows. */
  query<T = Record<string, unknown>>(text: string, params?: unknown[], options?: QueryOptions): Promise<T[]>;
}

/**
 * Raw SQL access beside Prisma, for what Prisma cannot express (migrations, bulk seeds, health).
 * On PostgreSQL, `query` has the statement timeout of request traffic; the script and lock methods
 * are for start-up and maintenance and have none (a migration may rightly take long).
 */
/** One parameterised statement of a plain SQL transaction; its rows. */
export type SqlQuery = <T = Record<string, unknown>>(text: string, params?: unknown[]) => Promise<T[]>;

export interface SqlDriver extends SqlReader {
  /**
   * `query` without the statement timeout, on the connections of start-up and background work (the
   * maintenance pool, not the requests'): start-up work that may rightly take long (writing the search
   * documents of a large catalogue: setup/prepare-database.ts), and background statements that a
   * backlog of requests must not hold (a webhook attempt's own: events/webhook-delivery.ts).
   */
  queryUnbounded<T = Record<string, unknown>>(text: string, params?: unknown[], options?: QueryOptions): Promise<T[]>;
  /** Runs a script of one or more statements without parameters; the rows of its last statement. */
  exec(script: string): Promise<Record<string, unknown>[]>;
  /** Runs a script atomically: all of its statements commit, or none do. */
  execInTransaction(script: string): Promise<void>;
  /**
   * Runs `fn` in a transaction of plain SQL (no Prisma between: bulk work whose statements carry large
   * parameters — an import's batches — pays for Prisma's handling of them many times over), without
   * the request statement limit; committed when `fn` resolves, rolled back when it throws.
   */
  transaction<T>(fn: (query: SqlQuery) => Promise<T>): Promise<T>;
  /** Runs `fn` holding a database-wide lock, so concurrent starts migrate one at a time. */
  withLock<T>(fn: () => Promise<T>): Promise<T>;
}

export interface Database {
  readonly prisma: Prisma;
  readonly sql: SqlDriver;
  /**
   * Where catalogue reads go: the replicas of DATABASE_REPLICA_URLS in turn, or the primary. Never for
   * a read that must see the request's own write (read those through `sql`).
   */
  readonly reads: SqlReader;
  /** Listens on a notification channel (PostgreSQL LISTEN); resolves with the function that stops. */
  listen(channel: string, handlers: NotificationHandlers): Promise<() => Promise<void>>;
  /**
   * The embedded database's statements for background work (the job queue's polling): not counted in
   * `statementCount` nor timed as requests' statements. Undefined on PostgreSQL, where the job queue
   * keeps a small pool of its own (jobs/job-queue.ts).
   */
  readonly backgroundSql?: BackgroundSql;
  /** PostgreSQL: the primary's connection URL (the job queue opens its own small pool on it). */
  readonly url?: string;
  /**
   * Statements of the requests' connections so far, by Prisma and raw SQL alike (diagnostics; tests
   * count a page's queries) — not the plain-SQL transactions of background work (`sql.transaction`).
   */
  statementCount(): number;
  /** Connections held and callers waiting, per pool (none on the embedded database: it has no pool). */
  poolUsage(): PoolUsage[];
  /** Calls `observer` with the duration of every statement from now on, and the pool it ran on (metrics). */
  observeStatements(observer: StatementObserver): void;
  /**
   * Calls `observer` when a pool starts failing fast because its database went silent (true), and
   * when a probe got an answer again (false) — PostgreSQL only (pg-pool.ts, silence-breaker.ts).
   */
  observeSilence(observer: (silent: boolean, pool: string) => void): void;
  /**
   * True when the request pool's latest statement succeeded within the last `ms` (and none failed since):
   * evidence that the database answers, without sending a probe to wait behind a busy pool.
   */
  answeredWithin(ms: number): boolean;
  /**
   * The embedded database's files as one archive (PGlite's `dumpDataDir`), to start another embedded
   * database from (`snapshot` of the target); undefined on PostgreSQL.
   */
  readonly snapshot?: () => Promise<Blob>;
  close(): Promise<void>;
}

export type StatementObserver = (seconds: number, pool: string) => void;

/** SQL as a job library runs it: one statement with parameters, or a script of several without. */
export interface BackgroundSql {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

/** Pools whose outcomes say whether the database serves requests (not the maintenance pool, not replicas). */
const REQUEST_POOLS = new Set(['primary', 'embedded']);

/** The observers of one database's statements (empty until metrics subscribe), and its latest outcome. */
class StatementObservers {
  readonly #observers: StatementObserver[] = [];
  #lastOk = Number.NEGATIVE_INFINITY;
  #lastFailed = Number.NEGATIVE_INFINITY;
  add(observer: StatementObserver): void {
    this.#observers.push(observer);
  }
  /**
   * `answered`: the database answered the statement, with rows or with an error about the statement
   * itself (a slow one cancelled by `statement_timeout`): either says it serves (pg-pool.ts).
   */
  emit(seconds: number, pool: string, answered: boolean): void {
    if (REQUEST_POOLS.has(pool)) {
      if (answered) this.#lastOk = performance.now();
      else this.#lastFailed = performance.now();
    }
    for (const observe of this.#observers) observe(seconds, pool);
  }
  /** A request that could not even reach the database (no connection): as telling as a failed statement. */
  unreachable(): void {
    this.#lastFailed = performance.now();
  }
  answeredWithin(ms: number): boolean {
    return this.#lastOk > this.#lastFailed && performance.now() - this.#lastOk < ms;
  }
}

/** Who hears of a pool going silent and answering again. */
class SilenceObservers {
  readonly #observers: ((silent: boolean, pool: string) => void)[] = [];
  add(observer: (silent: boolean, pool: string) => void): void {
    this.#observers.push(observer);
  }
  emit(silent: boolean, pool: string): void {
    for (const observe of this.#observers) observe(silent, pool);
  }
}

/** Counts calls of `obj[method]` into `counter`, leaving the method's behaviour untouched. */
function countCalls<T extends object, K extends keyof T>(obj: T, method: K, counter: { n: number }): void {
  const original = obj[method] as unknown as (...args: unknown[]) => unknown;
  (obj as Record<K, unknown>)[method] = function (this: unknown, ...args: unknown[]) {
    counter.n++;
    return original.apply(this, args);
  };
}

/** Reports the duration of each (promise-returning) call of `obj[method]` to `observe`. */
function timeCalls<T extends object, K extends keyof T>(
  obj: T,
  method: K,
  observe: (seconds: number, ok: boolean) => void,
): void {
  const original = obj[method] as unknown as (...args: unknown[]) => unknown;
  (obj as Record<K, unknown>)[method] = function (this: unknown, ...args: unknown[]) {
    const started = performance.now();
    const done = (ok: boolean) => observe((performance.now() - started) / 1000, ok);
    const result = original.apply(this, args);
    if (result instanceof Promise)
      result.then(
        () => done(true),
        () => done(false),
      );
    return result;
  };
}

/** A Database over a driver: Prisma on `adapter`, raw SQL beside it, closed Prisma first, then `closeDriver`. */
interface DriverParts {
  /** Prisma's driver adapter, made when Prisma is first used. */
  adapter: () => PrismaNamespace.PrismaClientOptionsWithAdapter['adapter'];
  /** DATABASE_STATEMENT_TIMEOUT: also how long a transaction may wait for its connection. */
  statementTimeoutMs: number;
  sql: SqlDriver;
  reads: SqlReader;
  listen: Database['listen'];
  statements: { n: number };
  observers: StatementObservers;
  silence: SilenceObservers;
  poolUsage: () => PoolUsage[];
  snapshot?: () => Promise<Blob>;
  backgroundSql?: BackgroundSql;
  url?: string;
  closeDriver: () => Promise<void>;
}

/**
 * A Database over a driver. Prisma's client is made on first use: a worker that only serves catalogue
 * reads (raw SQL) never pays for it. Closing ends Prisma first, then the driver.
 */
function assemble(parts: DriverParts): Database {
  let prisma: PrismaClient | undefined;
  return {
    get prisma() {
      return (prisma ??= new PrismaClient({
        adapter: parts.adapter(),
        // Prisma's own defaults (2 s to start a transaction, 5 s to finish it) fail a write under load
        // sooner than a statement would (contract §11): a transaction waits for its connection as long
        // as a statement may, then answers 503; its statements get that time twice over in all.
        transactionOptions: { maxWait: parts.statementTimeoutMs, timeout: 2 * parts.statementTimeoutMs },
      }));
    },
    sql: parts.sql,
    reads: parts.reads,
    listen: parts.listen,
    statementCount: () => parts.statements.n,
    poolUsage: parts.poolUsage,
    observeStatements: (observer) => parts.observers.add(observer),
    observeSilence: (observer) => parts.silence.add(observer),
    answeredWithin: (ms) => parts.observers.answeredWithin(ms),
    snapshot: parts.snapshot,
    backgroundSql: parts.backgroundSql,
    url: parts.url,
    close: async () => {
      await prisma?.$disconnect();
      await parts.closeDriver();
    },
  };
}

export type DatabaseTarget =
  // dataDir undefined → in memory (tests), starting from `snapshot` when given (another embedded
  // database's `snapshot()`: a migrated one, say); `role` names the process in the data directory's lock.
  | {
      kind: 'pglite';
      dataDir?: string;
      role?: string;
      statementTimeoutMs?: number;
      snapshot?: Blob;
      /** The data directory's lock is stale after this much heartbeat silence (data-dir-lock.ts). */
      lockStaleAfterMs?: number;
    }
  | { kind: 'postgres'; url: string; poolSize?: number; statementTimeoutMs?: number; replicaUrls?: readonly string[] };

// The key `prisma migrate deploy` takes, so our runner and Prisma's CLI exclude each other.
const MIGRATION_LOCK_KEY = 72707369;

export async function openDatabase(target: DatabaseTarget): Promise<Database> {
  return target.kind === 'pglite' ? openPglite(target) : openPostgres(target);
}

const DEFAULT_STATEMENT_TIMEOUT_MS = 5000;

/**
 * The embedded PostgreSQL's buffer pool. It lives in this process's WebAssembly memory, all of it
 * resident from the start and never given back: initdb's 128 MB held ~115 MB of a ~370 MB idle
 * process. 16 MB holds the demo catalogue's database (~9 MB) whole, and reads measured the same in
 * turns (docs/performance.md, "The embedded process's memory"); a large catalogue belongs on PostgreSQL.
 */
const PGLITE_SHARED_BUFFERS = '16MB';

async function openPglite({
  dataDir,
  role = 'server',
  statementTimeoutMs = DEFAULT_STATEMENT_TIMEOUT_MS,
  snapshot,
  lockStaleAfterMs,
}: Extract<DatabaseTarget, { kind: 'pglite' }>): Promise<Database> {
  if (dataDir) await mkdir(dataDir, { recursive: true });
  // Before anything is opened or written: a second process on the same files stops here (§7.7).
  const lock = dataDir ? await lockDataDir(dataDir, role, { staleAfterMs: lockStaleAfterMs }) : undefined;
  // Loaded only when used: the embedded engine adds ~45 MB to a process that talks to PostgreSQL.
  const [{ PGlite }, { pg_trgm }, { fuzzystrmatch }, { PrismaPGlite }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('@electric-sql/pglite/contrib/pg_trgm'),
    // Forgiving search's distance filter (levenshtein_less_equal: search/forgiving.ts).
    import('@electric-sql/pglite/contrib/fuzzystrmatch'),
    import('pglite-prisma-adapter'),
  ]);
  const files = dataDir ? join(dataDir, 'pglite') : undefined;
  // A new database loads an archive instead of running initdb (about 1 s instead of 4–5): the given
  // snapshot (tests, in memory), else the kept initdb of this PGlite installation (pglite-template.ts).
  const fresh = !files || !existsSync(join(files, 'PG_VERSION'));
  const archive = fresh ? (!files && snapshot) || (await readInitdbTemplate()) : undefined;
  const db = await PGlite.create(files ?? 'memory://', {
    extensions: { pg_trgm, fuzzystrmatch },
    ...(archive ? { loadDataDir: archive } : {}),
    startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${PGLITE_SHARED_BUFFERS}`],
  });
  if (fresh && !archive) await keepInitdbTemplate(() => db.dumpDataDir('none'));
  if (lock) guardStatements(db, lock);
  const statements = { n: 0 };
  // Taken before the counting and timing below wrap `query`: the job queue's statements are neither.
  const uncounted = { query: db.query.bind(db), exec: db.exec.bind(db) };
  const backgroundSql: BackgroundSql = {
    async executeSql(text, values) {
      // A script of several statements (the job library's maintenance) has no parameters.
      if (!values?.length && text.includes(';')) return { rows: (await uncounted.exec(text)).at(-1)?.rows ?? [] };
      return { rows: (await uncounted.query(text, values)).rows };
    },
  };
  countCalls(db, 'query', statements);
  const observers = new StatementObservers();
  timeCalls(db, 'query', (seconds, ok) => observers.emit(seconds, 'embedded', ok));
  const query = async <T>(text: string, params?: unknown[]) => (await db.query<T>(text, params)).rows;
  const sql: SqlDriver = {
    kind: 'pglite',
    exec: async (script) => (await db.exec(script)).at(-1)?.rows ?? [],
    execInTransaction: (script) => db.transaction(async (tx) => void (await tx.exec(script))),
    transaction: (fn) =>
      db.transaction((tx) => fn(async (text, params) => (await tx.query(text, params)).rows as never)),
    query,
    // A single in-process connection: no statement timeout to leave out. Not counted, as on PostgreSQL
    // (its maintenance pool): background statements (a webhook dispatch's look for new events every
    // second) are no request's.
    queryUnbounded: async <T>(text: string, params?: unknown[]) => (await uncounted.query<T>(text, params)).rows,
    // PGlite is a single in-process connection: nothing else can migrate at the same time.
    withLock: (fn) => fn(),
  };
  return assemble({
    adapter: () => new PrismaPGlite(db),
    statementTimeoutMs,
    sql,
    reads: sql,
    // In-process: a notification cannot be lost, so the channel is always healthy.
    listen: async (channel, handlers) => {
      const stop = await db.listen(channel, handlers.onNotify);
      handlers.onHealth(true);
      return stop;
    },
    statements,
    observers,
    silence: new SilenceObservers(),
    poolUsage: () => [],
    snapshot: () => db.dumpDataDir('none'),
    backgroundSql,
    closeDriver: async () => {
      // Closing writes a checkpoint: never onto files another process has taken over.
      lock?.assertOwned();
      await db.close();
      await lock?.release();
    },
  });
}

/**
 * Every statement — Prisma's, raw SQL, inside transactions — reaches PGlite's engine through
 * `execProtocolRawSync`; checking the lock there means a process that lost it (paused past the
 * staleness window, then resumed) stops before its next statement can write to files now another's.
 */
function guardStatements(db: { execProtocolRawSync(message: Uint8Array): Uint8Array }, lock: DataDirLock): void {
  const run = db.execProtocolRawSync.bind(db);
  db.execProtocolRawSync = (message) => {
    lock.assertOwned();
    return run(message);
  };
}

/**
 * PostgreSQL through `pg` pools that a silent database cannot hang (see pg-pool.ts): requests use
 * the bounded pool, start-up scripts the unbounded maintenance pool.
 */
async function openPostgres(target: Extract<DatabaseTarget, { kind: 'postgres' }>): Promise<Database> {
  const observers = new StatementObservers();
  const silence = new SilenceObservers();
  const statementTimeoutMs = target.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
  const statements = { n: 0 };
  const { pool, maintenance, close } = openPgPools({
    url: target.url,
    poolSize: target.poolSize ?? 10,
    statementTimeoutMs,
    onStatement: (seconds, which, answered) =>
      observers.emit(seconds, which === 'requests' ? 'primary' : which, answered),
    onQuery: () => {
      statements.n++;
    },
    onConnectFailed: () => observers.unreachable(),
    onSilence: (silent) => silence.emit(silent, 'primary'),
  });
  const sql: SqlDriver = {
    kind: 'postgres',
    exec: async (script) => {
      // One statement answers a result, several an array of them.
      const results = (await maintenance.query(script)) as unknown as pg.QueryResult | pg.QueryResult[];
      return (Array.isArray(results) ? results.at(-1)?.rows : results.rows) ?? [];
    },
    execInTransaction: async (script) => {
      // One client for BEGIN … COMMIT/ROLLBACK: a pooled query could land on another connection.
      const client = await maintenance.connect();
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
    query: <T>(text: string, params?: unknown[], options?: QueryOptions) => queryRows<T>(pool, text, params, options),
    queryUnbounded: <T>(text: string, params?: unknown[], options?: QueryOptions) =>
      queryRows<T>(maintenance, text, params, options),
    transaction: async (fn) => {
      // One client for BEGIN … COMMIT/ROLLBACK, from the pool without the request statement limit.
      const client = await maintenance.connect();
      try {
        await client.query('BEGIN');
        const result = await fn(async (text, params) => (await client.query(text, params)).rows);
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
    withLock: async (fn) => {
      const client = await maintenance.connect();
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
  const replicas = (target.replicaUrls ?? []).map((url, i) =>
    openPgPools({
      url,
      poolSize: target.poolSize ?? 10,
      statementTimeoutMs,
      onStatement: (seconds, _which, answered) => observers.emit(seconds, `replica-${i + 1}`, answered),
      onSilence: (silent) => silence.emit(silent, `replica-${i + 1}`),
    }),
  );
  const usage = (name: string, p: typeof pool): PoolUsage => ({
    pool: name,
    total: p.totalCount,
    idle: p.idleCount,
    waiting: p.waitingCount,
  });
  let next = 0;
  const reads: SqlReader = replicas.length
    ? {
        kind: 'postgres',
        query: <T>(text: string, params?: unknown[], options?: QueryOptions) =>
          queryRows<T>(replicas[next++ % replicas.length]!.pool, text, params, options),
      }
    : sql;
  return assemble({
    url: target.url,
    adapter: () => new PrismaPg(pool),
    statementTimeoutMs,
    sql,
    reads,
    listen: (channel, handlers) => listenPostgres(target.url, channel, handlers),
    statements,
    observers,
    silence,
    poolUsage: () => [
      usage('primary', pool),
      usage('maintenance', maintenance),
      ...replicas.map((r, i) => usage(`replica-${i + 1}`, r.pool)),
    ],
    // Bounded (pg-pool.ts): SIGTERM must be able to exit while the database is silent.
    closeDriver: async () => {
      await Promise.all([close(), ...replicas.map((r) => r.close())]);
    },
  });
}
