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
import {
  createItemInput,
  deleteItemsInput,
  ITEM_SORTS,
  ITEM_STATUSES,
  idempotencyKey,
  listItemsInput,
  updateItemInput,
} from './item.schema.ts';
import {
  createItem,
  deleteItem,
  deleteItems,
  type ItemPage,
  itemFacets,
  listItemPage,
  updateItem,
} from './item.service.ts';
import { expectedVersion } from './item-admin.schema.ts';

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

// Lower-case values, as ItemSort and AdminRole (contract §12.1): REST shows the same words.
export const ItemStatusType = builder.enumType('ItemStatus', {
  description:
    '`draft` (being prepared), `active` (public while within its schedule) or `archived` (kept, not shown; may be made ' +
    '`active` again).',
  values: ITEM_STATUSES,
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
    // Columns of the row the item is read with, no work of their own: they cost nothing (complexity
    // 0), so a full page of 100 with every field still costs what contract §7.2 sized the limit by
    // (two such pages fit under GRAPHQL_MAX_COST's 5000, three do not).
    status: t.expose('status', { type: ItemStatusType, complexity: 0 }),
    publishAt: t.expose('publishAt', {
      type: 'DateTime',
      nullable: true,
      complexity: 0,
      description: 'Public from then on (with status `active`); null: from the start.',
    }),
    unpublishAt: t.expose('unpublishAt', {
      type: 'DateTime',
      nullable: true,
      complexity: 0,
      description: 'Public until then; null: no end.',
    }),
    handle: t.exposeString('handle', {
      complexity: 0,
      description: 'A unique, URL-safe name (`[a-z0-9]+(-[a-z0-9]+)*`, up to 100 characters), in lower case.',
    }),
    version: t.exposeInt('version', {
      complexity: 0,
      description:
        '1 when created, one more with every change of the item, its SKUs or images; `updateItem` and `deleteItem` ' +
        'take it as `expectedVersion` against lost updates (REST: `ETag: "v<version>"`, `If-Match`).',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

// Spelled as REST spells them (`?sort=price_asc`), so both protocols take the same values.
export const ItemSortType = builder.enumType('ItemSort', {
  description: 'List orders; ties are broken by id, highest (newest) first.',
  values: ITEM_SORTS,
});

export const ItemPageType = pageType<ItemRow, ItemPage>({
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
      status: t.field({ type: ItemStatusType, description: 'Default `active`.' }),
      publishAt: t.field({ type: 'DateTime', description: 'Public from then on; default null (from the start).' }),
      unpublishAt: t.field({
        type: 'DateTime',
        description: 'Public until then; later than `publishAt`. Default null.',
      }),
      handle: t.string({
        description:
          '`[a-z0-9]+(-[a-z0-9]+)*`, up to 100 characters, not taken by another item (compared case-insensitively, ' +
          'stored in lower case). Default: made from the name (Chinese as pinyin), numbered `-2`, `-3` … when taken.',
      }),
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
      status: t.field({ type: ItemStatusType }),
      publishAt: t.field({ type: 'DateTime', description: 'null clears it.' }),
      unpublishAt: t.field({
        type: 'DateTime',
        description: "null clears it; later than `publishAt` (given or the item's).",
      }),
      handle: t.string({ description: 'As on creation; not taken by another item.' }),
    }),
  })
  .validate(updateItemInput);

/**
 * The list's arguments (contract §4.1, §8.2, §9): `items`, and `adminItems` with `status` besides. Made
 * anew for each field: an argument belongs to one field (its validation is attached to it).
 */
export const listItemsArgs = () =>
  builder.args((t) => ({
    page: t.int({ description: 'Page number, from 1; default 1.' }),
    limit: t.int({ description: '1..100, default 20.' }),
    categoryId: t.int({ description: 'A category id; items of its sub-categories are included.' }),
    keyword: t.string({
      description:
        'Trimmed, at most 100 characters. Every term must be found (Chinese by dictionary words; the last word may ' +
        'be the start of one); an item whose name contains the whole keyword always matches (`%` and `_` literal).',
    }),
    sort: t.field({ type: ItemSortType, description: 'Default `relevance` with a keyword, else `newest`.' }),
    minPrice: t.field({ type: 'Money', description: 'Inclusive; not above `maxPrice`.' }),
    maxPrice: t.field({ type: 'Money', description: 'Inclusive.' }),
    inStock: t.boolean({ description: '`true`: only items with stock > 0; `false`: no filter.' }),
    specs: t.field({
      type: [SpecFilterInput],
      description: 'At most 10 names: an item matches when one SKU has, for every name, one of its values.',
    }),
  }));

builder.queryFields((t) => ({
  items: t.field({
    type: ItemPageType,
    // The page's items cost `limit` times what is selected of each (contract §7.2); spec filters
    // cost by their values (facets.graphql.ts).
    complexity: (args) => ({ field: 1 + specFilterCost(args.specs), multiplier: pageSizeCost(args.limit) }),
    description:
      'Items. Public. `keyword` searches names, category paths, SKU codes and specs, and descriptions, in Chinese, ' +
      'pinyin and with synonyms (contract §9.1), forgiving typos, homophones and joined words after exact matches ' +
      '(§9.6), best match first; without one, newest first. `categoryId` includes ' +
      'sub-categories; `specs` keeps items with one SKU matching every named spec; `total` counts what the filters match.',
    args: t.validate(listItemsArgs(), listItemsInput),
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

/** `expectedVersion` of the item writes (contract §12.2: no lost updates). */
const EXPECTED_VERSION = {
  description:
    'The item\'s `version` as last read (REST: `If-Match: "v<version>"`): the write happens only while it still is.',
};

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
    description:
      'Admin: changes the given fields of an item; its `version` grows by one. With `expectedVersion`, only while the ' +
      'item is at that version: else VERSION_CONFLICT (`extensions.currentVersion`), nothing changed.',
    authScopes: { catalogWrite: true },
    args: {
      id: t.arg.int({ required: true }),
      input: t.arg({ type: UpdateItemInput, required: true }),
      expectedVersion: t.arg.int(EXPECTED_VERSION).validate(expectedVersion),
    },
    resolve: async (_root, args, ctx) =>
      written(ctx, await updateItem(ctx, args.id, args.input, args.expectedVersion ?? undefined)),
  }),
  deleteItem: t.boolean({
    description:
      'Admin: deletes an item; it vanishes from every read. NOT_FOUND when there is no such item; with ' +
      '`expectedVersion`, VERSION_CONFLICT while the item is at another version (nothing deleted).',
    authScopes: { catalogWrite: true },
    args: { id: t.arg.int({ required: true }), expectedVersion: t.arg.int(EXPECTED_VERSION).validate(expectedVersion) },
    resolve: (_root, args, ctx) => deleteItem(ctx, args.id, args.expectedVersion ?? undefined),
  }),
  deleteItems: t.int({
    description:
      'Admin: deletes every listed item as `deleteItem` does (one `item.delete` audit entry each), all in one ' +
      'transaction; answers how many were deleted. An unknown id → VALIDATION_FAILED on `ids`, nothing deleted.',
    authScopes: { catalogWrite: true },
    args: t.validate(
      { ids: t.arg.intList({ required: true, description: '1..1000 item ids (a repeated id counts once).' }) },
      deleteItemsInput,
    ),
    resolve: (_root, args, ctx) => deleteItems(ctx, args.ids),
  }),
}));
