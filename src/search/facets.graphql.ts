/** The facet types of an item page (contract §9.2); `ItemPage.facets` is computed only when selected. */
import { builder } from '../graphql/builder.ts';
import type { Facets } from './facets.ts';

/**
 * What facets cost in the query budget (contract §7.2, GRAPHQL_MAX_COST 5000 by default), once per
 * `facets` selected, whatever the page size (graphql/cost-limit.ts): they count over every match, not
 * over a page — measured at 10,000 items, one facets computation takes as long as tens of full pages.
 * 500 lets one page of 100 items with every field (2,401) come with facets and the most spec filters
 * (below), and refuses ten facet computations in one document.
 */
export const FACETS_COST = 500;
/**
 * Each spec value filtered on (at most 10 names × 20 values: 1,600), once per `items`: every value is
 * another condition on every SKU of every match, and facets count once more per named spec.
 */
const SPEC_VALUE_COST = 8;

/** What `specs` adds to the cost of one `items` field. */
export const specFilterCost = (specs: ReadonlyArray<{ values?: readonly unknown[] | null }> | null | undefined) =>
  SPEC_VALUE_COST * (specs ?? []).reduce((n, f) => n + (f.values?.length ?? 0), 0);

/**
 * Facet fields cost nothing of their own: they sit under `items`, whose page size would multiply
 * them, yet exist once per page; `facets` as a whole costs FACETS_COST.
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
