/**
 * The item files of contract §13.1, both ways: which CSV columns there are, how an item's rows (CSV)
 * or line (JSON Lines) become the fields it gives, and how a stored item becomes rows and a line
 * again. Import and export both use this module, so what export writes is exactly what import reads
 * (export → import is a no-op).
 */

import { isoSql } from '../catalog/catalog-json.ts';

/** Columns read from an item's first row. */
export const ITEM_COLUMNS = [
  'handle',
  'name',
  'description',
  'category',
  'status',
  'publish_at',
  'unpublish_at',
  'price',
  'stock',
  'images',
] as const;
/** Columns of one SKU (besides `spec:<name>`). */
export const SKU_COLUMNS = ['sku_code', 'sku_price', 'sku_stock'] as const;
export const SPEC_PREFIX = 'spec:';
/** A category path's separator (`Shoes > Running`) and the images cell's (`a.jpg | b.jpg`). */
export const PATH_SEPARATOR = ' > ';
export const IMAGE_SEPARATOR = ' | ';

const KNOWN = new Set<string>([...ITEM_COLUMNS, ...SKU_COLUMNS]);

/** Where in the file a problem is: the row (the header is 1; for JSON Lines the line) and the column or field. */
export interface FileProblem {
  row: number;
  field: string | null;
  message: string;
}

/** The header's problems: unknown, empty or repeated columns, no `handle` (all at row 1). */
export function headerProblems(columns: readonly string[]): FileProblem[] {
  const problems: FileProblem[] = [];
  const unknown = columns.filter((c) => !KNOWN.has(c) && !(c.startsWith(SPEC_PREFIX) && c.length > SPEC_PREFIX.length));
  if (unknown.length) {
    problems.push({
      row: 1,
      field: unknown.join(', '),
      message: `unknown column${unknown.length > 1 ? 's' : ''} ${unknown.map((c) => `"${c}"`).join(', ')}; the columns are ${[...ITEM_COLUMNS, ...SKU_COLUMNS].join(', ')} and spec:<name>`,
    });
  }
  const seen = new Set<string>();
  for (const c of columns) {
    if (seen.has(c)) problems.push({ row: 1, field: c, message: `column "${c}" appears more than once` });
    seen.add(c);
  }
  if (!columns.includes('handle')) problems.push({ row: 1, field: 'handle', message: 'the file has no handle column' });
  return problems;
}

/** An item as a file gives it: only the fields the file has (an absent one leaves the stored value). */
export interface FileItem {
  handle?: unknown;
  name?: unknown;
  description?: unknown;
  /** A path of names, root first. */
  category?: string[] | null;
  status?: unknown;
  publishAt?: unknown;
  unpublishAt?: unknown;
  price?: unknown;
  stock?: unknown;
  images?: unknown;
  skus?: unknown;
}

/** A field of FileItem, and where its problems are reported. */
export interface FieldOrigin {
  /** The file row of the item field, or of each SKU (`skus[i]` → rows[i]). */
  itemRow: number;
  skuRows: number[];
  /** The file's name of a field: a CSV column, or the JSON Lines key. */
  column(field: string): string;
}

/** One staged row: its number in the file and its cells (CSV: column → text; JSON Lines: the parsed line). */
export interface StagedRow {
  rowNo: number;
  cells: Record<string, unknown>;
}

/**
 * Whether a file's `handle` value names an item: a string that is not blank. The one rule of both
 * formats (§13.1: `handle` required) — staging groups rows by it (a row without one is an item of its
 * own) and planning fails such an item, whether its CSV cell was empty or its JSON line had no key.
 */
export const hasHandle = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';

const cell = (row: StagedRow, column: string): string => {
  const v = row.cells[column];
  return typeof v === 'string' ? v : '';
};

/**
 * `Shoes > Running` → ['Shoes', 'Running']; empty → null. Split at ` > ` exactly, as export joins: a
 * category named `A>B` (no spaces) comes back whole.
 */
export const categoryPath = (text: string): string[] | null => {
  const parts = text
    .split(PATH_SEPARATOR)
    .map((p) => p.trim())
    .filter((p) => p !== '');
  return parts.length ? parts : null;
};

const CSV_FIELD_OF: Record<string, string> = {
  publishAt: 'publish_at',
  unpublishAt: 'unpublish_at',
  categoryId: 'category',
  skuCode: 'sku_code',
};

/**
 * An item from its CSV rows (in file order): the item fields from the first row, checked against
 * every later row that repeats one; one SKU per row with a SKU cell. `problems` are row-level.
 */
export function itemFromCsvRows(
  rows: StagedRow[],
  columns: readonly string[],
): { item: FileItem; origin: FieldOrigin; problems: FileProblem[] } {
  const first = rows[0]!;
  const has = new Set(columns);
  const problems: FileProblem[] = [];
  for (const row of rows.slice(1)) {
    for (const column of ITEM_COLUMNS) {
      if (!has.has(column)) continue;
      const value = cell(row, column);
      if (value !== '' && value !== cell(first, column)) {
        problems.push({
          row: row.rowNo,
          field: column,
          message: `differs from the item's first row (row ${first.rowNo}); later rows may leave it empty`,
        });
      }
    }
  }
  const item: FileItem = {};
  const text = (column: string) => cell(first, column);
  const optionalText = (column: string) => (text(column) === '' ? null : text(column));
  if (has.has('handle')) item.handle = text('handle');
  if (has.has('name')) item.name = text('name');
  if (has.has('description')) item.description = text('description');
  if (has.has('category')) item.category = categoryPath(text('category'));
  if (has.has('status')) item.status = optionalText('status');
  if (has.has('publish_at')) item.publishAt = optionalText('publish_at');
  if (has.has('unpublish_at')) item.unpublishAt = optionalText('unpublish_at');
  if (has.has('price')) item.price = optionalText('price') ?? undefined;
  if (has.has('stock')) item.stock = integerCell(text('stock'));
  if (has.has('images')) {
    item.images = text('images')
      .split(IMAGE_SEPARATOR)
      .map((u) => u.trim())
      .filter((u) => u !== '');
  }
  const specColumns = columns.filter((c) => c.startsWith(SPEC_PREFIX));
  const skuColumns = [...SKU_COLUMNS.filter((c) => has.has(c)), ...specColumns];
  const skuRows: number[] = [];
  if (skuColumns.length) {
    const skus: unknown[] = [];
    for (const row of rows) {
      if (skuColumns.every((c) => cell(row, c) === '')) continue;
      const specs: Record<string, string> = {};
      for (const c of specColumns) if (cell(row, c) !== '') specs[c.slice(SPEC_PREFIX.length)] = cell(row, c);
      skus.push({
        skuCode: cell(row, 'sku_code') === '' ? null : cell(row, 'sku_code'),
        specs,
        price: cell(row, 'sku_price') === '' ? undefined : cell(row, 'sku_price'),
        stock: cell(row, 'sku_stock') === '' ? 0 : integerCell(cell(row, 'sku_stock')),
      });
      skuRows.push(row.rowNo);
    }
    item.skus = skus;
  }
  const origin: FieldOrigin = {
    itemRow: first.rowNo,
    skuRows,
    column: (field) => {
      if (field === 'price' || field === 'stock' || field === 'specs') return field;
      return CSV_FIELD_OF[field] ?? field;
    },
  };
  return { item, origin, problems };
}

/** A whole number as a cell holds it; anything else is passed on as text for the rules to refuse. */
const integerCell = (text: string): unknown => (text === '' ? 0 : /^-?\d+$/.test(text.trim()) ? Number(text) : text);

/** Keys of a JSON Lines item that are the stored item's own and ignored on import (export writes them). */
const READ_ONLY_KEYS = new Set(['id', 'version', 'created_at', 'updated_at', 'category_id']);
const JSON_KEYS: Record<string, keyof FileItem> = {
  handle: 'handle',
  name: 'name',
  description: 'description',
  category: 'category',
  status: 'status',
  publish_at: 'publishAt',
  unpublish_at: 'unpublishAt',
  price: 'price',
  stock: 'stock',
  images: 'images',
  skus: 'skus',
};

/** An item from its JSON Lines line (REST names, `category` a path string). */
export function itemFromJsonLine(row: StagedRow): { item: FileItem; origin: FieldOrigin; problems: FileProblem[] } {
  const problems: FileProblem[] = [];
  const item: FileItem = {};
  for (const [key, value] of Object.entries(row.cells)) {
    if (READ_ONLY_KEYS.has(key)) continue;
    const field = JSON_KEYS[key];
    if (!field) {
      problems.push({ row: row.rowNo, field: key, message: 'is not a field of an item' });
      continue;
    }
    if (field === 'category') {
      if (value !== null && typeof value !== 'string') {
        problems.push({ row: row.rowNo, field: key, message: 'must be a path of category names (`Shoes > Running`)' });
      } else item.category = value === null ? null : categoryPath(value);
    } else if (field === 'skus' && Array.isArray(value)) {
      item.skus = value.map((s) =>
        s && typeof s === 'object' && !Array.isArray(s)
          ? {
              skuCode: (s as Record<string, unknown>).sku_code,
              specs: (s as Record<string, unknown>).specs,
              price: (s as Record<string, unknown>).price,
              stock: (s as Record<string, unknown>).stock,
            }
          : s,
      );
    } else if (field === 'images' && Array.isArray(value)) {
      item.images = value.map((m) =>
        m && typeof m === 'object' && !Array.isArray(m)
          ? { url: (m as Record<string, unknown>).url, sortOrder: (m as Record<string, unknown>).sort_order }
          : m,
      );
    } else {
      item[field] = value as never;
    }
  }
  const origin: FieldOrigin = {
    itemRow: row.rowNo,
    skuRows: [],
    column: (field) => CSV_FIELD_OF[field] ?? field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`),
  };
  return { item, origin, problems };
}

/** A stored item as the files write it (money as canonical decimal text, times as ISO 8601). */
export interface StoredItem {
  id: number;
  handle: string;
  name: string;
  description: string;
  categoryId: number;
  categoryPath: string[];
  status: string;
  publishAt: string | null;
  unpublishAt: string | null;
  price: string;
  stock: number;
  version: number;
  createdAt: string;
  updatedAt: string;
  skus: Array<{ id: number; skuCode: string | null; specs: Record<string, string>; price: string; stock: number }>;
  images: Array<{ id: number; url: string; sortOrder: number }>;
}

/** The CSV header for items whose SKUs name `specNames`. */
export const csvHeader = (specNames: readonly string[]): string[] => [
  ...ITEM_COLUMNS,
  ...SKU_COLUMNS,
  ...specNames.map((n) => `${SPEC_PREFIX}${n}`),
];

/** An item's CSV rows under `header`: the item's fields on its first row, one row per SKU (one row without). */
export function csvRows(item: StoredItem, header: readonly string[]): string[][] {
  const itemCells: Record<string, string> = {
    handle: item.handle,
    name: item.name,
    description: item.description,
    category: item.categoryPath.join(PATH_SEPARATOR),
    status: item.status,
    publish_at: item.publishAt ?? '',
    unpublish_at: item.unpublishAt ?? '',
    price: item.price,
    stock: String(item.stock),
    images: item.images.map((m) => m.url).join(IMAGE_SEPARATOR),
  };
  const skus = item.skus.length ? item.skus : [undefined];
  return skus.map((sku, i) =>
    header.map((column) => {
      // Every row names its item; the other item fields are on the first row only.
      if (column === 'handle') return item.handle;
      if (column in itemCells) return i === 0 ? itemCells[column]! : '';
      if (!sku) return '';
      if (column === 'sku_code') return sku.skuCode ?? '';
      if (column === 'sku_price') return sku.price;
      if (column === 'sku_stock') return String(sku.stock);
      return sku.specs[column.slice(SPEC_PREFIX.length)] ?? '';
    }),
  );
}

/** An item as its JSON Lines line: the admin Item's REST names, `category` as a path string. */
export function jsonLine(item: StoredItem): string {
  return JSON.stringify({
    id: item.id,
    handle: item.handle,
    name: item.name,
    description: item.description,
    category: item.categoryPath.join(PATH_SEPARATOR),
    status: item.status,
    publish_at: item.publishAt,
    unpublish_at: item.unpublishAt,
    price: Number(item.price),
    stock: item.stock,
    skus: item.skus.map((s) => ({
      id: s.id,
      sku_code: s.skuCode,
      specs: s.specs,
      price: Number(s.price),
      stock: s.stock,
    })),
    images: item.images.map((m) => ({ id: m.id, url: m.url, sort_order: m.sortOrder })),
    version: item.version,
    created_at: item.createdAt,
    updated_at: item.updatedAt,
  });
}

/**
 * The statement that reads stored items as StoredItem JSON, shared by export and the import's
 * comparison with what is stored: it ends at `FROM items i`, and each caller adds its condition on `i`
 * and its order (`WHERE i.id = ANY($1::int[]) ORDER BY i.id`). `path` is the category's path of names,
 * root first.
 */
export const STORED_ITEMS_SQL = `
  WITH RECURSIVE paths AS (
    SELECT id, ARRAY[name]::text[] AS path FROM categories WHERE parent_id IS NULL
    UNION ALL
    SELECT c.id, p.path || c.name::text FROM categories c JOIN paths p ON c.parent_id = p.id
  )
  SELECT json_build_object(
    'id', i.id, 'handle', i.handle, 'name', i.name, 'description', i.description,
    'categoryId', i.category_id,
    'categoryPath', COALESCE((SELECT path FROM paths WHERE paths.id = i.category_id), ARRAY[]::text[]),
    'status', i.status::text,
    'publishAt', ${isoSql('i.publish_at')},
    'unpublishAt', ${isoSql('i.unpublish_at')},
    'price', i.price::text, 'stock', i.stock, 'version', i.version,
    'createdAt', ${isoSql('i.created_at')},
    'updatedAt', ${isoSql('i.updated_at')},
    'skus', COALESCE((SELECT json_agg(json_build_object('id', s.id, 'skuCode', s.sku_code, 'specs', s.specs,
                                                        'price', s.price::text, 'stock', s.stock) ORDER BY s.id)
                        FROM skus s WHERE s.item_id = i.id), '[]'),
    'images', COALESCE((SELECT json_agg(json_build_object('id', m.id, 'url', m.url, 'sortOrder', m.sort_order)
                                        ORDER BY m.sort_order, m.id)
                          FROM item_images m WHERE m.item_id = i.id), '[]')
  ) AS item
  FROM items i`;
