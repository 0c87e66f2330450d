/**
 * One batch of an import (contract §13.2), in the caller's transaction: the batch's items read with
 * what is stored under their handles (rows locked), each planned (import-plan.ts), and — unless it is a
 * dry run — the created and updated ones written with a few multi-row statements for the whole batch:
 * items, SKUs (matched by code, so an order system's SKU ids stay), images, search documents, one audit
 * entry per item, and its events (§14.1) for the caller to append last. An unchanged item is not
 * written at all. Categories a path names that do not exist are created (and audited).
 */

import { type AuditRecord, auditInsertSql, auditRow, auditRowsJson, changesBetween } from '../audit/audit-log.ts';
import type { Actor } from '../auth/request-auth.ts';
import { lockCatalogue } from '../catalog/catalog-write.ts';
import type { PendingEvent } from '../events/event-log.ts';
import { cooperative } from '../process/cooperative.ts';
import { indexItems } from '../search/documents.ts';
import type { IndexerSql } from '../search/indexer-sql.ts';
import { visibleNow } from '../search/visibility.ts';
import { type DesiredItem, type ImportMode, type ItemPlan, matchSkus, planItem, sameImages } from './import-plan.ts';
import { type FileProblem, PATH_SEPARATOR, STORED_ITEMS_SQL, type StagedRow, type StoredItem } from './item-file.ts';

export interface BatchOptions {
  importId: number;
  format: 'csv' | 'jsonl';
  mode: ImportMode;
  columns: readonly string[];
  /** Plan and count only: nothing is written. */
  dryRun: boolean;
  actor: Actor;
  ip: string | null;
}

export interface BatchResult {
  created: number;
  updated: number;
  unchanged: number;
  failed: number;
  /** Rows of the batch's items. */
  rows: number;
  /**
   * The last item the batch took (its number): `to`, unless the batch stopped early at its write
   * limit — the items after it are the next batch's.
   */
  through: number;
  problems: Array<FileProblem & { handle: string | null }>;
  /** Each failed item's rows with why, for the errors file. */
  failures: Array<{ rowNo: number; cells: unknown; error: string }>;
  /**
   * The written items' events (`item.created`, `item.updated`, and `item.published` / `unpublished`
   * for a changed item whose visibility flipped), appended by the caller as its transaction's last statement.
   */
  events: PendingEvent[];
}

/** A batch's result before its first item (`through`: where it will have stopped). */
export const emptyBatchResult = (through: number): BatchResult => ({
  created: 0,
  updated: 0,
  unchanged: 0,
  failed: 0,
  rows: 0,
  through,
  problems: [],
  failures: [],
  events: [],
});

/** The staged rows of items `from`..`to` (item numbers), grouped per item in item order. */
async function stagedItems(tx: IndexerSql, importId: number, from: number, to: number) {
  const rows = await tx.$queryRawUnsafe<
    Array<{ item_no: number; handle: string; row_no: number; cells: Record<string, unknown> }>
  >(
    `SELECT i.item_no, i.handle, r.row_no, r.cells
       FROM import_items i JOIN import_rows r ON r.import_id = i.import_id AND r.handle = i.handle
      WHERE i.import_id = $1 AND i.item_no BETWEEN $2 AND $3
      ORDER BY i.item_no, r.row_no`,
    importId,
    from,
    to,
  );
  const items = new Map<number, { itemNo: number; handle: string; rows: StagedRow[] }>();
  for (const r of rows) {
    const entry = items.get(r.item_no) ?? { itemNo: r.item_no, handle: r.handle, rows: [] };
    entry.rows.push({ rowNo: r.row_no, cells: r.cells });
    items.set(r.item_no, entry);
  }
  return [...items.values()];
}

/**
 * The stored items with these handles, locked until the transaction ends — FOR NO KEY UPDATE, and
 * before the catalogue lock, as every catalogue write locks its items (catalog-write.ts lockCatalogue).
 */
async function storedByHandle(tx: IndexerSql, handles: string[]): Promise<Map<string, StoredItem>> {
  if (!handles.length) return new Map();
  const rows = await tx.$queryRawUnsafe<Array<{ item: StoredItem }>>(
    `${STORED_ITEMS_SQL} WHERE i.handle = ANY($1::text[]) ORDER BY i.id FOR NO KEY UPDATE OF i`,
    handles,
  );
  return new Map(rows.map((r) => [r.item.handle, r.item]));
}

/**
 * Runs one batch: items `from`..`to` of the import — or fewer: with `writeLimit`, the batch stops
 * before the item that would be one write too many (`through` says where it stopped). Unchanged and
 * failed items cost a read and a comparison, a written one far more: a batch may span many items of a
 * file that is mostly unchanged, and still never write more than a batch's worth.
 */
export async function runBatch(
  tx: IndexerSql,
  options: BatchOptions,
  from: number,
  to: number,
  writeLimit = Number.POSITIVE_INFINITY,
): Promise<BatchResult> {
  const items = await stagedItems(tx, options.importId, from, to);
  const stored = await storedByHandle(
    tx,
    items.map((i) => i.handle),
  );
  const result = emptyBatchResult(to);
  const writes: Array<Extract<ItemPlan, { outcome: 'created' | 'updated' }>> = [];
  // Planning hundreds of items is CPU work: requests are let in between (process/cooperative.ts).
  const pause = cooperative();
  for (const item of items) {
    await pause();
    const plan = planItem(item.rows, options.format, options.columns, stored.get(item.handle), options.mode);
    if ((plan.outcome === 'created' || plan.outcome === 'updated') && writes.length >= writeLimit) {
      result.through = item.itemNo - 1;
      break;
    }
    result.rows += item.rows.length;
    result[plan.outcome]++;
    if (plan.outcome === 'failed') {
      const handle = item.handle.startsWith('#') ? null : item.handle;
      result.problems.push(...plan.problems.map((p) => ({ ...p, handle })));
      const why = plan.problems.map((p) => (p.field ? `${p.field}: ${p.message}` : p.message)).join('; ');
      for (const row of item.rows) {
        const own = plan.problems.filter((p) => p.row === row.rowNo);
        const error = own.length ? own.map((p) => (p.field ? `${p.field}: ${p.message}` : p.message)).join('; ') : why;
        result.failures.push({ rowNo: row.rowNo, cells: row.cells, error });
      }
    } else if (plan.outcome !== 'unchanged') {
      writes.push(plan);
    }
  }
  if (!options.dryRun && writes.length) {
    // The catalogue lock after the batch's stored items, and only when it writes: a batch of
    // unchanged items waits for no other catalogue write.
    await lockCatalogue(tx);
    result.events = await writeItems(tx, options, writes);
  }
  return result;
}

/** The category ids of these paths, creating what is missing (level by level, audited). */
async function categoryIds(tx: IndexerSql, paths: string[][], audit: AuditRecord[]): Promise<Map<string, number>> {
  const all = await tx.$queryRawUnsafe<Array<{ id: number; name: string; parent_id: number | null }>>(
    'SELECT id, name, parent_id FROM categories ORDER BY id',
  );
  const byParentAndName = new Map(all.map((c) => [`${c.parent_id ?? ''}/${c.name}`, c.id]));
  const ids = new Map<string, number>();
  for (const path of paths) {
    let parent: number | null = null;
    for (const name of path) {
      const key = `${parent ?? ''}/${name}`;
      let id: number | undefined = byParentAndName.get(key);
      if (id === undefined) {
        const inserted: Array<{ id: number }> = await tx.$queryRawUnsafe(
          'INSERT INTO categories (name, parent_id, updated_at) VALUES ($1, $2, now()) RETURNING id',
          name,
          parent,
        );
        const newId: number = inserted[0]!.id;
        id = newId;
        byParentAndName.set(key, id);
        audit.push({
          action: 'category.create',
          target: { type: 'category', id },
          changes: changesBetween(null, { name, parentId: parent, sortOrder: 0 }),
        });
      }
      parent = id;
    }
    ids.set(path.join(PATH_SEPARATOR), parent!);
  }
  return ids;
}

/** The batch's audit entries, at the transaction's time. */
const AUDIT_INSERT = auditInsertSql(1);

/**
 * An item as its audit entry shows it: catalog-write.ts's ITEM_SNAPSHOT, made here from what the batch
 * already holds instead of a statement per item (test/transfer/imports.test.ts holds the two alike).
 */
const snapshot = (item: DesiredItem | StoredItem, categoryId: number) => ({
  name: item.name,
  description: item.description,
  categoryId,
  price: Number(item.price),
  stock: item.stock,
  status: item.status,
  publishAt: item.publishAt,
  unpublishAt: item.unpublishAt,
  handle: item.handle,
  skus: item.skus.map((s) => ({ skuCode: s.skuCode, specs: s.specs, price: Number(s.price), stock: s.stock })),
  images: item.images.map((m) => ({ url: m.url, sortOrder: m.sortOrder })),
});

const itemColumns = (d: DesiredItem, categoryId: number) => ({
  handle: d.handle,
  name: d.name,
  description: d.description,
  category_id: categoryId,
  price: d.price,
  stock: d.stock,
  status: d.status,
  publish_at: d.publishAt?.toISOString() ?? null,
  unpublish_at: d.unpublishAt?.toISOString() ?? null,
});

const ITEM_RECORD = `handle text, name text, description text, category_id int, price numeric, stock int,
  status "ItemStatus", publish_at timestamptz, unpublish_at timestamptz`;

async function writeItems(
  tx: IndexerSql,
  options: BatchOptions,
  plans: Array<Extract<ItemPlan, { outcome: 'created' | 'updated' }>>,
): Promise<PendingEvent[]> {
  const audit: AuditRecord[] = [];
  const paths = new Map(plans.map((p) => [p.desired.categoryPath.join(PATH_SEPARATOR), p.desired.categoryPath]));
  const categories = await categoryIds(tx, [...paths.values()], audit);
  const categoryOf = (d: DesiredItem) => categories.get(d.categoryPath.join(PATH_SEPARATOR))!;
  const created = plans.filter((p) => p.outcome === 'created');
  const updated = plans.filter((p) => p.outcome === 'updated');

  // New items: one INSERT for all, then their SKUs and images.
  const newIds = new Map<string, number>();
  if (created.length) {
    const rows = await tx.$queryRawUnsafe<Array<{ id: number; handle: string }>>(
      `INSERT INTO items (handle, name, description, category_id, price, stock, status, publish_at, unpublish_at, updated_at)
       SELECT r.*, now() FROM jsonb_to_recordset($1::jsonb) AS r(${ITEM_RECORD})
       RETURNING id, handle`,
      JSON.stringify(created.map((p) => itemColumns(p.desired, categoryOf(p.desired)))),
    );
    for (const r of rows) newIds.set(r.handle, r.id);
  }
  // Changed items: one UPDATE for all, each one version more; their visibility before, for the events.
  const wasVisible = await visibleNow(
    tx,
    updated.map((p) => p.existing.id),
  );
  if (updated.length) {
    await tx.$executeRawUnsafe(
      `UPDATE items i SET handle = r.handle, name = r.name, description = r.description, category_id = r.category_id,
              price = r.price, stock = r.stock, status = r.status, publish_at = r.publish_at,
              unpublish_at = r.unpublish_at, version = i.version + 1, updated_at = now()
         FROM jsonb_to_recordset($1::jsonb) AS r(id int, ${ITEM_RECORD})
        WHERE i.id = r.id`,
      JSON.stringify(updated.map((p) => ({ id: p.existing.id, ...itemColumns(p.desired, categoryOf(p.desired)) }))),
    );
  }
  // SKUs: new ones inserted, matched ones changed in place (their ids stay), the rest deleted.
  const skuInserts: object[] = [];
  const skuUpdates: object[] = [];
  const skuDeletes: number[] = [];
  const imageInserts: object[] = [];
  const imagesReplaced: number[] = [];
  for (const plan of plans) {
    const id = plan.outcome === 'created' ? newIds.get(plan.desired.handle)! : plan.existing.id;
    const matched = plan.outcome === 'created' ? [] : matchSkus(plan.desired.skus, plan.existing.skus);
    plan.desired.skus.forEach((s, i) => {
      const row = { item_id: id, sku_code: s.skuCode, specs: s.specs, price: s.price, stock: s.stock };
      const m = matched[i];
      if (m) skuUpdates.push({ id: m.id, ...row });
      else skuInserts.push(row);
    });
    if (plan.outcome === 'updated') {
      const kept = new Set(matched.filter((m) => m !== undefined).map((m) => m.id));
      skuDeletes.push(...plan.existing.skus.filter((s) => !kept.has(s.id)).map((s) => s.id));
      if (sameImages(plan.desired.images, plan.existing.images)) continue;
      imagesReplaced.push(id);
    }
    for (const m of plan.desired.images) imageInserts.push({ item_id: id, url: m.url, sort_order: m.sortOrder });
  }
  // Deleted before the others are written: a code may move from a deleted SKU to a new one.
  if (skuDeletes.length) await tx.$executeRawUnsafe('DELETE FROM skus WHERE id = ANY($1::int[])', skuDeletes);
  if (skuUpdates.length) {
    await tx.$executeRawUnsafe(
      `UPDATE skus s SET specs = r.specs, price = r.price, stock = r.stock
         FROM jsonb_to_recordset($1::jsonb) AS r(id int, item_id int, sku_code text, specs jsonb, price numeric, stock int)
        WHERE s.id = r.id AND (s.specs, s.price, s.stock) IS DISTINCT FROM (r.specs, r.price, r.stock)`,
      JSON.stringify(skuUpdates),
    );
  }
  if (skuInserts.length) {
    await tx.$executeRawUnsafe(
      `INSERT INTO skus (item_id, sku_code, specs, price, stock)
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(item_id int, sku_code text, specs jsonb, price numeric, stock int)`,
      JSON.stringify(skuInserts),
    );
  }
  if (imagesReplaced.length) {
    await tx.$executeRawUnsafe('DELETE FROM item_images WHERE item_id = ANY($1::int[])', imagesReplaced);
  }
  if (imageInserts.length) {
    await tx.$executeRawUnsafe(
      `INSERT INTO item_images (item_id, url, sort_order)
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(item_id int, url text, sort_order int)`,
      JSON.stringify(imageInserts),
    );
  }
  const ids = plans.map((p) => (p.outcome === 'created' ? newIds.get(p.desired.handle)! : p.existing.id));
  await indexItems(tx, ids, { existing: updated.map((p) => p.existing.id) });
  const isVisible = await visibleNow(tx, [...wasVisible.keys()]);
  for (const plan of plans) {
    const after = snapshot(plan.desired, categoryOf(plan.desired));
    if (plan.outcome === 'created') {
      audit.push({
        action: 'item.create',
        target: { type: 'item', id: newIds.get(plan.desired.handle)! },
        changes: changesBetween(null, after),
      });
    } else {
      const before = snapshot(plan.existing, plan.existing.categoryId);
      audit.push({
        action: 'item.update',
        target: { type: 'item', id: plan.existing.id },
        changes: changesBetween(before, after),
      });
    }
  }
  // The import's id is the entries' request id (§13.2): every entry of an import can be found by it.
  const origin = { requestId: String(options.importId), clientIp: options.ip ?? 'local' };
  await tx.$executeRawUnsafe(
    AUDIT_INSERT,
    auditRowsJson(audit.map((record) => auditRow(origin, options.actor, record))),
  );
  return plans.flatMap((plan): PendingEvent[] => {
    if (plan.outcome === 'created') return [{ type: 'item.created', item: newIds.get(plan.desired.handle)! }];
    const id = plan.existing.id;
    const flipped = wasVisible.get(id) !== isVisible.get(id);
    return [
      { type: 'item.updated', item: id },
      ...(flipped ? [{ type: isVisible.get(id) ? 'item.published' : 'item.unpublished', item: id } as const] : []),
    ];
  });
}
