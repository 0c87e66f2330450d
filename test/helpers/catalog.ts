/**
 * Builders and expectations for catalogue tests: categories and items are real rows written with
 * Prisma (SKUs and images one by one, so their ids follow the order given), and the REST / GraphQL
 * shapes the contract (§4, §5) promises for them are computed from what the database holds.
 */
import type { Prisma } from '../../src/generated/prisma/client.ts';
import { indexItems } from '../../src/search/documents.ts';
import type { TestApp } from './test-app.ts';

/** What an item answer shows, read through Prisma: its category, SKUs by id, images by sort order then id. */
export const ITEM_INCLUDE = {
  category: true,
  skus: { orderBy: { id: 'asc' } },
  images: { orderBy: [{ sortOrder: 'asc' }, { id: 'asc' }] },
} as const satisfies Prisma.ItemInclude;

export interface CategorySpec {
  name?: string;
  parentId?: number | null;
  sortOrder?: number;
}

export interface SkuSpec {
  skuCode?: string | null;
  specs?: Record<string, string>;
  /** Decimal string such as '19.90'; defaults to the item price. */
  price?: string;
  stock?: number;
}

export interface ImageSpec {
  url: string;
  sortOrder?: number;
}

export interface ItemSpec {
  categoryId: number;
  name?: string;
  description?: string;
  /** Decimal string such as '19.90' (NUMERIC(10,2)). */
  price?: string;
  stock?: number;
  createdAt?: Date | string;
  skus?: SkuSpec[];
  images?: Array<string | ImageSpec>;
}

let sequence = 0;
const nextLabel = (prefix: string) => `${prefix} ${++sequence}`;

/** Inserts a category (top-level unless `parentId`). */
export function makeCategory(app: TestApp, spec: CategorySpec = {}) {
  return app.db.prisma.category.create({
    data: { name: spec.name ?? nextLabel('Category'), parentId: spec.parentId ?? null, sortOrder: spec.sortOrder ?? 0 },
  });
}

/** Reads an item with everything an Item response holds, in the contract's order. */
export function loadItem(app: TestApp, id: number) {
  return app.db.prisma.item.findUniqueOrThrow({
    where: { id },
    include: ITEM_INCLUDE,
  });
}

export type StoredItem = Awaited<ReturnType<typeof loadItem>>;

/** Inserts an item, then its SKUs and images in the order given, and returns it as stored. */
export async function makeItem(app: TestApp, spec: ItemSpec): Promise<StoredItem> {
  const prisma = app.db.prisma;
  const price = spec.price ?? '19.90';
  const item = await prisma.item.create({
    data: {
      name: spec.name ?? nextLabel('Item'),
      ...(spec.description !== undefined ? { description: spec.description } : {}),
      categoryId: spec.categoryId,
      price,
      stock: spec.stock ?? 10,
      ...(spec.createdAt !== undefined ? { createdAt: new Date(spec.createdAt) } : {}),
    },
  });
  for (const sku of spec.skus ?? []) {
    await prisma.sku.create({
      data: {
        itemId: item.id,
        skuCode: sku.skuCode ?? null,
        specs: sku.specs ?? {},
        price: sku.price ?? price,
        stock: sku.stock ?? 0,
      },
    });
  }
  for (const [i, image] of (spec.images ?? []).entries()) {
    const { url, sortOrder } = typeof image === 'string' ? { url: image, sortOrder: i } : image;
    await prisma.itemImage.create({ data: { itemId: item.id, url, sortOrder: sortOrder ?? i } });
  }
  // What the service's own writes do in their transaction: the item's search document.
  await indexItems(prisma, [item.id]);
  return loadItem(app, item.id);
}

/** Inserts `count` plain items in one category (default names and prices). */
export async function makeItems(app: TestApp, categoryId: number, count: number, spec: Partial<ItemSpec> = {}) {
  const items: StoredItem[] = [];
  for (let i = 0; i < count; i++) items.push(await makeItem(app, { ...spec, categoryId }));
  return items;
}

/** Ids of the stored items in listing order (created_at desc, then id desc), optionally filtered. */
export async function idsNewestFirst(app: TestApp, categoryIds?: number[]): Promise<number[]> {
  const rows = await app.db.prisma.item.findMany({
    where: categoryIds ? { categoryId: { in: categoryIds } } : {},
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    select: { id: true },
  });
  return rows.map((r) => r.id);
}

/** A NUMERIC(10,2) value as the JSON number the contract sends (exact to the cent). */
const moneyNumber = (value: { toString(): string }) => Number(value.toString());

/** The REST Item (contract §4) a stored item must be served as. */
export function restItemOf(item: StoredItem) {
  return {
    id: item.id,
    name: item.name,
    description: item.description,
    category_id: item.categoryId,
    category: { id: item.category.id, name: item.category.name },
    price: moneyNumber(item.price),
    stock: item.stock,
    skus: item.skus.map((s) => ({
      id: s.id,
      sku_code: s.skuCode,
      specs: s.specs,
      price: moneyNumber(s.price),
      stock: s.stock,
    })),
    images: item.images.map((i) => ({ id: i.id, url: i.url, sort_order: i.sortOrder })),
    status: item.status,
    publish_at: item.publishAt?.toISOString() ?? null,
    unpublish_at: item.unpublishAt?.toISOString() ?? null,
    handle: item.handle,
    version: item.version,
    created_at: item.createdAt.toISOString(),
    updated_at: item.updatedAt.toISOString(),
  };
}

/** Every Item field GraphQL offers (contract §5), for parity checks. */
export const ITEM_GQL_FIELDS = /* GraphQL */ `
  id name description categoryId category { id name parentId sortOrder } price stock
  skus { id skuCode specs price stock } images { id url sortOrder }
  status publishAt unpublishAt handle version createdAt updatedAt`;

/**
 * A REST Item renamed to GraphQL's camelCase, with the category's extra GraphQL fields taken from
 * `category` (REST shows only its id and name).
 */
export function graphqlItemOfRest(rest: any, category: { parentId: number | null; sortOrder: number }) {
  return {
    id: rest.id,
    name: rest.name,
    description: rest.description,
    categoryId: rest.category_id,
    category: {
      id: rest.category.id,
      name: rest.category.name,
      parentId: category.parentId,
      sortOrder: category.sortOrder,
    },
    price: rest.price,
    stock: rest.stock,
    skus: rest.skus.map((s: any) => ({
      id: s.id,
      skuCode: s.sku_code,
      specs: s.specs,
      price: s.price,
      stock: s.stock,
    })),
    images: rest.images.map((i: any) => ({ id: i.id, url: i.url, sortOrder: i.sort_order })),
    status: rest.status,
    publishAt: rest.publish_at,
    unpublishAt: rest.unpublish_at,
    handle: rest.handle,
    version: rest.version,
    createdAt: rest.created_at,
    updatedAt: rest.updated_at,
  };
}

/** The `field` of every entry in a problem's (or GraphQL error's) `errors`. */
export const errorFields = (errors: Array<{ field: string }> | undefined) => (errors ?? []).map((e) => e.field);

/** An ISO 8601 UTC timestamp with milliseconds, as the contract writes them. */
export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Inserts `count` bare items (no SKUs, no images) in one statement; they share one created_at. */
export async function makeBulkItems(app: TestApp, categoryId: number, count: number, namePrefix = 'Bulk item') {
  await app.db.prisma.item.createMany({
    data: Array.from({ length: count }, (_, i) => ({
      name: `${namePrefix} ${i + 1}`,
      categoryId,
      price: '1.00',
      stock: 1,
    })),
  });
}
