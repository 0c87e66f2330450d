/**
 * The catalogue's item rules: the public list (contract §4.1) and the admin writes (§4.4, §5).
 * Reads go through item.repository.ts (one statement each); writes through Prisma, in transactions.
 * Inputs arrive parsed (item.schema.ts, attached to the GraphQL inputs).
 */
import { actorLabel } from '../auth/request-auth.ts';
import { isForeignKeyViolation, isUniqueViolationOn } from '../db/prisma-errors.ts';
import { notFound, validationFailed } from '../errors/app-error.ts';
import type { RequestContext } from '../request-context.ts';
import { type Facets, findFacets } from '../search/facets.ts';
import type { ItemFilter } from '../search/item-query.ts';
import { compiledKeyword } from '../search/keyword.ts';
import { type Page, pageOf, pageWindow } from '../validation/paging.ts';
import { ITEM_ROW_JSON } from './catalog-json.ts';
import { catalogWrite, catalogWriteAll, type Tx } from './catalog-write.ts';
import { freeHandleOfName } from './handles.ts';
import { createOnce } from './idempotency.ts';
import { findItemJson, findItemPageJson, type ItemRow } from './item.repository.ts';
import { type CreateItemInput, type ListItemsInput, scheduleError, type UpdateItemInput } from './item.schema.ts';
import { lockItems } from './item-status.service.ts';

/** One page of the public list; a page past the end is empty, with the right total. */
export async function listItemPage(ctx: RequestContext, input: ListItemsInput): Promise<ItemPage> {
  const { page, limit, total, items, filter } = await readItemPage(ctx, input, ITEM_ROW_JSON);
  return { ...pageOf(JSON.parse(items) as ItemRow[], { page, limit }, total), filter };
}

/**
 * listItemPage with the page's items as one JSON array text, each in the shape `itemJson` builds
 * (catalog-json.ts) — for an answer PostgreSQL writes itself (rest/run.ts: rendered reads).
 */
export async function readItemPage(ctx: RequestContext, input: ListItemsInput, itemJson: string) {
  const { page, limit, sort } = input;
  const filter = await itemFilterOf(ctx, input);
  // A filter's total is the costly part of a page (a count over every match) and the same on every
  // page and in every order: it is cached with the catalogue's answers, under the same invalidation.
  const cache = ctx.services.catalogCache;
  const totalKey = JSON.stringify([
    input.categoryId,
    input.keyword,
    input.minPrice,
    input.maxPrice,
    input.inStock,
    input.specs,
  ]);
  const generation = cache.generation;
  const known = cache.total(totalKey);
  const { offset } = pageWindow({ page, limit });
  const read = () => findItemPageJson(ctx.catalogReads, filter, sort ?? 'newest', limit, offset, itemJson, known);
  // Spec filters test every SKU of every match: a costly search, bounded per client (search-slots.ts).
  const { total, items } = filter.specs?.length ? await ctx.services.searchSlots.run(ctx.clientIp, read) : await read();
  if (known === undefined) cache.storeTotal(totalKey, total, generation);
  if (input.keyword && total === 0) ctx.services.metrics.searchZeroResults.inc();
  return { page, limit, total, items, filter };
}

/** The facets of a page (contract §9.2): they count over every match, a costly search (search-slots.ts). */
export const itemFacets = (ctx: RequestContext, page: ItemPage): Promise<Facets> =>
  ctx.services.searchSlots.run(ctx.clientIp, () => findFacets(ctx.catalogReads, page.filter));

/** One item as JSON text in the shape `itemJson` builds, read as the `item` query reads it; none: null. */
export const readItemJson = (ctx: RequestContext, id: number, itemJson: string): Promise<string | null> =>
  findItemJson(ctx.catalogReads, id, itemJson);

/** A page of items, with the filter it was read with (the facets count under the same one). */
export type ItemPage = Page<ItemRow> & { filter: ItemFilter };

/**
 * The list arguments as the filter search runs: the keyword compiled with the current synonym groups,
 * and forgiven (contract §9.6: homophones, typos, joined words) against the catalogue's vocabulary.
 */
export async function itemFilterOf(ctx: RequestContext, input: ListItemsInput): Promise<ItemFilter> {
  const { synonyms, forgiving } = ctx.services;
  return {
    categoryId: input.categoryId ?? undefined,
    search: input.keyword
      ? await forgiving.forgive(ctx.catalogReads, compiledKeyword(input.keyword, await synonyms.get(ctx.catalogReads)))
      : undefined,
    minPrice: input.minPrice ?? undefined,
    maxPrice: input.maxPrice ?? undefined,
    inStock: input.inStock ? true : undefined,
    specs: input.specs ?? undefined,
  };
}

/** A category id that does not exist, as the field error the contract asks for. */
const unknownCategory = () => validationFailed([{ field: 'categoryId', message: 'is not an existing category' }]);

async function assertCategoryExists(tx: Tx, categoryId: number): Promise<void> {
  const found = await tx.category.findUnique({ where: { id: categoryId }, select: { id: true } });
  if (!found) throw unknownCategory();
}

/** A category deleted between our check and the insert shows up as a foreign-key violation. */
const asCategoryError = (err: unknown): unknown => (isForeignKeyViolation(err) ? unknownCategory() : err);

const skuRows = (skus: CreateItemInput['skus'], itemPrice: string) =>
  skus.map((s) => ({ skuCode: s.skuCode ?? null, specs: s.specs, price: s.price ?? itemPrice, stock: s.stock }));

const takenHandle = () => validationFailed([{ field: 'handle', message: 'is already taken by another item' }]);

/** A given handle that another item (not `self`) has; handles are stored in lower case, as given ones arrive. */
async function assertHandleFree(tx: Tx, handle: string, self?: number): Promise<void> {
  const holder = await tx.item.findUnique({ where: { handle }, select: { id: true } });
  if (holder && holder.id !== self) throw takenHandle();
}

/**
 * A write that sets a handle (a create, an update with one) takes the catalogue lock before it
 * (catalog-write.ts lockCatalogue), so the handle found free is still free at the write — unless a row
 * written without the service took it meanwhile: the unique index refuses it, and the write is tried
 * again (a generated handle) or answered as taken (a given one).
 */
const HANDLE_ATTEMPTS = 3;

/** Writes a new item with its SKUs and images; returns its id. */
async function insertItem(tx: Tx, input: CreateItemInput): Promise<number> {
  await assertCategoryExists(tx, input.categoryId);
  if (input.handle !== undefined) await assertHandleFree(tx, input.handle);
  const item = await tx.item.create({
    data: {
      name: input.name,
      description: input.description,
      categoryId: input.categoryId,
      price: input.price,
      stock: input.stock,
      status: input.status,
      publishAt: input.publishAt,
      unpublishAt: input.unpublishAt,
      handle: input.handle ?? (await freeHandleOfName(tx, input.name)),
      skus: { createMany: { data: skuRows(input.skus, input.price) } },
      images: { createMany: { data: input.images } },
    },
    select: { id: true },
  });
  return item.id;
}

/** Creates an item, its SKUs and images in one transaction; with a key, at most once per admin and key. */
export async function createItem(
  ctx: RequestContext,
  input: CreateItemInput,
  idempotencyKey?: string | null,
): Promise<number> {
  const { actor } = await ctx.auth.admin();
  // With a key, the transaction also records it, and a retry answers with the first request's item.
  const transaction = idempotencyKey
    ? (insert: (tx: Tx) => Promise<number>) => createOnce(ctx, actorLabel(actor), idempotencyKey, input, insert)
    : undefined;
  for (let attempt = 1; ; attempt++) {
    try {
      return await catalogWrite(ctx, CREATED, (tx) => insertItem(tx, input), transaction);
    } catch (err) {
      if (!isUniqueViolationOn(err, 'handle')) throw asCategoryError(err);
      if (input.handle !== undefined) throw takenHandle();
      if (attempt === HANDLE_ATTEMPTS) throw err;
    }
  }
}

const CREATED = { action: 'item.create', idOf: (id: number) => id, search: (id: number) => ({ item: id }) } as const;
const UPDATED = { action: 'item.update', idOf: (id: number) => id, search: (id: number) => ({ item: id }) } as const;
const DELETED = { action: 'item.delete', idOf: (id: number) => id } as const;

const readPriceAndSchedule = (tx: Tx, id: number) =>
  tx.item.findUnique({ where: { id }, select: { price: true, publishAt: true, unpublishAt: true } });

/**
 * Changes the given fields; `skus` / `images` replace the whole set. One transaction. With
 * `expectedVersion`, only while the item is at that version (else VERSION_CONFLICT, catalog-write.ts).
 */
export async function updateItem(
  ctx: RequestContext,
  id: number,
  input: UpdateItemInput,
  expectedVersion?: number,
): Promise<number> {
  try {
    const spec = { ...UPDATED, id, expectedVersion, setsHandle: input.handle !== undefined };
    return await catalogWrite(ctx, spec, async (tx) => {
      // The stored schedule and price, read only when the input needs them: a plain edit — a name, a
      // stock — reads nothing here, one round trip fewer. (The item exists: its version was claimed first.)
      let stored: Awaited<ReturnType<typeof readPriceAndSchedule>> = null;
      const current = async () => {
        stored ??= await readPriceAndSchedule(tx, id);
        if (!stored) throw notFound('item');
        return stored;
      };
      if (input.publishAt !== undefined || input.unpublishAt !== undefined) {
        const { publishAt, unpublishAt } = await current();
        // The schedule as it will be: a side not given keeps the stored value.
        const schedule = scheduleError(
          input.publishAt === undefined ? publishAt : input.publishAt,
          input.unpublishAt === undefined ? unpublishAt : input.unpublishAt,
        );
        if (schedule) throw validationFailed([schedule]);
      }
      if (input.categoryId !== undefined) await assertCategoryExists(tx, input.categoryId);
      if (input.handle !== undefined) await assertHandleFree(tx, input.handle, id);
      if (input.skus) {
        await tx.sku.deleteMany({ where: { itemId: id } });
        // A SKU without a price takes the item's (new or current) price.
        await tx.sku.createMany({
          data: skuRows(input.skus, input.price ?? (await current()).price.toFixed(2)).map((s) => ({
            ...s,
            itemId: id,
          })),
        });
      }
      if (input.images) {
        await tx.itemImage.deleteMany({ where: { itemId: id } });
        await tx.itemImage.createMany({ data: input.images.map((m) => ({ ...m, itemId: id })) });
      }
      await tx.item.update({
        where: { id },
        data: {
          name: input.name,
          description: input.description,
          categoryId: input.categoryId,
          price: input.price,
          stock: input.stock,
          status: input.status,
          publishAt: input.publishAt,
          unpublishAt: input.unpublishAt,
          handle: input.handle,
          updatedAt: new Date(),
        },
      });
      return id;
    });
  } catch (err) {
    throw isUniqueViolationOn(err, 'handle') ? takenHandle() : asCategoryError(err);
  }
}

/** The statement of an item's delete, shared by `deleteItem` and `deleteItems`: SKUs and images cascade. */
const deleteRow = (id: number) => async (tx: Tx) => {
  const { count } = await tx.item.deleteMany({ where: { id } });
  if (count === 0) throw notFound('item');
  return id;
};

/**
 * Deletes an item with its SKUs and images (they cascade); it vanishes from every read. With
 * `expectedVersion`, only while the item is at that version.
 */
export async function deleteItem(ctx: RequestContext, id: number, expectedVersion?: number): Promise<true> {
  await catalogWrite(ctx, { ...DELETED, id, expectedVersion }, deleteRow(id));
  return true;
}

/**
 * Deletes every item of `ids` (each once, 1..1000) in ONE transaction, each exactly as `deleteItem`
 * deletes it (its own `item.delete` entry); an unknown id → VALIDATION_FAILED on `ids`, nothing
 * deleted. Answers how many were deleted.
 */
export async function deleteItems(ctx: RequestContext, ids: number[]): Promise<number> {
  const deleted = await catalogWriteAll(
    ctx,
    async (tx) => void (await lockItems(tx, ids)),
    // In id order, the order the rows were locked in.
    [...ids].sort((a, b) => a - b).map((id) => ({ ...DELETED, id, write: deleteRow(id) })),
  );
  return deleted.length;
}
