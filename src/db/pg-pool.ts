/**
 * Connection pools for a real PostgreSQL that a database or network that stops answering cannot
 * hang (contract §7.3): every statement has a time limit, a connection whose statement timed out is
 * closed instead of being lent again, and closing takes a few seconds at most whatever the server does.
 *
 * Measured before this module existed: with the database's connections silenced for 3 s, every
 * pooled connection stayed stuck behind a statement that would never be answered, so requests kept
 * answering 503 after 5 s for minutes, and SIGTERM never exited (`pool.end()` waits for every
 * checked-out connection to come back).
 */
import pg from 'pg';
import { createSilenceBreaker, DatabaseSilentError, type SilenceBreaker } from './silence-breaker.ts';

export interface PgPoolOptions {
  url: string;
  poolSize: number;
  statementTimeoutMs: number;
  /**
   * Called with each statement's duration in seconds (request pool and maintenance pool alike), and
   * whether the server answered it — with rows, or with an error of its own such as a cancelled slow
   * statement (serverAnswered).
   */
  onStatement?: (seconds: number, pool: 'requests' | 'maintenance', answered: boolean) => void;
  /** Called as each statement is sent, on either pool. */
  onQuery?: () => void;
  /** Called when the request pool cannot hand out a connection (refused, unreachable, or none free in time). */
  onConnectFailed?: () => void;
  /** Called when the request pool starts failing fast (the database went silent) and when it stops. */
  onSilence?: (silent: boolean) => void;
}

export interface PgPools {
  /** Request traffic (Prisma and raw SQL): every statement bounded by the statement timeout. */
  readonly pool: pg.Pool;
  /**
   * Start-up scripts (migrations, the advisory lock that serialises them): no statement limit, since
   * a migration may rightly run long and the lock waits for another instance's migrations.
   */
  readonly maintenance: pg.Pool;
  /** True while the request pool fails at once because its database went silent (silence-breaker.ts). */
  readonly silent: boolean;
  /** Ends both pools, destroying within ~3 s the connections that do not close politely. */
  close(): Promise<void>;
}

// pg's own message when `query_timeout` expires (it has no error code).
const READ_TIMEOUT_MESSAGE = 'Query read timeout';
// A statement of the server's own making that says it cannot serve (class 08 connection, 53300 too
// many connections, 57P01..57P03 shutting down / cannot connect now), as opposed to one about the statement.
const SERVER_UNAVAILABLE_SQLSTATE = /^(08|53300$|57P0[1-3])/;
// pg's message when a new connection could not be opened within `connectionTimeoutMillis`.
const CONNECT_TIMEOUT_MESSAGE = 'Connection terminated due to connection timeout';
// A connection that cannot be opened (or a pool slot that does not free up) within a statement's
// time fails the same way, but never under 1 s: a TLS handshake to a remote server needs a moment.
const MIN_CONNECT_TIMEOUT_MS = 1_000;
// After a discarded connection left a transaction open on the server (its client gave up during a
// network partition), the server ends it after this long, releasing its locks, instead of when TCP
// keep-alive notices — hours later with the usual kernel settings.
const IDLE_IN_TRANSACTION_TIMEOUT_MS = 60_000;
// close(): time for checked-out connections to come back, then for destroyed ones to be removed,
// then for the server to acknowledge the goodbye of idle ones.
const CLOSE_GRACE_MS = 2_000;

/**
 * How long after `statement_timeout` the client waits for the server's own answer before it calls a
 * statement unanswered. A slow statement on a healthy server is cancelled by the server at the
 * timeout, which answers 57014: that is a slow statement, not a silent database, and must not open
 * the breaker (issue 34: concurrent facet searches on two cores opened it, and /readyz and every
 * unrelated read answered 503; test/faults/pg-pool.test.ts reproduces the race with a blocked event
 * loop). A quarter of the timeout, 100 ms to 1 s: 1 s at the default 5 s.
 */
export const serverAnswerGrace = (statementTimeoutMs: number) =>
  Math.min(1_000, Math.max(100, Math.round(statementTimeoutMs / 4)));
const CLOSE_FORCE_MS = 500;
const GOODBYE_MS = 500;

/** A statement sent on a client and not yet answered (statements of one client are answered in order). */
class Pending {
  /** Set by the watch (watchStatements) when the statement outlived the statement timeout. */
  overdue = false;
  readonly started = performance.now();
}

/** The statements in flight on each client of a watched pool, oldest first. */
const IN_FLIGHT = Symbol('statements in flight');
type Watched = pg.PoolClient & { [IN_FLIGHT]?: Pending[] };

/**
 * True when the server answered a statement: with its result, or with an error of its own about the
 * statement (a cancelled slow statement — SQLSTATE 57014, `statement_timeout` — a constraint, a
 * syntax error). Such an answer proves the database serves, however slow that statement was; only
 * no answer (a timeout on our side, a broken connection) or an error saying it cannot serve does not.
 */
function serverAnswered(err: unknown): boolean {
  if (!err) return true;
  if (!(err instanceof pg.DatabaseError)) return false;
  return !SERVER_UNAVAILABLE_SQLSTATE.test(err.code ?? '');
}

/** What a statement that got no answer in time fails with (pg's own `query_timeout` message). */
const readTimeout = () => new Error(READ_TIMEOUT_MESSAGE);

/**
 * One wrapper around each client's `query` (it runs for every statement, so one closure and a fixed
 * arity, not a chain of rest-argument wrappers): counts the statement, times it from sending to its
 * reply, and — on a watched pool — lists it as in flight until it is answered, so that the pool's
 * watch (watchStatements) can fail it and discard its connection once it outlives the timeout.
 */
function instrumentClient(client: Watched, hooks: ClientHooks, watched: boolean): void {
  type Query = (this: pg.PoolClient, config: unknown, values?: unknown, callback?: unknown) => unknown;
  const query = client.query as unknown as Query;
  const { onStatement, onQuery } = hooks;
  const inFlight: Pending[] | undefined = watched ? (client[IN_FLIGHT] = []) : undefined;
  /** The statement was answered (or failed): its error as the caller is to see it. */
  const settled = (pending: Pending, err: unknown) => {
    onStatement?.((performance.now() - pending.started) / 1000, serverAnswered(err));
    if (!inFlight) return err;
    // Answered in order: the oldest, save for a statement pg refused at once.
    if (inFlight[0] === pending) inFlight.shift();
    else {
      const at = inFlight.indexOf(pending);
      if (at > 0) inFlight.splice(at, 1);
    }
    // The watch ended the connection under it: the caller learns why, not just that it closed.
    return pending.overdue ? readTimeout() : err;
  };
  (client as unknown as { query: Query }).query = function (config, values, callback) {
    onQuery?.();
    const pending = new Pending();
    inFlight?.push(pending);
    let result: unknown;
    try {
      // Callback style (pg-pool's own `pool.query`, the catalogue's one-statement reads): settled
      // before the caller releases. pg's callback is the last argument given.
      if (typeof callback === 'function' || typeof values === 'function') {
        const cb = (typeof callback === 'function' ? callback : values) as (err: unknown, res: unknown) => unknown;
        const done = (err: unknown, res: unknown) => cb(settled(pending, err), res);
        return typeof callback === 'function' ? query.call(this, config, values, done) : query.call(this, config, done);
      }
      result = query.call(this, config, values);
    } catch (err) {
      // Refused at once (a TypeError): never in flight.
      settled(pending, err);
      throw err;
    }
    // Promise style (Prisma's adapter).
    return (result as Promise<unknown>).then(
      (res) => {
        settled(pending, undefined);
        return res;
      },
      (err: unknown) => {
        throw settled(pending, err);
      },
    );
  };
}

/**
 * The statement timeout on the client side — the only limit that holds when the network, not the
 * server, goes silent — as one watch per pool instead of pg's `query_timeout`, which arms a timer
 * per statement. Those timers cost more than their own upkeep: measured on the `suggestions` bench
 * (two statements per request), every statement's result rows then survived into the old
 * generation — 7 KB promoted per request against 0.5 KB without — and the scavenges that copied them
 * took ~25 µs of CPU per request, a tenth of the worker's.
 *
 * Every `everyMs` the watch looks at each client's oldest statement; one older than the timeout
 * fails with pg's own "Query read timeout" (so it reads as before: 503, the silence breaker trips),
 * and its connection is destroyed: the statement is still in flight, and the connection would answer
 * it later or never (a silent network) while every statement queued behind it waited. `end()`
 * destroys the socket of a client with a statement in flight and marks it ending, which pg-pool's
 * release checks — so it is removed from the pool whether released by `pool.query`, by our own
 * `connect()` callers, or by Prisma's adapter, whose transactions release their client without
 * passing the error on.
 */
function watchStatements(clients: Set<Watched>, timeoutMs: number, onTimeout: () => void): () => void {
  // A tenth of the timeout (5 s: every 100 ms at most), so a statement fails at most ~10 % late.
  const everyMs = Math.min(100, Math.max(10, timeoutMs / 10));
  const overdue = (client: Watched, now: number) => {
    const oldest = client[IN_FLIGHT]?.[0];
    return oldest && !oldest.overdue && now - oldest.started >= timeoutMs ? oldest : undefined;
  };
  const timer = setInterval(() => {
    const now = performance.now();
    const suspects = [...clients].filter((client) => overdue(client, now));
    if (!suspects.length) return;
    // Judged after the event loop has read the sockets once more: timers run before I/O, so after a
    // busy stretch (a large result parsed, a CPU-starved process) the answers that arrived meanwhile
    // are still unread here, and their statements would be taken for unanswered.
    setImmediate(() => {
      for (const client of suspects) {
        const oldest = overdue(client, now);
        if (!oldest) continue;
        oldest.overdue = true;
        client.end().catch(() => {});
        onTimeout();
      }
    });
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

interface ClientHooks {
  /** Each statement's duration in seconds, and whether it succeeded. */
  onStatement?: (seconds: number, ok: boolean) => void;
  /** Each statement sent (counted, for tests of how many a request runs). */
  onQuery?: () => void;
}

interface TrackedPool {
  pool: pg.Pool;
  /** Every client the pool holds, idle or checked out. */
  clients: Set<Watched>;
  /** Stops the pool's statement watch (none: a no-op). */
  unwatch(): void;
}

/** Resolves true when `promise` settles within `ms`, false otherwise. */
const within = (promise: Promise<unknown>, ms: number) =>
  new Promise<boolean>((resolve) => {
    const timer = setTimeout(resolve, ms, false);
    void promise.then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });

/**
 * Ends a pool, within CLOSE_GRACE_MS + CLOSE_FORCE_MS + GOODBYE_MS at most. `pool.end()` waits for
 * checked-out clients: one stuck on a silent server with no statement timeout (the maintenance
 * pool's) would never come back, so after the grace every socket is destroyed, failing what runs on
 * it. Idle clients are told goodbye and then wait for the server to close its end, which a silent
 * server never does: they get GOODBYE_MS, then their sockets are destroyed too.
 */
async function endPool({ pool, clients, unwatch }: TrackedPool): Promise<void> {
  unwatch();
  const destroyAll = () => {
    for (const client of clients) client.connection.stream.destroy();
  };
  const allClosed = new Promise<void>((resolve) => {
    const check = () => clients.size === 0 && resolve();
    pool.on('remove', check);
    check();
  });
  const ended = pool.end().catch(() => {});
  if (!(await within(ended, CLOSE_GRACE_MS))) {
    destroyAll();
    await within(ended, CLOSE_FORCE_MS);
  }
  if (!(await within(allClosed, GOODBYE_MS))) destroyAll();
}

/**
 * `pool.connect`, in both of its styles (pool.query uses the callback one, Prisma's adapter the
 * promise one), behind the breaker: while it is open a request fails at once; a new connection that
 * could not be opened in time trips it. Every failure is also told to `onFailed`.
 */
function guardConnect(pool: pg.Pool, breaker: SilenceBreaker, onFailed?: () => void): void {
  const connect = pool.connect.bind(pool) as (...args: unknown[]) => unknown;
  const failed = (err: unknown) => {
    onFailed?.();
    if (err instanceof Error && err.message === CONNECT_TIMEOUT_MESSAGE) breaker.trip();
  };
  (pool as unknown as { connect: (...args: unknown[]) => unknown }).connect = (...args: unknown[]) => {
    const callback = args[0];
    if (breaker.open) {
      const err = new DatabaseSilentError();
      onFailed?.();
      if (typeof callback !== 'function') return Promise.reject(err);
      process.nextTick(callback, err);
      return undefined;
    }
    if (typeof callback === 'function') {
      return connect((err: unknown, ...rest: unknown[]) => {
        if (err) failed(err);
        return callback(err, ...rest);
      });
    }
    const result = connect() as Promise<unknown>;
    result.catch(failed);
    return result;
  };
}

/**
 * A pool whose clients are tracked (for a bounded close) and instrumented (instrumentClient); with
 * `timeout`, its statements are watched (watchStatements).
 */
function createPool(
  config: pg.PoolConfig,
  hooks: ClientHooks,
  timeout?: { ms: number; onTimeout: () => void },
): TrackedPool {
  const pool = new pg.Pool(config);
  const clients = new Set<Watched>();
  // An idle client losing its connection (database restart) must not crash the process.
  pool.on('error', () => {});
  pool.on('connect', (client) => {
    clients.add(client);
    // A checked-out client whose socket breaks emits 'error' too; its statement fails with the same
    // error, which is what callers see. Without a listener the event would crash the process.
    client.on('error', () => {});
    instrumentClient(client, hooks, timeout !== undefined);
  });
  pool.on('remove', (client) => clients.delete(client));
  const unwatch = timeout ? watchStatements(clients, timeout.ms, timeout.onTimeout) : () => {};
  return { pool, clients, unwatch };
}

/**
 * Opens the pools for `url` (nothing connects until first use).
 *
 * Behind PgBouncer in transaction mode: `statement_timeout` and `idle_in_transaction_session_timeout`
 * (and `options`, which turns JIT off) are sent as startup parameters, which PgBouncer refuses ("unsupported startup parameter") unless
 * they are listed in its `ignore_startup_parameters`. PgBouncer then drops them, so set the same
 * limits on the server side instead (`ALTER ROLE shop SET statement_timeout = '5s'`, `… SET jit = off`); the
 * client-side statement watch applies either way.
 */
export function openPgPools({
  url,
  poolSize,
  statementTimeoutMs,
  onStatement,
  onQuery,
  onConnectFailed,
  onSilence,
}: PgPoolOptions): PgPools {
  const breaker = createSilenceBreaker(url, onSilence);
  const common: pg.PoolConfig = {
    connectionString: url,
    // A connection the network dropped silently is found out by the kernel instead of never.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    // Bounds both opening a connection and waiting for a free one.
    connectionTimeoutMillis: Math.max(statementTimeoutMs, MIN_CONNECT_TIMEOUT_MS),
    // No JIT compilation: PostgreSQL decides it from the planner's cost estimate, and the estimates of
    // the search statements (nested CTEs, correlated subqueries) reach millions while they run in
    // milliseconds. At 100,000 items LLVM's inlining and optimisation took 1.34 s of a 2.0 s facets
    // statement, on every execution; short reads never gain from it.
    options: '-c jit=off',
  };
  const requests = createPool(
    {
      ...common,
      max: poolSize,
      // Server side: the server stops working on a statement its client gave up on, and a slow
      // statement on a healthy connection is cancelled (SQLSTATE 57014) even without a client timer.
      statement_timeout: statementTimeoutMs,
      idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_TIMEOUT_MS,
    },
    { onStatement: onStatement && ((seconds, ok) => onStatement(seconds, 'requests', ok)), onQuery },
    // Client side: the only limit that holds when the network, not the server, is silent. A
    // statement that got no answer — not even the server's own cancellation at `statement_timeout`
    // — within a grace after it: the database went silent.
    { ms: statementTimeoutMs + serverAnswerGrace(statementTimeoutMs), onTimeout: () => breaker.trip() },
  );
  // Start-up scripts (the maintenance pool) wait as long as they must: no breaker there. Its
  // statements — start-up work and the plain-SQL transactions of background work (import batches,
  // webhook dispatch and attempts, schedule flips) — are timed but not counted: the count is the
  // requests' (tests count what a page costs), as on the embedded database, whose transactions'
  // statements are not counted either.
  guardConnect(requests.pool, breaker, onConnectFailed);
  const maintenance = createPool(
    { ...common, max: 2 },
    { onStatement: onStatement && ((seconds, ok) => onStatement(seconds, 'maintenance', ok)) },
  );
  return {
    pool: requests.pool,
    maintenance: maintenance.pool,
    get silent() {
      return breaker.open;
    },
    close: async () => {
      breaker.stop();
      await Promise.all([endPool(requests), endPool(maintenance)]);
    },
  };
}
