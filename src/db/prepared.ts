/**
 * Named prepared statements for the hot reads whose text is one of a fixed few (no value spliced
 * in): PostgreSQL parses and plans such a statement once per connection instead of on every
 * execution. Measured on the bench data (one connection, 5,000 executions each), one item's statement
 * cost 462 µs of PostgreSQL CPU unnamed and 102 µs prepared — its plan was most of its cost.
 *
 * Only statements whose best plan does not depend on their values are marked (an id, a token with
 * its ordered index, no parameter at all): after five executions PostgreSQL may keep one generic
 * plan for all values — if that plan's estimate is not above the custom plans' (a page's LIMIT given
 * as a parameter made it ~20 times higher, and every execution was planned again:
 * catalog/item.repository.ts pageWindow; pg_stat_statements' `plans` column tells). Behind PgBouncer
 * in transaction mode this needs PgBouncer 1.21 or later with
 * `max_prepared_statements` above 0 (docs/operations.md, Deployment).
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import { memoBy } from '../memo.ts';

/** How a statement is run (SqlReader.query). */
export interface QueryOptions {
  /** Its text is one of a fixed few: PostgreSQL keeps its plan for the connection (prepared.ts). */
  prepare?: boolean;
}

/** The statement's name: derived from its text, so one name never stands for two texts. */
const statementName = memoBy((text: string) => `shop_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`);

/**
 * The statement as `pg` runs it: a Query made from its text, named when it is to be prepared. Made
 * from the text, not from a config object — pg copies a config through its property descriptors
 * (`cloneQueryConfig`), which took 2.1 µs per statement against 0.15 µs (measured, pg 8.23), and
 * up to 5 µs under the service's mix of statement shapes. A Query is what `pool.query` takes as a
 * "submittable"; its promise resolves to the same result as for a config.
 */
function pgStatement(text: string, values: unknown[] | undefined, options?: QueryOptions): pg.Query {
  const query = new pg.Query(text, values);
  if (options?.prepare) (query as { name?: string }).name = statementName(text);
  return query;
}

/** Runs a statement on `pool`: its rows (a Query is "submittable": pg-pool resolves it to its result). */
export async function queryRows<T>(
  pool: pg.Pool,
  text: string,
  values: unknown[] | undefined,
  options?: QueryOptions,
): Promise<T[]> {
  const run = pool.query as unknown as (statement: pg.Query) => Promise<pg.QueryResult>;
  return (await run.call(pool, pgStatement(text, values, options))).rows as T[];
}
