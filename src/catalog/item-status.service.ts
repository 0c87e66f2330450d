/**
 * Statuses in bulk (contract §12.1): `setItemsStatus` sets one status on up to 1,000 items in one
 * transaction, one `item.status` audit entry per item it changed (§12.2). `lockItems` is how every
 * write of listed items (this one, `deleteItems`) finds and locks them.
 */
import { validationFailed } from '../errors/app-error.ts';
import type { RequestContext } from '../request-context.ts';
import { catalogWriteItems, lockCatalogue, type Tx } from './catalog-write.ts';
import type { ItemStatus } from './item.schema.ts';

/** How many unknown ids an error names; the rest are counted. */
const NAMED_IDS = 20;

function unknownIds(ids: number[]) {
  const named = ids.slice(0, NAMED_IDS).join(', ');
  const more = ids.length > NAMED_IDS ? ` and ${ids.length - NAMED_IDS} more` : '';
  return validationFailed([{ field: 'ids', message: `has no item with id ${named}${more}` }]);
}

/**
 * Locks the items of `ids` (each once) in id order — as a stock adjustment locks them, so two such
 * writes never wait for each other in two orders — and answers them; an unknown id →
 * VALIDATION_FAILED on `ids` naming every unknown one. FOR NO KEY UPDATE: taken before the catalogue
 * lock, it must not block the KEY SHARE that the lock's holder may take of these items (lockCatalogue).
 */
export async function lockItems(
  tx: Tx,
  ids: number[],
): Promise<Array<{ id: number; status: ItemStatus; visible: boolean }>> {
  const items = await tx.$queryRawUnsafe<Array<{ id: number; status: ItemStatus; visible: boolean }>>(
    'SELECT id, status, visible FROM items WHERE id = ANY($1::int[]) ORDER BY id FOR NO KEY UPDATE',
    ids,
  );
  if (items.length < ids.length) {
    const known = new Set(items.map((i) => i.id));
    throw unknownIds(ids.filter((id) => !known.has(id)));
  }
  return items;
}

/**
 * Gives every item of `ids` (each once, known) `status`; answers how many changed (an item already in
 * that status is not counted, and gets no entry). An unknown id changes nothing.
 */
export async function setItemsStatus(ctx: RequestContext, ids: number[], status: ItemStatus): Promise<number> {
  return catalogWriteItems(ctx, 'item.status', async (tx) => {
    const items = await lockItems(tx, ids);
    const changing = items.filter((i) => i.status !== status);
    if (changing.length > 0) {
      // A status moves the items' postings (their `visible`): the catalogue lock, after the rows.
      await lockCatalogue(tx);
      await tx.item.updateMany({
        where: { id: { in: changing.map((i) => i.id) } },
        // A change of the item, like any other: its version grows (§12.1).
        data: { status, version: { increment: 1 }, updatedAt: new Date() },
      });
    }
    return {
      result: changing.length,
      items: changing.map((i) => ({ id: i.id, changes: { status: [i.status, status] }, wasVisible: i.visible })),
    };
  });
}
