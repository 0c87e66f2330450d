/**
 * The one way the catalogue is written. Every item and category write — create, update, delete —
 * runs its statements here, in one transaction, and before it answers the catalogue's answer cache is
 * emptied on this instance (other instances hear the trigger's notification, contract §7.6) and the
 * write is logged with who did it, and the search documents of what it changed are rewritten in its
 * transaction (contract §9.1). A new write cannot forget any of it: it has no other way in.
 */
import type { Prisma } from '../generated/prisma/client.ts';
import type { RequestContext } from '../request-context.ts';
import { indexCategoryTree, indexItems } from '../search/documents.ts';

export type Tx = Prisma.TransactionClient;

/** The search documents a write changes: its item's, or every item's under a category it renamed or moved. */
export type SearchScope = { item: number } | { categoryTree: number };

/** What was written, for the log line: `item.create`, `category.delete` … and the row's id. */
export interface CatalogWriteSpec<T> {
  action: `${'item' | 'category' | 'synonym_group'}.${'create' | 'update' | 'delete'}`;
  idOf: (result: T) => number;
  /** Whose search documents to rewrite (none: a delete cascades to them, a new category has no items). */
  search?: (result: T) => SearchScope;
}

async function reindex(tx: Tx, scope: SearchScope): Promise<void> {
  if ('item' in scope) await indexItems(tx, [scope.item]);
  else await indexCategoryTree(tx, scope.categoryTree);
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
  const search = spec.search;
  const result = await transaction(
    search
      ? async (tx) => {
          const written = await write(tx);
          await reindex(tx, search(written));
          return written;
        }
      : write,
  );
  // Before the answer: a read that follows it on this instance must not see the cache's old copy.
  ctx.services.catalogCache.invalidate();
  const [target, verb] = spec.action.split('.');
  ctx.log.info(
    { action: spec.action, [`${target}_id`]: spec.idOf(result), by_admin: await ctx.auth.actingAdminId() },
    `${target} ${verb}d`, // `item created`
  );
  return result;
}
