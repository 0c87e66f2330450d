/**
 * The catalogue's item rules: the public list (contract §4.1) and the admin writes (§4.4, §5).
 * Reads go through item.repository.ts (one statement each); writes through Prisma, in transactions.
 */
import type { Database } from '../db/database.ts';
import { notFound, validationFailed } from '../errors/app-error.ts';
import { Prisma } from '../generated/prisma/client.ts';
import type { ServiceContext } from '../graphql/context.ts';
import { parseInput } from '../validation/parse-input.ts';
import { createOnce } from './idempotency.ts';
import { findItemPage, type ItemWithRelations } from './item.repository.ts';
import {
  createItemInput,
  idempotencyKey as idempotencyKeyRule,
  listItemsInput,
  updateItemInput,
  type CreateItemInput,
  type ListItemsInput,
} from './item.schema.ts';

type Tx = Prisma.TransactionClient;

export interface ItemPage {
  /** The page's items, newest first. */
  items: ItemWithRelations[];
  page: number;
  limit: number;
  /** Items matching the filters, on every page. */
  total: number;
  totalPages: number;
}

/** `%`, `_` and `\` are literal in a keyword (contract §4.1); ILIKE's escape character is `\`. */
export const likePattern = (keyword: string) => `%${keyword.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** One page of the public list; a page past the end is empty, with the right total. */
export async function listItemPage(db: Database, args: unknown): Promise<ItemPage> {
  const { page, limit, categoryId, keyword }: ListItemsInput = parseInput(listItemsInput, args);
  const filter = { categoryId, namePattern: keyword === undefined ? undefined : likePattern(keyword) };
  const { total, items } = await findItemPage(db.sql, filter, limit, (page - 1) * limit);
  return { items, page, limit, total, totalPages: Math.ceil(total / limit) };
}

/** A category id that does not exist, as the field error the contract asks for. */
const unknownCategory = () => validationFailed([{ field: 'categoryId', message: 'is not an existing category' }]);

async function assertCategoryExists(tx: Tx, categoryId: number): Promise<void> {
  const found = await tx.category.findUnique({ where: { id: categoryId }, select: { id: true } });
  if (!found) throw unknownCategory();
}

/** A category deleted between our check and the insert shows up as a foreign-key violation. */
function asCategoryError(err: unknown): unknown {
  return err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2003' ? unknownCategory() : err;
}

const skuRows = (skus: CreateItemInput['skus'], itemPrice: string) =>
  skus.map((s) => ({ skuCode: s.skuCode ?? null, specs: s.specs, price: s.price ?? itemPrice, stock: s.stock }));

/** Writes a new item with its SKUs and images; returns its id. */
async function insertItem(tx: Tx, input: CreateItemInput): Promise<number> {
  await assertCategoryExists(tx, input.categoryId);
  const item = await tx.item.create({
    data: {
      name: input.name,
      categoryId: input.categoryId,
      price: input.price,
      stock: input.stock,
      skus: { createMany: { data: skuRows(input.skus, input.price) } },
      images: { createMany: { data: input.images } },
    },
    select: { id: true },
  });
  return item.id;
}

/** Creates an item, its SKUs and images in one transaction; with a key, at most once per admin and key. */
export async function createItem(
  ctx: ServiceContext & { actingAdminId: number },
  args: { input: unknown; idempotencyKey?: unknown },
): Promise<number> {
  const input = parseInput(createItemInput, args.input);
  const key = parseInput(idempotencyKeyRule, args.idempotencyKey, 'graphql', ['idempotencyKey']);
  try {
    const id = key
      ? await createOnce(ctx, key, input, (tx) => insertItem(tx, input))
      : await ctx.db.prisma.$transaction((tx) => insertItem(tx, input));
    ctx.log.info({ item_id: id, by_admin: ctx.actingAdminId }, 'item created');
    return id;
  } catch (err) {
    throw asCategoryError(err);
  }
}

/** Changes the given fields; `skus` / `images` replace the whole set. One transaction. */
export async function updateItem(ctx: ServiceContext, args: { id: number; input: unknown }): Promise<number> {
  const input = parseInput(updateItemInput, args.input);
  try {
    await ctx.db.prisma.$transaction(async (tx) => {
      const current = await tx.item.findUnique({ where: { id: args.id }, select: { price: true } });
      if (!current) throw notFound('item');
      if (input.categoryId !== undefined) await assertCategoryExists(tx, input.categoryId);
      if (input.skus) {
        await tx.sku.deleteMany({ where: { itemId: args.id } });
        // A SKU without a price takes the item's (new or current) price.
        await tx.sku.createMany({
          data: skuRows(input.skus, input.price ?? current.price.toFixed(2)).map((s) => ({ ...s, itemId: args.id })),
        });
      }
      if (input.images) {
        await tx.itemImage.deleteMany({ where: { itemId: args.id } });
        await tx.itemImage.createMany({ data: input.images.map((m) => ({ ...m, itemId: args.id })) });
      }
      await tx.item.update({
        where: { id: args.id },
        data: {
          name: input.name,
          categoryId: input.categoryId,
          price: input.price,
          stock: input.stock,
          updatedAt: new Date(),
        },
      });
    });
  } catch (err) {
    throw asCategoryError(err);
  }
  ctx.log.info({ item_id: args.id, by_admin: ctx.actingAdminId }, 'item updated');
  return args.id;
}

/** Deletes an item with its SKUs and images (they cascade); it vanishes from every read. */
export async function deleteItem(ctx: ServiceContext, id: number): Promise<true> {
  const { count } = await ctx.db.prisma.item.deleteMany({ where: { id } });
  if (count === 0) throw notFound('item');
  ctx.log.info({ item_id: id, by_admin: ctx.actingAdminId }, 'item deleted');
  return true;
}
