/**
 * The one way the catalogue is written. Every item, category and synonym write — create, update,
 * delete — runs here, through the admin-write helper (one transaction with its audit entry, the
 * row's fields before and after, contract §10.2) and its events (§14.1); an item's version grows by
 * one, checked against the one the caller expects (§12.2); the search documents of what it changed are rewritten in that
 * transaction (§9.1); and before it answers the catalogue's answer cache is
 * emptied on this instance (other instances hear the trigger's notification, §7.6). A new write
 * cannot forget any of it: it has no other way in.
 */
import { type Audit, adminWrite, type Emit, inTransaction, type Tx } from '../audit/admin-write.ts';
import { type AuditTargetType, type Changes, changesBetween } from '../audit/audit-log.ts';
import { notFound, versionConflict } from '../errors/app-error.ts';
import type { EventType } from '../events/event-log.ts';
import type { RequestContext } from '../request-context.ts';
import { indexCategoryTree, indexItems } from '../search/documents.ts';
import { visibleNow } from '../search/visibility.ts';
import { isoSql } from './catalog-json.ts';

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
  /**
   * An item update or delete: the version the caller last read (`If-Match`, `expectedVersion`). When
   * the item is at another one the write answers VERSION_CONFLICT and changes nothing (§12.2).
   */
  expectedVersion?: number;
  /** An item update that sets the handle, a key of the row: the catalogue lock comes before it (see lockCatalogue). */
  setsHandle?: boolean;
}

/**
 * An item's audited fields in ONE statement, as JSON text — its SKUs and images aggregated, money as a
 * JSON number exact to the cent, times as JSON writes a Date (what Prisma's include read in three
 * statements, compared as JSON by changesBetween). A write reads it twice, each a round trip through a
 * possibly busy event loop — for an update, before the catalogue lock (lockCatalogue); for a create or a
 * delete, while holding it (docs/performance.md, "The catalogue lock's hold"). An import makes the same
 * JSON from what its batch holds (transfer/import-batch.ts `snapshot`; a test holds the two alike).
 */
const ITEM_SNAPSHOT = `SELECT json_build_object(
    'name', i.name, 'description', i.description, 'categoryId', i.category_id, 'price', i.price,
    'stock', i.stock, 'status', i.status, 'publishAt', ${isoSql('i.publish_at')},
    'unpublishAt', ${isoSql('i.unpublish_at')}, 'handle', i.handle,
    -- Not an audited field: read here so an update learns its visibility before and after for free.
    'visible', i.visible,
    'skus', COALESCE((SELECT json_agg(json_build_object('skuCode', s.sku_code, 'specs', s.specs, 'price', s.price,
                                                        'stock', s.stock) ORDER BY s.id)
                        FROM skus s WHERE s.item_id = i.id), '[]'),
    'images', COALESCE((SELECT json_agg(json_build_object('url', m.url, 'sortOrder', m.sort_order) ORDER BY m.id)
                          FROM item_images m WHERE m.item_id = i.id), '[]'))::text AS snapshot
  FROM items i WHERE i.id = $1`;

/** Each target's fields as its audit entry shows them (null: no such row). */
const SNAPSHOTS: Record<CatalogTarget, (tx: Tx, id: number) => Promise<Record<string, unknown> | null>> = {
  item: async (tx, id) => {
    const [row] = await tx.$queryRawUnsafe<Array<{ snapshot: string }>>(ITEM_SNAPSHOT, id);
    return row ? (JSON.parse(row.snapshot) as Record<string, unknown>) : null;
  },
  category: (tx, id) =>
    tx.category.findUnique({ where: { id }, select: { name: true, parentId: true, sortOrder: true } }),
  synonym_group: (tx, id) => tx.synonymGroup.findUnique({ where: { id }, select: { terms: true } }),
};

/**
 * An item's next version (contract §12.1: one more with every change of the item, its SKUs or
 * images), claimed before anything else of the write, by one conditional UPDATE — never a read, then
 * a write: the row stays locked until the transaction ends, and a concurrent write expecting the same
 * version waits for it and then finds the version moved (PostgreSQL re-checks the condition on the
 * row it waited for), so exactly one of them succeeds. No such item → NOT_FOUND.
 */
export async function claimItemVersion(tx: Tx, id: number, expected?: number): Promise<number> {
  const [claimed] = await tx.$queryRawUnsafe<Array<{ version: number }>>(
    'UPDATE items SET version = version + 1 WHERE id = $1 AND ($2::int IS NULL OR version = $2) RETURNING version',
    id,
    expected ?? null,
  );
  if (claimed) return claimed.version;
  // Only to say why: the item is gone, or at another version (which a later write may move on).
  const [current] = await tx.$queryRawUnsafe<Array<{ version: number }>>('SELECT version FROM items WHERE id = $1', id);
  throw current ? versionConflict(current.version) : notFound('item');
}

/** `item.published` / `item.unpublished` for an existing item whose visibility a change flipped (§14.1). */
function emitVisibility(emit: Emit, id: number, before: boolean | undefined, after: boolean | undefined): void {
  if (before === undefined || after === undefined || before === after) return;
  emit({ type: after ? 'item.published' : 'item.unpublished', item: id });
}

const EVENT_VERB = { create: 'created', update: 'updated', delete: 'deleted' } as const;

/**
 * The events of one row's write: `<target>.<verb>` with the row as it ends (a deleted one: what
 * named it). Synonym groups have none (§14.1).
 */
function emitWrite(
  emit: Emit,
  target: CatalogTarget,
  verb: string,
  id: number,
  before: Record<string, unknown> | null,
) {
  if (target === 'synonym_group' || !(verb in EVENT_VERB)) return;
  const type = `${target}.${EVENT_VERB[verb as keyof typeof EVENT_VERB]}` as EventType;
  if (verb !== 'delete') emit(target === 'item' ? { type, item: id } : { type, category: id });
  else if (target === 'item') emit({ type, data: { item: { id, handle: before?.handle } } });
  else {
    const category = { id, name: before?.name, parent_id: before?.parentId, sort_order: before?.sortOrder };
    emit({ type, data: { category } });
  }
}

async function reindex(tx: Tx, scope: SearchScope): Promise<void> {
  if ('item' in scope) await indexItems(tx, [scope.item]);
  else await indexCategoryTree(tx, scope.categoryTree);
}

/** One row's write: its spec, the row (known beforehand for an update or a delete), its statements. */
type RowWrite<T> = CatalogWriteSpec<T> & { id?: number; write: (tx: Tx) => Promise<T> };

/** A snapshot's audited fields, and the item's visibility flag (§12.1) that rides along with them. */
function fieldsAndVisibility(
  row: Record<string, unknown> | null,
): [Record<string, unknown> | null, boolean | undefined] {
  if (!row || !('visible' in row)) return [row, undefined];
  const { visible, ...fields } = row;
  return [fields, visible as boolean];
}

/**
 * The catalogue writes' lock (`search_index_lock()`, migration 20261130000000_token_counts): one writer
 * of the postings' counts at a time, held to commit — the queue every catalogue write waits in. A write
 * takes it as late as it safely can, so that what comes before (an item's version claimed, its row
 * before, the row written, its row after) is not part of every other write's wait (docs/performance.md,
 * "The catalogue lock's hold"). That is safe because every catalogue write takes its locks in one order:
 *
 *   1. the item rows it changes, FOR NO KEY UPDATE (in id order when several: lockItems, the import's
 *      stored items, the schedule flip; one item: its version claim);
 *   2. this lock;
 *   3. the rest: postings and their counts, kept facets, the event counter.
 *
 * A holder of this lock waits for no item row a waiter for it holds: after it, it takes only KEY SHARE
 * of existing items (the indexer, foreign keys), which NO KEY UPDATE does not block, or FOR UPDATE of
 * rows it locked before it. So whatever takes FOR UPDATE of an item (a delete, a new handle: a key) or
 * inserts a handle (a create: another insert of the same handle would wait for it) does it after this
 * lock. Category writes take it first: they lock no item row.
 */
export const lockCatalogue = (tx: { $executeRawUnsafe(query: string): Promise<unknown> }) =>
  tx.$executeRawUnsafe('SELECT search_index_lock()');

/**
 * Where a row's write takes the catalogue lock (see lockCatalogue): `first` (a category, a new item),
 * `beforeWrite` (an item deleted or given a handle: after its version claim, before the key changes),
 * `beforeIndex` (any other item update: after the row is written, before its documents), `held` (the
 * caller has it), `none` (synonym groups: no postings).
 */
type LockAt = 'first' | 'beforeWrite' | 'beforeIndex' | 'held' | 'none';

function lockAt<T>(spec: CatalogWriteSpec<T> & { id?: number }): LockAt {
  const target = targetOf(spec);
  if (target === 'synonym_group') return 'none';
  if (target === 'category' || spec.id === undefined) return 'first';
  return spec.action === 'item.update' && !spec.setsHandle ? 'beforeIndex' : 'beforeWrite';
}

/**
 * One row's write inside a running catalogue transaction: an item's version claimed, the row before,
 * the write, the row after, its search documents, its audit entry and its events (an updated item's
 * visibility compared before and after) — the catalogue lock taken where `lock` says.
 */
async function writeRow<T>(tx: Tx, audit: Audit, emit: Emit, spec: RowWrite<T>, lock: LockAt): Promise<T> {
  const target = targetOf(spec);
  const verb = spec.action.split('.')[1]!;
  if (lock === 'first') await lockCatalogue(tx);
  // Every later change of an item — its fields, SKUs, images, status — is one version more.
  if (target === 'item' && spec.id !== undefined) await claimItemVersion(tx, spec.id, spec.expectedVersion);
  const snapshot = SNAPSHOTS[target];
  const [before, wasVisible] = fieldsAndVisibility(spec.id === undefined ? null : await snapshot(tx, spec.id));
  if (lock === 'beforeWrite') await lockCatalogue(tx);
  const written = await spec.write(tx);
  const id = spec.idOf(written);
  // The row after before its documents: they change none of its audited fields.
  const [after, isVisible] = fieldsAndVisibility(verb === 'delete' ? null : await snapshot(tx, id));
  if (lock === 'beforeIndex') await lockCatalogue(tx);
  if (spec.search) await reindex(tx, spec.search(written));
  audit({ action: spec.action, target: { type: target, id }, changes: changesBetween(before, after) });
  emitWrite(emit, target, verb, id, before);
  if (target === 'item' && verb === 'update') emitVisibility(emit, id, wasVisible, isVisible);
  return written;
}

const targetOf = (spec: { action: CatalogWriteSpec<unknown>['action'] }) => spec.action.split('.')[0] as CatalogTarget;

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
  const result = await adminWrite(
    ctx,
    (tx, audit, emit) => writeRow(tx, audit, emit, { ...spec, write }, lockAt(spec)),
    transaction,
  );
  // Before the answer: a read that follows it on this instance must not see the cache's old copy.
  ctx.services.catalogCache.invalidate();
  return result;
}

/**
 * Several item writes in ONE transaction, all or none (`deleteItems`): `prepare` locks and checks
 * their rows (lockItems), then the catalogue lock is taken, then each write runs as catalogWrite runs
 * it alone — its version, its row before and after, its own audit entry.
 */
export async function catalogWriteAll<T>(
  ctx: RequestContext,
  prepare: (tx: Tx) => Promise<void>,
  writes: Array<RowWrite<T>>,
): Promise<T[]> {
  const results = await adminWrite(ctx, async (tx, audit, emit) => {
    await prepare(tx);
    await lockCatalogue(tx);
    const done: T[] = [];
    for (const spec of writes) done.push(await writeRow(tx, audit, emit, spec, 'held'));
    return done;
  });
  ctx.services.catalogCache.invalidate();
  return results;
}

/** One item a many-item write changed, and how, for its own audit entry and its events. */
export interface ItemChange {
  id: number;
  changes: Changes;
  /** Its visibility before the write, when the write may flip it (a status change). */
  wasVisible?: boolean;
}

/** Thrown inside a many-item write that changed nothing, so its transaction ends with no entry to write. */
class NothingChanged extends Error {
  constructor(readonly result: unknown) {
    super('nothing changed');
  }
}

/**
 * Runs one write over many items — stock adjustments (§12.3), statuses in bulk (§12.1): one `action`
 * audit entry per item it reports changed, in its transaction, then the answer cache emptied as
 * catalogWrite does. A write that changes no item records nothing (its transaction is rolled back,
 * having changed nothing). Such writes change no search document; the write locks its item rows in id
 * order, as every many-item write does, so two of them never wait for each other in two orders. A
 * write that changes postings (a status) takes the catalogue lock itself, after its rows (see
 * lockCatalogue); a stock adjustment writes no postings and so never queues behind a reindexing write.
 */
export async function catalogWriteItems<T>(
  ctx: RequestContext,
  action: `item.${'stock' | 'status'}`,
  write: (tx: Tx) => Promise<{ result: T; items: ItemChange[] }>,
  { transaction }: { transaction?: (write: (tx: Tx) => Promise<T>) => Promise<T> } = {},
): Promise<T> {
  try {
    const result = await adminWrite(
      ctx,
      async (tx, audit, emit) => {
        const { result, items } = await write(tx);
        if (items.length === 0) throw new NothingChanged(result);
        const flippable = items.filter((item) => item.wasVisible !== undefined).map((item) => item.id);
        const visible = await visibleNow(tx, flippable);
        for (const { id, changes, wasVisible } of items) {
          audit({ action, target: { type: 'item', id }, changes });
          emit({ type: 'item.updated', item: id });
          emitVisibility(emit, id, wasVisible, visible.get(id));
        }
        return result;
      },
      transaction,
    );
    ctx.services.catalogCache.invalidate();
    return result;
  } catch (err) {
    if (err instanceof NothingChanged) return err.result as T;
    throw err;
  }
}
