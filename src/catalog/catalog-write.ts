/**
 * The one way the catalogue is written. Every item and category write — create, update, delete —
 * runs its statements here, in one transaction, and before it answers the catalogue's answer cache is
 * emptied on this instance (other instances hear the trigger's notification, contract §7.6) and the
 * write is logged with who did it. A new write cannot forget either: it has no other way in. What
 * else a write must do in its transaction — keeping search documents current, appending the audit
 * entry of the trust issue — belongs here too, once.
 */
import type { Prisma } from '../generated/prisma/client.ts';
import type { RequestContext } from '../request-context.ts';

export type Tx = Prisma.TransactionClient;

/** What was written, for the log line: `item.create`, `category.delete` … and the row's id. */
export interface CatalogWriteSpec<T> {
  action: `${'item' | 'category'}.${'create' | 'update' | 'delete'}`;
  idOf: (result: T) => number;
}

/** Runs `write` in a transaction of its own. */
export const inTransaction =
  <T>(ctx: RequestContext) =>
  (write: (tx: Tx) => Promise<T>) =>
    ctx.db.prisma.$transaction(write);

/**
 * Runs one catalogue write. `transaction` is how its statements are committed: a transaction of its
 * own by default, or one that also records an Idempotency-Key (idempotency.ts), which may answer a
 * replay without running `write` at all.
 */
export async function catalogWrite<T>(
  ctx: RequestContext,
  spec: CatalogWriteSpec<T>,
  write: (tx: Tx) => Promise<T>,
  transaction: (write: (tx: Tx) => Promise<T>) => Promise<T> = inTransaction<T>(ctx),
): Promise<T> {
  const result = await transaction(write);
  // Before the answer: a read that follows it on this instance must not see the cache's old copy.
  ctx.services.catalogCache.invalidate();
  const [target, verb] = spec.action.split('.');
  ctx.log.info(
    { action: spec.action, [`${target}_id`]: spec.idOf(result), by_admin: await ctx.auth.actingAdminId() },
    `${target} ${verb}d`, // `item created`
  );
  return result;
}
