/**
 * Stock adjustments for an order system (contract §12.3): a set of SKU deltas applied all or nothing,
 * at most once per Idempotency-Key, never losing a concurrent adjustment.
 *
 * Concurrency: the rows are locked before they are read — the items first, then their SKUs, each in
 * id order — so two adjustments sharing rows wait for each other instead of deadlocking, and every
 * check sees the stock the update will change. The updates add the deltas (`stock + delta`), never
 * write a value computed from an earlier read.
 */
import { actorLabel } from '../auth/request-auth.ts';
import { AppError, type FieldError, validationFailed } from '../errors/app-error.ts';
import type { RequestContext } from '../request-context.ts';
import { INT32_MAX } from '../validation/rules.ts';
import { catalogWriteItems, type ItemChange, type Tx } from './catalog-write.ts';
import { answerOnce } from './idempotency.ts';
import type { SkuRow } from './item.repository.ts';
import type { AdjustStockInput } from './stock.schema.ts';

const INT32_MIN = -INT32_MAX - 1;

interface ItemStock {
  id: number;
  stock: number;
}

interface LockedSku {
  id: number;
  itemId: number;
  stock: number;
}

/**
 * Applies every adjustment, or none; answers the adjusted SKUs in the order of the adjustments. With
 * a key the actor already used for the same request within 24 h, answers as that request did.
 */
export async function adjustStock(ctx: RequestContext, input: AdjustStockInput): Promise<SkuRow[]> {
  const { actor } = await ctx.auth.admin();
  const { adjustments, allowNegative, idempotencyKey } = input;
  // The operation is part of what the key remembers: a key of an item creation is not one of these.
  const request = { operation: 'adjustStock', adjustments, allowNegative };
  const answer = await catalogWriteItems<{ skus: SkuRow[] }>(ctx, 'item.stock', (tx) => applyAdjustments(tx, input), {
    transaction: (write) => answerOnce(ctx, actorLabel(actor), idempotencyKey, request, write),
  });
  return answer.skus;
}

async function applyAdjustments(tx: Tx, { adjustments, allowNegative }: AdjustStockInput) {
  const skuIds = adjustments.map((a) => a.skuId);
  const deltas = adjustments.map((a) => a.delta);
  // Parents before children, each in id order, so two adjustments sharing rows queue up in one order.
  // The items FOR NO KEY UPDATE, as every catalogue write locks them (catalog-write.ts lockCatalogue):
  // FOR UPDATE would wait for the KEY SHARE a reindex takes of the same items in its own order, and it
  // for this write's — a deadlock (test/catalog/lock-order.test.ts).
  const lockedItems = await tx.$queryRawUnsafe<ItemStock[]>(
    `SELECT id, stock FROM items WHERE id IN (SELECT item_id FROM skus WHERE id = ANY($1::int[])) ORDER BY id FOR NO KEY UPDATE`,
    skuIds,
  );
  const locked = await tx.$queryRawUnsafe<LockedSku[]>(
    `SELECT id, item_id AS "itemId", stock FROM skus WHERE id = ANY($1::int[]) ORDER BY id FOR UPDATE`,
    skuIds,
  );
  const byId = new Map(locked.map((s) => [s.id, s]));
  refuseUnknown(adjustments, byId);
  refuseOutOfRange(adjustments, byId, allowNegative);

  // One statement for both updates: the locks are held for as few round trips as possible, since
  // every other adjustment of these SKUs queues behind them. The item's own stock moves by its SKUs'
  // deltas (contract §12.3), kept within what the column holds and — without allowNegative — never
  // below 0 (an item whose stock was its SKUs' total never gets there; one with an independent,
  // smaller stock stops at 0).
  const [{ written }] = await tx.$queryRawUnsafe<[{ written: { skus: SkuRow[]; items: ItemStock[] } }]>(
    `WITH s AS (
       UPDATE skus s SET stock = s.stock + d.delta
         FROM unnest($1::int[], $2::int[]) AS d(sku_id, delta)
        WHERE s.id = d.sku_id
       RETURNING s.id, s.item_id, s.sku_code, s.specs, s.price, s.stock, d.delta
     ), i AS (
       UPDATE items i
          SET stock = LEAST(${INT32_MAX}, GREATEST(CASE WHEN $3::boolean THEN ${INT32_MIN} ELSE 0 END, i.stock::bigint + t.delta))::int,
              version = i.version + 1,
              updated_at = now()
         FROM (SELECT item_id, sum(delta)::bigint AS delta FROM s GROUP BY item_id) t
        WHERE i.id = t.item_id
       RETURNING i.id, i.stock
     )
     SELECT json_build_object(
       'skus', (SELECT json_agg(json_build_object('id', id, 'skuCode', sku_code, 'specs', specs,
                                                  'price', price::text, 'stock', stock)) FROM s),
       'items', (SELECT json_agg(json_build_object('id', id, 'stock', stock)) FROM i)
     ) AS written`,
    skuIds,
    deltas,
    allowNegative,
  );
  const { skus, items } = written;
  const after = new Map(skus.map((s) => [s.id, s]));
  const itemAfter = new Map(items.map((i) => [i.id, i.stock]));
  return {
    result: { skus: adjustments.map((a) => after.get(a.skuId)!) },
    items: lockedItems.map((item) => itemChange(item, itemAfter.get(item.id)!, locked, after)),
  };
}

/** An item's `item.stock` audit entry: its stock, and its adjusted SKUs' (`{ id, stock }`), before and after. */
function itemChange(item: ItemStock, stockAfter: number, locked: LockedSku[], after: Map<number, SkuRow>): ItemChange {
  const mine = locked.filter((s) => s.itemId === item.id);
  return {
    id: item.id,
    changes: {
      stock: [item.stock, stockAfter],
      skus: [
        mine.map((s) => ({ id: s.id, stock: s.stock })),
        mine.map((s) => ({ id: s.id, stock: after.get(s.id)!.stock })),
      ],
    },
  };
}

function refuseUnknown(adjustments: AdjustStockInput['adjustments'], byId: Map<number, LockedSku>): void {
  const unknown: FieldError[] = [];
  adjustments.forEach((a, i) => {
    if (!byId.has(a.skuId)) unknown.push({ field: `adjustments[${i}].skuId`, message: 'is not an existing SKU' });
  });
  if (unknown.length) throw validationFailed(unknown);
}

/**
 * 409 INSUFFICIENT_STOCK naming every adjustment that would take its SKU below 0 (without
 * allowNegative); a stock the column cannot hold (beyond ±2147483647) is a VALIDATION_FAILED.
 */
function refuseOutOfRange(
  adjustments: AdjustStockInput['adjustments'],
  byId: Map<number, LockedSku>,
  allowNegative: boolean,
): void {
  const short: FieldError[] = [];
  const overflow: FieldError[] = [];
  adjustments.forEach((a, i) => {
    const { stock } = byId.get(a.skuId)!;
    const next = stock + a.delta;
    const field = `adjustments[${i}].delta`;
    if (next > INT32_MAX || next < INT32_MIN) {
      overflow.push({ field, message: `would take the stock of SKU ${a.skuId} beyond ±${INT32_MAX} (it is ${stock})` });
    } else if (next < 0 && !allowNegative) {
      short.push({ field, message: `would take the stock of SKU ${a.skuId} below 0: ${stock} available` });
    }
  });
  if (overflow.length) throw validationFailed(overflow);
  if (short.length) {
    throw new AppError('INSUFFICIENT_STOCK', 'Not enough stock for every adjustment; nothing was changed.', {
      errors: short,
    });
  }
}
