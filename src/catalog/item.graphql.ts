/** Item, Sku and Image types, the public `items` / `item` queries and the admin item mutations (contract §4, §5). */
import { notFound } from '../errors/app-error.ts';
import { builder } from '../graphql/builder.ts';
import { asAdmin, type Context } from '../graphql/context.ts';
import { CategoryType } from './category.graphql.ts';
import { findItem, ITEM_INCLUDE, type ItemWithRelations } from './item.repository.ts';
import { createItem, deleteItem, listItemPage, updateItem, type ItemPage } from './item.service.ts';

export const SkuType = builder.prismaObject('Sku', {
  description: 'A purchasable variant of an item.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    skuCode: t.exposeString('skuCode', { nullable: true }),
    specs: t.expose('specs', { type: 'JSONObject', description: 'String → string pairs, e.g. `{"color": "red"}`.' }),
    price: t.expose('price', { type: 'Money' }),
    stock: t.exposeInt('stock'),
  }),
});

export const ImageType = builder.prismaObject('ItemImage', {
  name: 'Image',
  fields: (t) => ({
    id: t.exposeInt('id'),
    url: t.exposeString('url'),
    sortOrder: t.exposeInt('sortOrder'),
  }),
});

// Items are always read whole (item.repository.ts: one statement per item or page), so the relations
// are on the parent already and resolve without a query of their own.
export const ItemType = builder.prismaObject('Item', {
  description: 'A product. SKUs are ordered by id, images by `sortOrder`, then id.',
  include: ITEM_INCLUDE,
  fields: (t) => ({
    id: t.exposeInt('id'),
    name: t.exposeString('name'),
    categoryId: t.exposeInt('categoryId'),
    category: t.field({ type: CategoryType, resolve: (item) => item.category }),
    price: t.expose('price', { type: 'Money' }),
    stock: t.exposeInt('stock'),
    skus: t.field({ type: [SkuType], resolve: (item) => item.skus }),
    images: t.field({ type: [ImageType], resolve: (item) => item.images }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const ItemPageType = builder.objectRef<ItemPage>('ItemPage').implement({
  description: 'One page of items, newest first.',
  fields: (t) => ({
    items: t.field({ type: [ItemType], resolve: (page) => page.items }),
    page: t.exposeInt('page'),
    limit: t.exposeInt('limit'),
    total: t.exposeInt('total', { description: 'Items matching the filters, on every page.' }),
    totalPages: t.exposeInt('totalPages'),
  }),
});

/** The item just written, read back the way every read sees it. */
async function written(ctx: Context, id: number): Promise<ItemWithRelations> {
  const item = await findItem(ctx.db.sql, id);
  // Deleted in the meantime — or, for an Idempotency-Key replay, since the first request.
  if (!item) throw notFound('item');
  return item;
}

const SkuInput = builder.inputType('SkuInput', {
  fields: (t) => ({
    skuCode: t.string({ description: 'Up to 64 characters, unique within the item.' }),
    specs: t.field({ type: 'JSONObject', description: 'At most 20 string → string pairs.' }),
    price: t.field({ type: 'Money', description: "Defaults to the item's price." }),
    stock: t.int({ description: 'Defaults to 0.' }),
  }),
});

const ImageInput = builder.inputType('ImageInput', {
  fields: (t) => ({
    url: t.string({ required: true, description: 'An http(s) URL, up to 2048 characters.' }),
    sortOrder: t.int({ description: 'Defaults to the position in the list.' }),
  }),
});

const CreateItemInput = builder.inputType('CreateItemInput', {
  fields: (t) => ({
    name: t.string({ required: true, description: '1..200 characters after trimming.' }),
    categoryId: t.int({ required: true, description: 'An existing category.' }),
    price: t.field({ type: 'Money', required: true }),
    stock: t.int({ required: true, description: '0..2147483647.' }),
    skus: t.field({ type: [SkuInput], required: true, description: 'At most 100.' }),
    images: t.field({ type: [ImageInput], required: true, description: 'At most 20.' }),
  }),
});

const UpdateItemInput = builder.inputType('UpdateItemInput', {
  description: 'Only the given fields change; `skus` and `images`, when given, replace the whole set.',
  fields: (t) => ({
    name: t.string(),
    categoryId: t.int(),
    price: t.field({ type: 'Money' }),
    stock: t.int(),
    skus: t.field({ type: [SkuInput] }),
    images: t.field({ type: [ImageInput] }),
  }),
});

builder.queryFields((t) => ({
  items: t.field({
    type: ItemPageType,
    description: 'Items, newest first. Public. `categoryId` includes sub-categories; `keyword` is a case-insensitive substring of the name.',
    args: {
      page: t.arg.int({ description: '>= 1, default 1.' }),
      limit: t.arg.int({ description: '1..100, default 20.' }),
      categoryId: t.arg.int(),
      keyword: t.arg.string({ description: 'Trimmed, at most 100 characters; `%` and `_` are literal.' }),
    },
    resolve: (_root, args, ctx) => listItemPage(ctx.db, args),
  }),
  item: t.field({
    type: ItemType,
    nullable: true,
    description: 'One item, or null when there is no such item. Public.',
    args: { id: t.arg.int({ required: true }) },
    resolve: (_root, args, ctx) => findItem(ctx.db.sql, args.id),
  }),
}));

builder.mutationFields((t) => ({
  createItem: t.field({
    type: ItemType,
    description:
      'Admin: creates an item with its SKUs and images in one transaction. With `idempotencyKey`, the same key and ' +
      'input within 24 h return the first item instead of creating another; another input → IDEMPOTENCY_CONFLICT.',
    authScopes: { admin: true },
    args: {
      input: t.arg({ type: CreateItemInput, required: true }),
      idempotencyKey: t.arg.string({ description: 'Up to 255 characters (REST: the `Idempotency-Key` header).' }),
    },
    resolve: async (_root, args, ctx) => written(ctx, await createItem(await asAdmin(ctx), args)),
  }),
  updateItem: t.field({
    type: ItemType,
    description: 'Admin: changes the given fields of an item.',
    authScopes: { admin: true },
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: UpdateItemInput, required: true }) },
    resolve: async (_root, args, ctx) => written(ctx, await updateItem(await asAdmin(ctx), args)),
  }),
  deleteItem: t.boolean({
    description: 'Admin: deletes an item; it vanishes from every read. NOT_FOUND when there is no such item.',
    authScopes: { admin: true },
    args: { id: t.arg.int({ required: true }) },
    resolve: async (_root, args, ctx) => deleteItem(await asAdmin(ctx), args.id),
  }),
}));
