/**
 * Named prepared statements for the hot reads whose text is one of a fixed few (no value spliced
 * in): PostgreSQL parses and plans such a statement once per connection instead of on every
 * execution. Measured on the bench data (one connection, 5,000 executions each), one item's statement
 * cost 462 µs of PostgreSQL CPU unnamed and 102 µs prepared — its plan was most of its cost.
 *
 * Only statements whose best plan does not depend on their values are marked (an id, a token with
 * its ordered index, no parameter at all): after five executions PostgreSQL may keep one generic
 * plan for all values. Behind PgBouncer in transaction mode this needs PgBouncer 1.21 or later with
 * `max_prepared_statements` above 0 (README "Production").
 */
import { createHash } from 'node:crypto';

/** How a statement is run (SqlReader.query). */
export interface QueryOptions {
  /** Its text is one of a fixed few: PostgreSQL keeps its plan for the connection (prepared.ts). */
  prepare?: boolean;
}

const names = new Map<string, string>();

/** The statement's name: derived from its text, so one name never stands for two texts. */
function statementName(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    name = `shop_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
    names.set(text, name);
  }
  return name;
}

/** The `pg` query config of a statement: named when it is to be prepared. */
export const pgStatement = (text: string, values: unknown[] | undefined, options?: QueryOptions) =>
  options?.prepare ? { name: statementName(text), text, values } : { text, values };
