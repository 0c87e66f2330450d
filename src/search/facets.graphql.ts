/** The facet types of an item page (contract §9.2); `ItemPage.facets` is computed only when selected. */
import { builder } from '../graphql/builder.ts';
import type { Facets } from './facets.ts';

/**
 * Facet fields cost nothing in the query budget: they sit under `items`, whose page size multiplies
 * every field below it, yet exist once per page. What bounds their work is the alias limit (at most
 * 15 `items` fields, so 15 facet computations, per document).
 */
const FREE = { complexity: 0 } as const;

type CategoryFacet = Facets['categories'][number];
type PriceFacet = NonNullable<Facets['price']>;
type PriceBucket = PriceFacet['buckets'][number];
type SpecFacet = Facets['specs'][number];
type SpecValueFacet = SpecFacet['values'][number];

const CategoryFacetType = builder.objectRef<CategoryFacet>('CategoryFacet').implement({
  description: 'A category with the matching items in it and its sub-categories (ignoring the category filter).',
  fields: (t) => ({
    id: t.exposeInt('id', FREE),
    name: t.exposeString('name', FREE),
    parentId: t.exposeInt('parentId', { ...FREE, nullable: true }),
    count: t.exposeInt('count', FREE),
  }),
});

const PriceBucketType = builder.objectRef<PriceBucket>('PriceBucket').implement({
  description: 'Items priced from `from` (inclusive) to `to` (exclusive; the last bucket also holds `max`).',
  fields: (t) => ({
    from: t.expose('from', { ...FREE, type: 'Money' }),
    to: t.expose('to', { ...FREE, type: 'Money' }),
    count: t.exposeInt('count', FREE),
  }),
});

const PriceFacetType = builder.objectRef<PriceFacet>('PriceFacet').implement({
  description: 'Prices of the matching items (ignoring the price filter), in at most 6 buckets of one round width.',
  fields: (t) => ({
    min: t.expose('min', { ...FREE, type: 'Money' }),
    max: t.expose('max', { ...FREE, type: 'Money' }),
    buckets: t.expose('buckets', { ...FREE, type: [PriceBucketType] }),
  }),
});

const SpecValueFacetType = builder.objectRef<SpecValueFacet>('SpecValueFacet').implement({
  fields: (t) => ({ value: t.exposeString('value', FREE), count: t.exposeInt('count', FREE) }),
});

const SpecFacetType = builder.objectRef<SpecFacet>('SpecFacet').implement({
  description: "A SKU spec name with its 20 most frequent values; its counts ignore this name's own spec filter.",
  fields: (t) => ({
    name: t.exposeString('name', FREE),
    values: t.expose('values', { ...FREE, type: [SpecValueFacetType] }),
  }),
});

export const FacetsType = builder.objectRef<Facets>('ItemFacets').implement({
  description:
    'Counts that say what each choice would give: each is the `total` the list would answer with that facet’s own ' +
    'filter replaced by that choice.',
  fields: (t) => ({
    categories: t.expose('categories', { ...FREE, type: [CategoryFacetType] }),
    price: t.expose('price', {
      ...FREE,
      type: PriceFacetType,
      nullable: true,
      description: 'Null when nothing matches.',
    }),
    specs: t.expose('specs', { ...FREE, type: [SpecFacetType] }),
    inStock: t.exposeInt('inStock', { ...FREE, description: 'Matching items with stock > 0 (ignoring `inStock`).' }),
  }),
});

export const SpecFilterInput = builder.inputType('SpecFilter', {
  description: 'Items with one SKU whose spec `name` has one of `values` (case-insensitive, trimmed).',
  fields: (t) => ({
    name: t.string({ required: true, description: '1..64 characters.' }),
    values: t.stringList({ required: true, description: '1..20 values, each 1..64 characters.' }),
  }),
});
