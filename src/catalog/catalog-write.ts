/**
 * The one way the catalogue is written. Every item, category and synonym write — create, update,
 * delete — runs here, through the admin-write helper (one transaction with its audit entry, the
 * row's fields before and after, contract §10.2); the search documents of what it changed are
 * rewritten in that transaction (§9.1); and before it answers the catalogue's answer cache is
 * emptied on this instance (other instances hear the trigger's notification, §7.6). A new write
 * cannot forget any of it: it has no other way in.
 */
import { adminWrite, inTransaction, type Tx } from '../audit/admin-write.ts';
import { type AuditTargetType, type Changes, changesBetween } from '../audit/audit-log.ts';
import type { RequestContext } from '../request-context.ts';
import { indexCategoryTree, indexItems } from '../search/documents.ts';

export { inTransaction, type Tx };

/** The search documents a write changes: its item's, or every item's under a category it renamed or moved. */
export type SearchScope = { item: number } | { categoryTree: number };

type CatalogTarget = Extract<AuditTargetType, 'item' | 'category' | 'synonym_group'>;

/** What a write changes, for its audit entry: `item.create`, `category.delete`, `synonym_group.save` … */
export interface CatalogWriteSpec<T> {
  action: `${CatalogTarget}.${'create' | 'update' | 'delete' | 'save'}`;
  idOf: (result: T) => number;
  /** Whose search documents to rewrite (none: a delete cascades to them, a new category has no items). */
  search?: (result: T) => SearchScope;
}

/** Each target's fields as its audit entry shows them (null: no such row). */
const SNAPSHOTS: Record<CatalogTarget, (tx: Tx, id: number) => Promise<Record<string, unknown> | null>> = {
  item: async (tx, id) => {
    const item = await tx.item.findUnique({
      where: { id },
      select: {
        name: true,
        description: true,
        categoryId: true,
        price: true,
        stock: true,
        status: true,
        publishAt: true,
        unpublishAt: true,
        handle: true,
        skus: { select: { skuCode: true, specs: true, price: true, stock: true }, orderBy: { id: 'asc' } },
        images: { select: { url: true, sortOrder: true }, orderBy: { id: 'asc' } },
      },
    });
    // Money as the API shows it: a JSON number, exact to the cent.
    return (
      item && {
        ...item,
        price: item.price.toNumber(),
        skus: item.skus.map((sku) => ({ ...sku, price: sku.price.toNumber() })),
      }
    );
  },
  category: (tx, id) =>
    tx.category.findUnique({ where: { id }, select: { name: true, parentId: true, sortOrder: true } }),
  synonym_group: (tx, id) => tx.synonymGroup.findUnique({ where: { id }, select: { terms: true } }),
};

async function reindex(tx: Tx, scope: SearchScope): Promise<void> {
  if ('item' in scope) await indexItems(tx, [scope.item]);
  else await indexCategoryTree(tx, scope.categoryTree);
}

/**
 * Runs one catalogue write on row `id` (known beforehand for an update or a delete; a create's comes
 * from its result). `transaction` is how its statements are committed (see adminWrite).
 */
export async function catalogWrite<T>(
  ctx: RequestContext,
  spec: CatalogWriteSpec<T> & { id?: number },
  write: (tx: Tx) => Promise<T>,
  transaction?: (write: (tx: Tx) => Promise<T>) => Promise<T>,
): Promise<T> {
  const target = spec.action.split('.')[0] as CatalogTarget;
  const snapshot = SNAPSHOTS[target];
  const result = await adminWrite(
    ctx,
    async (tx, audit) => {
      // Item and category writes change postings, whose counts have one writer at a time: the lock
      // comes first, before the rows the postings' foreign key would make another writer wait for.
      if (target !== 'synonym_group') await tx.$executeRawUnsafe('SELECT search_index_lock()');
      const before = spec.id === undefined ? null : await snapshot(tx, spec.id);
      const written = await write(tx);
      const id = spec.idOf(written);
      if (spec.search) await reindex(tx, spec.search(written));
      const after = spec.action.endsWith('.delete') ? null : await snapshot(tx, id);
      audit({ action: spec.action, target: { type: target, id }, changes: changesBetween(before, after) });
      return written;
    },
    transaction,
  );
  // Before the answer: a read that follows it on this instance must not see the cache's old copy.
  ctx.services.catalogCache.invalidate();
  return result;
}

/** One item a many-item write changed, and how, for its own audit entry. */
export interface ItemChange {
  id: number;
  changes: Changes;
}

/** Thrown inside a many-item write that changed nothing, so its transaction ends with no entry to write. */
class NothingChanged extends Error {}

/**
 * Runs one write over many items (`setItemsStatus`): one audit entry `action` per item it reports
 * changed, in its transaction, and the cache emptied as catalogWrite does. A write that changes no
 * item records nothing (its transaction is rolled back, having changed nothing). The fields such
 * writes change are not in the search documents, so none is rewritten.
 */
export async function catalogWriteItems(
  ctx: RequestContext,
  action: `item.${string}`,
  write: (tx: Tx) => Promise<ItemChange[]>,
): Promise<ItemChange[]> {
  try {
    const changed = await adminWrite(ctx, async (tx, audit) => {
      // The same lock first as every item write, so they never wait for each other in two orders.
      await tx.$executeRawUnsafe('SELECT search_index_lock()');
      const items = await write(tx);
      if (items.length === 0) throw new NothingChanged();
      for (const { id, changes } of items) audit({ action, target: { type: 'item', id }, changes });
      return items;
    });
    ctx.services.catalogCache.invalidate();
    return changed;
  } catch (err) {
    if (err instanceof NothingChanged) return [];
    throw err;
  }
}
