/**
 * Turns anything thrown into an `AppError`: coded errors pass through, known database failures
 * get their contract code, and everything else becomes INTERNAL (and is logged by the caller).
 */
import { GraphQLError } from 'graphql';
import { AppError, internalError, serviceUnavailable } from './app-error.ts';

// Connection-level failures of pg / PGlite / Prisma's driver adapters: the database is away.
const UNAVAILABLE_ERRNO = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN']);
const UNAVAILABLE_PRISMA = new Set(['P1001', 'P1002', 'P1017', 'P2024']);
// PostgreSQL SQLSTATE classes 08 (connection) and 57P01..57P03 (shutdown, cannot connect now).
const UNAVAILABLE_SQLSTATE = /^(08|57P0[1-3])/;

/** True when `err` (or one of its causes) says the database cannot be reached. */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 6; depth++) {
    const o = e as { code?: unknown; cause?: unknown; message?: unknown; kind?: unknown };
    if (typeof o.code === 'string') {
      if (UNAVAILABLE_ERRNO.has(o.code) || UNAVAILABLE_PRISMA.has(o.code) || UNAVAILABLE_SQLSTATE.test(o.code)) {
        return true;
      }
    }
    if (o.kind === 'DatabaseNotReachable' || o.kind === 'ConnectionClosed' || o.kind === 'SocketTimeout') return true;
    if (typeof o.message === 'string' && /Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect/i.test(o.message)) {
      return true;
    }
    e = o.cause;
  }
  return false;
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
  if (isDatabaseUnavailable(e)) return { error: serviceUnavailable(), unexpected: true };
  return { error: internalError(), unexpected: true };
}
