/**
 * The errors a database that stops answering produces — shapes recorded from pg 8, pg-pool 3 and
 * Prisma 7's pg adapter against a silenced connection — map to 503 SERVICE_UNAVAILABLE, never 500.
 */
import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable, toAppError } from '../../src/errors/to-app-error.ts';

/** An error with `fields` assigned, as the libraries build theirs. */
const error = (message: string, fields: Record<string, unknown> = {}) => Object.assign(new Error(message), fields);

/** What Prisma throws for a PostgreSQL error that reached it through the driver adapter. */
const prismaKnown = (code: string, sqlstate: string, message: string) =>
  error(`\nInvalid \`prisma.category.update()\` invocation:\n\n${message}`, {
    name: 'PrismaClientKnownRequestError',
    code,
    meta: {
      modelName: 'Category',
      driverAdapterError: error('DriverAdapterError', {
        name: 'DriverAdapterError',
        cause: {
          originalCode: sqlstate,
          originalMessage: message,
          kind: 'postgres',
          code: sqlstate,
          severity: 'ERROR',
          message,
        },
      }),
    },
  });

describe('database errors that mean "unavailable"', () => {
  const unavailable: [string, unknown][] = [
    // pg's query_timeout; Prisma's adapter passes it through unchanged.
    ['a statement that got no answer in time', error('Query read timeout')],
    [
      'no connection opened in time (pg-pool)',
      error('Connection terminated due to connection timeout', { cause: error('Connection terminated unexpectedly') }),
    ],
    ['no free pool connection in time', error('timeout exceeded when trying to connect')],
    ['a connection discarded under a running statement', error('Connection terminated')],
    ['a client whose connection broke', error('Client has encountered a connection error and is not queryable')],
    ['a pool closing during shutdown', error('Cannot use a pool after calling end on the pool')],
    [
      'statement_timeout, through Prisma (model query)',
      prismaKnown('P2039', '57014', 'canceling statement due to statement timeout'),
    ],
    [
      'statement_timeout, through Prisma (raw query)',
      prismaKnown('P2010', '57014', 'canceling statement due to statement timeout'),
    ],
    [
      'statement_timeout, from pg',
      error('canceling statement due to statement timeout', { code: '57014', severity: 'ERROR' }),
    ],
    ['a server shutting down', error('terminating connection due to administrator command', { code: '57P01' })],
    [
      'a transaction that could not start in time',
      error('Transaction API error: Unable to start a transaction in the given time.', { code: 'P2028' }),
    ],
    [
      'a refused connection, through the adapter',
      error('DriverAdapterError', { cause: { kind: 'DatabaseNotReachable' } }),
    ],
  ];
  it.each(unavailable)('when %s, then it answers 503 SERVICE_UNAVAILABLE', (_what, err) => {
    expect(isDatabaseUnavailable(err)).toBe(true);
    expect(toAppError(err).error.code).toBe('SERVICE_UNAVAILABLE');
  });

  const other: [string, unknown][] = [
    ['a unique violation', prismaKnown('P2002', '23505', 'duplicate key value violates unique constraint')],
    ['a syntax error', error('syntax error at or near "SELEC"', { code: '42601', severity: 'ERROR' })],
    ['an ordinary bug', new TypeError('Cannot read properties of undefined')],
  ];
  it.each(other)('when %s, then it is not taken for an outage', (_what, err) => {
    expect(isDatabaseUnavailable(err)).toBe(false);
  });
});
