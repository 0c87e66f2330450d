/**
 * What an import does with one item (contract §13.2): its rows made into the fields the file gives,
 * laid over the stored item (a column the file lacks keeps the stored value; an item created gets the
 * defaults, `draft` among them), checked by the same rules as every item write (createItemInput, the
 * one set of zod schemas) and compared with what is stored — `unchanged` when equal, which is then not
 * written at all. No I/O here: the batch (import-batch.ts) reads and writes.
 */
import { categoryInput } from '../catalog/category.schema.ts';
import { createItemInput } from '../catalog/item.schema.ts';
import { fieldPath } from '../validation/field-errors.ts';
import {
  type FileProblem,
  hasHandle,
  itemFromCsvRows,
  itemFromJsonLine,
  PATH_SEPARATOR,
  type StagedRow,
  type StoredItem,
} from './item-file.ts';

export type ImportMode = 'upsert' | 'create' | 'update';

/** An item as it will be stored: createItemInput's output, with its category as a path. */
export interface DesiredItem {
  handle: string;
  name: string;
  description: string;
  categoryPath: string[];
  price: string;
  stock: number;
  status: 'draft' | 'active' | 'archived';
  publishAt: Date | null;
  unpublishAt: Date | null;
  skus: Array<{ skuCode: string | null; specs: Record<string, string>; price: string; stock: number }>;
  images: Array<{ url: string; sortOrder: number }>;
}

export type ItemPlan =
  | { outcome: 'failed'; problems: FileProblem[] }
  | { outcome: 'unchanged'; existing: StoredItem }
  | { outcome: 'created'; desired: DesiredItem }
  | { outcome: 'updated'; desired: DesiredItem; existing: StoredItem };

/** A stored item's fields as an import's starting point. */
function fieldsOf(stored: StoredItem | undefined): Record<string, unknown> {
  if (!stored) {
    // An item created by an import is a draft unless the file says otherwise (§13.2).
    return { description: '', status: 'draft', publishAt: null, unpublishAt: null, stock: 0, skus: [], images: [] };
  }
  return {
    handle: stored.handle,
    name: stored.name,
    description: stored.description,
    category: stored.categoryPath,
    status: stored.status,
    publishAt: stored.publishAt,
    unpublishAt: stored.unpublishAt,
    price: stored.price,
    stock: stored.stock,
    skus: stored.skus.map(({ skuCode, specs, price, stock }) => ({ skuCode, specs, price, stock })),
    images: stored.images.map(({ url, sortOrder }) => ({ url, sortOrder })),
  };
}

/** CSV names of the fields rules report on (the rest are the column's own name). */
const CSV_ITEM_COLUMN: Record<string, string> = {
  categoryId: 'category',
  publishAt: 'publish_at',
  unpublishAt: 'unpublish_at',
};
const CSV_SKU_COLUMN: Record<string, string> = {
  skuCode: 'sku_code',
  price: 'sku_price',
  stock: 'sku_stock',
  specs: 'spec',
};

/** A category's name as the category API takes it (its length is the column's, VARCHAR(100)). */
const categoryName = categoryInput.shape.name;

/**
 * The problems of a category path's names: each must be a name the category API would take, as a
 * missing one is created — checked here, so a dry run fails the item as the real run does, and a
 * name the database refuses never reaches the batch's write (where it failed the whole batch).
 */
function categoryPathProblems(path: string[] | null | undefined, row: number): FileProblem[] {
  return (path ?? []).flatMap((name, i) => {
    const parsed = categoryName.safeParse(name);
    if (parsed.success) return [];
    // The name itself is not echoed: it may be long, or hold what cannot be stored.
    const which = path!.length > 1 ? `name ${i + 1} of the path` : 'the category name';
    return parsed.error.issues.map((issue) => ({ row, field: 'category', message: `${which} ${issue.message}` }));
  });
}

/**
 * Plans one item from its staged rows (file order). `stored`: the item with its handle, if any;
 * `columns`: the CSV header (JSON Lines: empty).
 */
export function planItem(
  rows: StagedRow[],
  format: 'csv' | 'jsonl',
  columns: readonly string[],
  stored: StoredItem | undefined,
  mode: ImportMode,
): ItemPlan {
  const first = rows[0]!;
  if (format === 'jsonl' && rows.length > 1) {
    const again = rows[1]!.rowNo;
    return {
      outcome: 'failed',
      problems: [{ row: again, field: 'handle', message: `the handle is on an earlier line too (${first.rowNo})` }],
    };
  }
  const { item, origin, problems } = format === 'csv' ? itemFromCsvRows(rows, columns) : itemFromJsonLine(first);
  if (problems.length) return { outcome: 'failed', problems };
  // The handle is how an import finds its item, so each needs one (§13.1), in either format; the item
  // rules let it be left out (the API then makes one from the name), which here made an item with the
  // handle '' — and the next such item a write the unique index refused, failing its whole batch.
  if (!hasHandle(item.handle)) {
    return {
      outcome: 'failed',
      problems: [{ row: first.rowNo, field: 'handle', message: 'is required (a non-empty string)' }],
    };
  }
  if (mode === 'create' && stored) {
    return {
      outcome: 'failed',
      problems: [{ row: first.rowNo, field: 'handle', message: 'an item with this handle exists (mode create)' }],
    };
  }
  if (mode === 'update' && !stored) {
    return {
      outcome: 'failed',
      problems: [{ row: first.rowNo, field: 'handle', message: 'no item has this handle (mode update)' }],
    };
  }
  // The file's fields over the stored ones: a key the file has counts even when its value is undefined
  // (an empty price cell: required, reported below), one it lacks keeps the stored value.
  const fields: Record<string, unknown> = { ...fieldsOf(stored), ...item };
  // An empty status cell sets the default, which for an import is `draft` (createItemInput's is `active`).
  fields.status ??= 'draft';
  const path = fields.category as string[] | null | undefined;
  // The rules of every item write; the category is checked as a path here (a missing one is created).
  const parsed = createItemInput.safeParse({
    ...fields,
    category: undefined,
    categoryId: path?.length ? 1 : undefined,
  });
  const pathProblems = categoryPathProblems(path, origin.itemRow);
  if (!parsed.success || pathProblems.length) {
    const issues = parsed.success ? [] : parsed.error.issues;
    return {
      outcome: 'failed',
      problems: [
        ...pathProblems,
        ...issues.map((issue) => {
          const [head, index, field] = issue.path as PropertyKey[];
          const isSku = head === 'skus' && typeof index === 'number';
          const row = isSku && format === 'csv' ? (origin.skuRows[index] ?? origin.itemRow) : origin.itemRow;
          const message = head === 'categoryId' ? 'is required (a path of category names)' : issue.message;
          if (format === 'jsonl') {
            const name = fieldPath(issue.path as PropertyKey[], 'rest').replace(/^category_id/, 'category');
            return { row, field: name || null, message };
          }
          const column = isSku
            ? (CSV_SKU_COLUMN[String(field)] ?? String(field ?? 'sku'))
            : (CSV_ITEM_COLUMN[String(head)] ?? String(head ?? ''));
          return { row, field: column || null, message };
        }),
      ],
    };
  }
  const input = parsed.data;
  const desired: DesiredItem = {
    // Set: the handle was checked above (createItemInput only makes it lower case and trimmed).
    handle: input.handle ?? item.handle,
    name: input.name,
    description: input.description,
    categoryPath: path ?? [],
    price: input.price,
    stock: input.stock,
    status: input.status,
    publishAt: input.publishAt,
    unpublishAt: input.unpublishAt,
    skus: input.skus.map((s) => ({
      skuCode: s.skuCode ?? null,
      specs: s.specs,
      price: s.price ?? input.price,
      stock: s.stock,
    })),
    images: input.images,
  };
  if (!stored) return { outcome: 'created', desired };
  return sameItem(desired, stored)
    ? { outcome: 'unchanged', existing: stored }
    : { outcome: 'updated', desired, existing: stored };
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);
const specKey = (specs: Record<string, string>) =>
  JSON.stringify(Object.entries(specs).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/**
 * The stored SKUs each desired SKU becomes (contract §13.2): the one with its code, or — for a SKU
 * without a code — the stored code-less SKUs in order. `undefined`: a new SKU.
 */
export function matchSkus(
  desired: DesiredItem['skus'],
  stored: StoredItem['skus'],
): Array<StoredItem['skus'][number] | undefined> {
  const byCode = new Map(stored.filter((s) => s.skuCode !== null).map((s) => [s.skuCode!, s]));
  const codeless = stored.filter((s) => s.skuCode === null);
  let next = 0;
  return desired.map((s) => (s.skuCode !== null ? byCode.get(s.skuCode) : codeless[next++]));
}

/** Whether writing `desired` would change nothing of `stored`. */
export function sameItem(desired: DesiredItem, stored: StoredItem): boolean {
  const fields =
    desired.handle === stored.handle &&
    desired.name === stored.name &&
    desired.description === stored.description &&
    desired.categoryPath.join(PATH_SEPARATOR) === stored.categoryPath.join(PATH_SEPARATOR) &&
    desired.price === stored.price &&
    desired.stock === stored.stock &&
    desired.status === stored.status &&
    iso(desired.publishAt) === stored.publishAt &&
    iso(desired.unpublishAt) === stored.unpublishAt;
  if (!fields || desired.skus.length !== stored.skus.length || desired.images.length !== stored.images.length) {
    return false;
  }
  const matched = matchSkus(desired.skus, stored.skus);
  const skus = desired.skus.every((s, i) => {
    const m = matched[i];
    return m !== undefined && m.price === s.price && m.stock === s.stock && specKey(m.specs) === specKey(s.specs);
  });
  return skus && sameImages(desired.images, stored.images);
}

/**
 * Whether two image lists show the same pictures in the same order. Only the order counts, not the
 * stored sort values: a CSV file carries URLs in order (its items get 0, 1, 2 …), and an item whose
 * images were sorted 0 and 5 is the same item (so export → import stays a no-op).
 */
export const sameImages = (desired: DesiredItem['images'], stored: StoredItem['images']): boolean =>
  desired.length === stored.length &&
  [...desired].sort((a, b) => a.sortOrder - b.sortOrder).every((m, i) => m.url === stored[i]!.url);
