/** Item, Sku and Image types, the public `items` / `item` queries and the admin item mutations (contract §4, §5). */
import { notFound } from '../errors/app-error.ts';
import { builder } from '../graphql/builder.ts';
import { ONCE_COST } from '../graphql/cost-limit.ts';
import { pageType } from '../graphql/page-type.ts';
import type { RequestContext } from '../request-context.ts';
import { FACETS_COST, FacetsType, SpecFilterInput, specFilterCost } from '../search/facets.graphql.ts';
import { EVERY_STATUS } from '../search/visibility.ts';
import { pageSizeCost } from '../validation/paging.ts';
import { CategoryType } from './category.graphql.ts';
import { findItem, type ImageRow, type ItemRow, type SkuRow } from './item.repository.ts';
import { createItemInput, ITEM_SORTS, idempotencyKey, listItemsInput, updateItemInput } from './item.schema.ts';
import { createItem, deleteItem, type ItemPage, itemFacets, listItemPage, updateItem } from './item.service.ts';

export const SkuType = builder.objectRef<SkuRow>('Sku').implement({
  description: 'A purchasable variant of an item.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    skuCode: t.exposeString('skuCode', { nullable: true }),
    specs: t.expose('specs', { type: 'JSONObject', description: 'String → string pairs, e.g. `{"color": "red"}`.' }),
    price: t.expose('price', { type: 'Money' }),
    stock: t.exposeInt('stock'),
  }),
});

export const ImageType = builder.objectRef<ImageRow>('Image').implement({
  fields: (t) => ({
    id: t.exposeInt('id'),
    url: t.exposeString('url'),
    sortOrder: t.exposeInt('sortOrder'),
  }),
});

// Items are always read whole (item.repository.ts: one statement per item or page), so the relations
// are on the parent already and need no resolver of their own.
export const ItemType = builder.objectRef<ItemRow>('Item').implement({
  description: 'A product. SKUs are ordered by id, images by `sortOrder`, then id.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    name: t.exposeString('name'),
    description: t.exposeString('description', { description: 'Up to 5000 characters; empty when there is none.' }),
    categoryId: t.exposeInt('categoryId'),
    category: t.expose('category', { type: CategoryType }),
    price: t.expose('price', { type: 'Money' }),
    stock: t.exposeInt('stock'),
    skus: t.expose('skus', { type: [SkuType] }),
    images: t.expose('images', { type: [ImageType] }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

// Spelled as REST spells them (`?sort=price_asc`), so both protocols take the same values.
const ItemSortType = builder.enumType('ItemSort', {
  description: 'List orders; ties are broken by id, highest (newest) first.',
  values: ITEM_SORTS,
});

const ItemPageType = pageType<ItemRow, ItemPage>({
  name: 'ItemPage',
  description: 'One page of items, in the order asked for (best match first with a keyword, else newest first).',
  of: ItemType,
  total: 'Items matching the filters, on every page.',
});

builder.objectField(ItemPageType, 'facets', (t) =>
  t.field({
    type: FacetsType,
    // Once per page, not per row: its price is not multiplied by the page size (facets.graphql.ts says why).
    complexity: 0,
    extensions: { [ONCE_COST]: FACETS_COST },
    description:
      'Counts per category, price bucket, spec value and stock (contract §9.2); computed only when selected.',
    resolve: (page, _args, ctx) => itemFacets(ctx, page),
  }),
);

/** The item just written, read back the way every read sees it — whatever its status or schedule. */
async function written(ctx: RequestContext, id: number): Promise<ItemRow> {
  const item = await findItem(ctx.db.sql, id, EVERY_STATUS);
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
  // Contract §4.4: a REST body may give an image as its URL alone (http/rest-route.ts reads this).
  extensions: { restShorthand: 'url' },
  fields: (t) => ({
    url: t.string({ required: true, description: 'An http(s) URL, up to 2048 characters.' }),
    sortOrder: t.int({ description: 'Defaults to the position in the list.' }),
  }),
});

const CreateItemInput = builder
  .inputType('CreateItemInput', {
    fields: (t) => ({
      name: t.string({ required: true, description: '1..200 characters after trimming.' }),
      description: t.string({ description: 'Up to 5000 characters; default empty.' }),
      categoryId: t.int({ required: true, description: 'An existing category.' }),
      price: t.field({ type: 'Money', required: true }),
      stock: t.int({ required: true, description: '0..2147483647.' }),
      skus: t.field({ type: [SkuInput], required: true, description: 'At most 100.' }),
      images: t.field({ type: [ImageInput], required: true, description: 'At most 20.' }),
    }),
  })
  .validate(createItemInput);

const UpdateItemInput = builder
  .inputType('UpdateItemInput', {
    description: 'Only the given fields change; `skus` and `images`, when given, replace the whole set.',
    fields: (t) => ({
      name: t.string(),
      description: t.string({ description: 'Up to 5000 characters.' }),
      categoryId: t.int(),
      price: t.field({ type: 'Money' }),
      stock: t.int(),
      skus: t.field({ type: [SkuInput] }),
      images: t.field({ type: [ImageInput] }),
    }),
  })
  .validate(updateItemInput);

builder.queryFields((t) => ({
  items: t.field({
    type: ItemPageType,
    // The page's items cost `limit` times what is selected of each (contract §7.2); spec filters
    // cost by their values (facets.graphql.ts).
    complexity: (args) => ({ field: 1 + specFilterCost(args.specs), multiplier: pageSizeCost(args.limit) }),
    description:
      'Items. Public. `keyword` searches names, category paths, SKU codes and specs, and descriptions, in Chinese, ' +
      'pinyin and with synonyms (contract §9.1), best match first; without one, newest first. `categoryId` includes ' +
      'sub-categories; `specs` keeps items with one SKU matching every named spec; `total` counts what the filters match.',
    args: t.validate(
      {
        page: t.arg.int({ description: 'Page number, from 1; default 1.' }),
        limit: t.arg.int({ description: '1..100, default 20.' }),
        categoryId: t.arg.int({ description: 'A category id; items of its sub-categories are included.' }),
        keyword: t.arg.string({
          description:
            'Trimmed, at most 100 characters. Every term must be found (Chinese by dictionary words; the last word may ' +
            'be the start of one); an item whose name contains the whole keyword always matches (`%` and `_` literal).',
        }),
        sort: t.arg({ type: ItemSortType, description: 'Default `relevance` with a keyword, else `newest`.' }),
        minPrice: t.arg({ type: 'Money', description: 'Inclusive; not above `maxPrice`.' }),
        maxPrice: t.arg({ type: 'Money', description: 'Inclusive.' }),
        inStock: t.arg.boolean({ description: '`true`: only items with stock > 0; `false`: no filter.' }),
        specs: t.arg({
          type: [SpecFilterInput],
          description: 'At most 10 names: an item matches when one SKU has, for every name, one of its values.',
        }),
      },
      listItemsInput,
    ),
    resolve: (_root, args, ctx) => listItemPage(ctx, args),
  }),
  item: t.field({
    type: ItemType,
    nullable: true,
    description: 'One item, or null when there is no such item. Public.',
    args: { id: t.arg.int({ required: true }) },
    resolve: (_root, args, ctx) => findItem(ctx.catalogReads, args.id),
  }),
}));

builder.mutationFields((t) => ({
  createItem: t.field({
    type: ItemType,
    description:
      'Admin: creates an item with its SKUs and images in one transaction. With `idempotencyKey`, the same key and ' +
      'input within 24 h return the first item instead of creating another; another input → IDEMPOTENCY_CONFLICT.',
    authScopes: { catalogWrite: true },
    args: {
      input: t.arg({ type: CreateItemInput, required: true }),
      idempotencyKey: t.arg
        .string({ description: 'Up to 255 characters (REST: the `Idempotency-Key` header).' })
        .validate(idempotencyKey),
    },
    resolve: async (_root, args, ctx) => written(ctx, await createItem(ctx, args.input, args.idempotencyKey)),
  }),
  updateItem: t.field({
    type: ItemType,
    description: 'Admin: changes the given fields of an item.',
    authScopes: { catalogWrite: true },
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: UpdateItemInput, required: true }) },
    resolve: async (_root, args, ctx) => written(ctx, await updateItem(ctx, args.id, args.input)),
  }),
  deleteItem: t.boolean({
    description: 'Admin: deletes an item; it vanishes from every read. NOT_FOUND when there is no such item.',
    authScopes: { catalogWrite: true },
    args: { id: t.arg.int({ required: true }) },
    resolve: (_root, args, ctx) => deleteItem(ctx, args.id),
  }),
}));
