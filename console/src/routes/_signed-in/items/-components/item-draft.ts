/**
 * The item editor's draft: the form's text as typed, made from an item and turned back into the
 * service's input — plus the SKU table generated from spec names × values and the schedule's
 * `datetime-local` text in the admin's time zone. Pure functions, no React.
 */
import type { ItemStatus } from '../../../../ui/status-name.ts';
import { isMoney } from './money.ts';

/** What a draft is made from: the fields of an item as the editor reads it (its `ItemFields` fragment). */
export interface DraftSource {
  name: string;
  description: string;
  categoryId: number;
  price: number;
  stock: number;
  status: ItemStatus;
  handle: string;
  publishAt: string | null;
  unpublishAt: string | null;
  images: ReadonlyArray<{ id: number; url: string; sortOrder: number }>;
  skus: ReadonlyArray<{ skuCode: string | null; specs: Record<string, unknown>; price: number; stock: number }>;
}

export interface SkuDraft {
  key: string;
  skuCode: string;
  specs: Record<string, string>;
  price: string;
  stock: string;
}

/** A spec name and its values as typed: `黑, 白` (commas, Chinese commas or 、 between values). */
export interface SpecAxis {
  key: string;
  name: string;
  values: string;
}

export interface ImageDraft {
  key: string;
  url: string;
}

export interface ItemDraft {
  name: string;
  description: string;
  categoryId: string;
  price: string;
  stock: string;
  status: ItemStatus;
  handle: string;
  /** `datetime-local` text in the admin's time zone; empty: no schedule on that side. */
  publishAt: string;
  unpublishAt: string;
  images: ImageDraft[];
  axes: SpecAxis[];
  skus: SkuDraft[];
}

let counter = 0;
/** A key for a row of a list the admin edits (React's key; stable while the row moves). */
export const newKey = (): string => `row-${++counter}`;

const moneyText = (value: number): string => value.toFixed(2);

const pad = (n: number) => String(n).padStart(2, '0');

/** An ISO instant as `datetime-local` text in the browser's (the admin's) time zone. */
export function localDateTime(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** `datetime-local` text, read in the admin's time zone, as an ISO instant; empty: null. */
export function isoOfLocal(local: string): string | null {
  if (!local) return null;
  const d = new Date(local);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/** The admin's time zone, as the schedule's hint names it. */
export const timeZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone;

const splitValues = (values: string): string[] => [
  ...new Set(
    values
      .split(/[,，、]/)
      .map((v) => v.trim())
      .filter(Boolean),
  ),
];

/** The spec names and values an item's SKUs use, in the order they first appear. */
export function axesOf(skus: ReadonlyArray<{ specs: Record<string, unknown> }>): SpecAxis[] {
  const byName = new Map<string, string[]>();
  for (const sku of skus) {
    for (const [name, value] of Object.entries(sku.specs)) {
      const values = byName.get(name) ?? [];
      if (typeof value === 'string' && !values.includes(value)) values.push(value);
      byName.set(name, values);
    }
  }
  return [...byName].map(([name, values]) => ({ key: newKey(), name, values: values.join(', ') }));
}

export const emptyDraft = (): ItemDraft => ({
  name: '',
  description: '',
  categoryId: '',
  price: '',
  stock: '0',
  status: 'draft',
  handle: '',
  publishAt: '',
  unpublishAt: '',
  images: [],
  axes: [{ key: newKey(), name: '', values: '' }],
  skus: [],
});

export function draftOf(item: DraftSource): ItemDraft {
  return {
    name: item.name,
    description: item.description,
    categoryId: String(item.categoryId),
    price: moneyText(item.price),
    stock: String(item.stock),
    status: item.status,
    handle: item.handle,
    publishAt: localDateTime(item.publishAt),
    unpublishAt: localDateTime(item.unpublishAt),
    images: [...item.images]
      .sort((a, b) => a.sortOrder - b.sortOrder || a.id - b.id)
      .map((image) => ({ key: newKey(), url: image.url })),
    axes: item.skus.length > 0 ? axesOf(item.skus) : [{ key: newKey(), name: '', values: '' }],
    skus: item.skus.map((sku) => ({
      key: newKey(),
      skuCode: sku.skuCode ?? '',
      specs: Object.fromEntries(Object.entries(sku.specs).map(([k, v]) => [k, String(v)])),
      price: moneyText(sku.price),
      stock: String(sku.stock),
    })),
  };
}

const sameSpecs = (a: Record<string, string>, b: Record<string, string>) => {
  const keys = Object.keys(a).filter((k) => a[k]);
  return keys.length === Object.keys(b).filter((k) => b[k]).length && keys.every((k) => a[k] === b[k]);
};

/** At most this many SKUs per item (contract §4.4). */
export const MAX_SKUS = 100;

/**
 * Every combination of the axes' values (颜色: 黑, 白 × 尺码: 40, 41, 42 → 6 rows), in order; a row
 * whose specs an existing SKU already has keeps that SKU's code, price and stock; new rows take the
 * item's price and stock 0. `count` is how many rows the axes make, also when that is over MAX_SKUS
 * (then `rows` is empty: nothing is generated).
 */
export function generateSkus(
  axes: readonly SpecAxis[],
  existing: readonly SkuDraft[],
  itemPrice: string,
): { rows: SkuDraft[]; count: number } {
  const named = axes
    .map((axis) => ({ name: axis.name.trim(), values: splitValues(axis.values) }))
    .filter((axis) => axis.name && axis.values.length > 0);
  if (named.length === 0) return { rows: [], count: 0 };
  const count = named.reduce((n, axis) => n * axis.values.length, 1);
  if (count > MAX_SKUS) return { rows: [], count };
  let combinations: Array<Record<string, string>> = [{}];
  for (const axis of named) {
    combinations = combinations.flatMap((specs) => axis.values.map((value) => ({ ...specs, [axis.name]: value })));
  }
  const rows = combinations.map((specs) => {
    const kept = existing.find((sku) => sameSpecs(sku.specs, specs));
    return kept
      ? { ...kept, specs }
      : { key: newKey(), skuCode: '', specs, price: isMoney(itemPrice.trim()) ? itemPrice.trim() : '', stock: '0' };
  });
  return { rows, count };
}

/** Moves entry `from` of a list to `to`; the same list when either is out of range. */
export function moved<T>(list: readonly T[], from: number, to: number): T[] {
  if (from < 0 || to < 0 || from >= list.length || to >= list.length) return [...list];
  const next = [...list];
  const [entry] = next.splice(from, 1);
  next.splice(to, 0, entry as T);
  return next;
}

const STOCK = /^\d{1,10}$/;
const INT32_MAX = 2147483647;
/** A stock as the API takes it: a whole number 0..2147483647. */
export const isStock = (text: string) => STOCK.test(text) && Number(text) <= INT32_MAX;

/** Problems the form finds before sending, by the service's field names (so they show where its own would). */
export interface DraftMessages {
  required: string;
  money: string;
  stock: string;
  category: string;
}

export function draftProblems(draft: ItemDraft, messages: DraftMessages): Record<string, string> {
  const problems: Record<string, string> = {};
  if (!draft.name.trim()) problems.name = messages.required;
  if (!draft.categoryId) problems.categoryId = messages.category;
  if (!isMoney(draft.price.trim())) problems.price = messages.money;
  if (!isStock(draft.stock.trim())) problems.stock = messages.stock;
  draft.skus.forEach((sku, i) => {
    if (sku.price.trim() && !isMoney(sku.price.trim())) problems[`skus[${i}].price`] = messages.money;
    if (sku.stock.trim() && !isStock(sku.stock.trim())) problems[`skus[${i}].stock`] = messages.stock;
  });
  return problems;
}

/** The fields every save sends (`skus` and `images` as whole lists), in the service's input shape. */
export function inputOf(draft: ItemDraft) {
  const handle = draft.handle.trim();
  return {
    name: draft.name.trim(),
    description: draft.description,
    categoryId: Number(draft.categoryId),
    // Exact: a number of at most two fractional digits travels in JSON as the same decimal.
    price: Number(draft.price.trim()),
    stock: Number(draft.stock.trim()),
    status: draft.status,
    publishAt: isoOfLocal(draft.publishAt),
    unpublishAt: isoOfLocal(draft.unpublishAt),
    // Left empty: made from the name on creation, kept on a change.
    ...(handle ? { handle } : {}),
    // Every row, an empty one too: the service's problem with it names its place (`images[2].url`).
    images: draft.images.map((image, sortOrder) => ({ url: image.url.trim(), sortOrder })),
    skus: draft.skus.map((sku) => ({
      skuCode: sku.skuCode.trim() || null,
      specs: Object.fromEntries(
        Object.entries(sku.specs)
          .map(([name, value]) => [name.trim(), value.trim()])
          .filter(([name, value]) => name && value),
      ),
      // Left empty: the item's price.
      price: sku.price.trim() ? Number(sku.price.trim()) : null,
      stock: sku.stock.trim() ? Number(sku.stock.trim()) : 0,
    })),
  };
}
