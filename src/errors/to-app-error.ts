/**
 * Turns anything thrown into an `AppError`: coded errors pass through, known database failures
 * get their contract code, and everything else becomes INTERNAL (and is logged by the caller).
 */
import { GraphQLError } from 'graphql';
import { AppError, internalError, serviceUnavailable } from './app-error.ts';

// Connection-level failures of pg / PGlite / Prisma's driver adapters: the database is away.
// DATABASE_SILENT: the pool's breaker fails a request at once while the database does not answer
// (db/silence-breaker.ts).
const UNAVAILABLE_ERRNO = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'DATABASE_SILENT',
]);
// P1001/P1002 unreachable / timed out, P1008 operation timed out, P1017 connection closed, P2024 no
// pool connection in time, P2028 a transaction that could not start or finish in its time (under a
// database that stops answering, interactive transactions end this way).
const UNAVAILABLE_PRISMA = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2028']);
// PostgreSQL SQLSTATE: class 08 (connection), 53300 too many connections, 57014 a statement
// cancelled (statement_timeout, DATABASE_STATEMENT_TIMEOUT), 57P01..57P03 shutdown / cannot connect now.
const UNAVAILABLE_SQLSTATE = /^(08|53300$|57014$|57P0[1-3])/;
// pg and pg-pool say these in words only (no code): a statement or a connection that timed out
// (`query_timeout` → "Query read timeout", `connectionTimeoutMillis` → "timeout expired", "Connection
// terminated due to connection timeout", "timeout exceeded when trying to connect"), a connection
// that broke or was discarded, a pool that is closing (shutdown).
const UNAVAILABLE_MESSAGE =
  /Connection terminated|The database is not answering|connect ECONNREFUSED|timeout exceeded when trying to connect|Query read timeout|^timeout expired$|is not queryable|Cannot use a pool after calling end/i;

/** The errors `e` wraps: `cause`, and the driver error Prisma keeps in `meta.driverAdapterError`. */
function wrapped(e: { cause?: unknown; meta?: unknown }): unknown[] {
  const adapterError = (e.meta as { driverAdapterError?: unknown } | undefined)?.driverAdapterError;
  return [e.cause, adapterError].filter((x) => x !== undefined);
}

/** True when `err` (or one of the errors it wraps) says the database cannot be reached or answer in time. */
export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 6) return false;
  const o = err as { code?: unknown; cause?: unknown; meta?: unknown; message?: unknown; kind?: unknown };
  if (typeof o.code === 'string') {
    if (UNAVAILABLE_ERRNO.has(o.code) || UNAVAILABLE_PRISMA.has(o.code) || UNAVAILABLE_SQLSTATE.test(o.code))
      return true;
  }
  if (o.kind === 'DatabaseNotReachable' || o.kind === 'ConnectionClosed' || o.kind === 'SocketTimeout') return true;
  if (typeof o.message === 'string' && UNAVAILABLE_MESSAGE.test(o.message)) return true;
  return wrapped(o).some((inner) => isDatabaseUnavailable(inner, depth + 1));
}

/**
 * Finds the `AppError` inside a GraphQL error, maps database outages, and masks the rest. A chain
 * that ends in graphql-js' own error class (syntax, unknown field, a variable of the wrong type —
 * `Int cannot represent 1.5`) describes the client's request, so it is VALIDATION_FAILED.
 */
export function toAppError(err: unknown): { error: AppError; unexpected: boolean } {
  let e: unknown = err;
  while (e instanceof GraphQLError && !(e instanceof AppError) && e.originalError) e = e.originalError;
  if (e instanceof AppError) return { error: e, unexpected: false };
  if (e instanceof GraphQLError && e.constructor === GraphQLError) {
    return { error: new AppError('VALIDATION_FAILED', (err as GraphQLError).message), unexpected: false };
  }
  // Expected while the database is away: the access log's line per request says so (at warn), and
  // the pool says when it starts and stops failing fast; a stack per request would flood the log.
  if (isDatabaseUnavailable(e)) return { error: serviceUnavailable(), unexpected: false };
  return { error: internalError(), unexpected: true };
}
