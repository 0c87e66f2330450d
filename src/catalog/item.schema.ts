/**
 * Input rules of the items (contract §4.1, §4.4), declared once: item.graphql.ts attaches them to the
 * GraphQL inputs and arguments, which REST runs too. Outputs are normalised (trimmed names, canonical
 * money strings, images as objects with their sort order): what services receive.
 */
import { z } from 'zod';
import { type SpecFilter, specFilters } from '../search/spec-filter.ts';
import { money } from '../validation/money.ts';
import { keywordArg, pageArgs } from '../validation/paging.ts';
import {
  httpUrl,
  INT32_MAX,
  int,
  isStorableText,
  rule,
  text,
  timestamp,
  UNSTORABLE_TEXT,
} from '../validation/rules.ts';
import { HANDLE_MAX_LENGTH, HANDLE_PATTERN } from './handles.ts';

export const nullishToUndefined = <T>(v: T | null | undefined) => v ?? undefined;

/** The list orders of contract §8.2 and §9.1; ties are broken by id, newest (highest) first. */
export const ITEM_SORTS = ['relevance', 'newest', 'price_asc', 'price_desc', 'name_asc'] as const;
export type ItemSort = (typeof ITEM_SORTS)[number];

/** Default order: best match first with a keyword, newest first without (contract §9.1). */
export const withDefaultSort = <T extends { keyword?: string | undefined; sort?: ItemSort | null | undefined }>(
  input: T,
) => ({ ...input, sort: input.sort ?? (input.keyword ? 'relevance' : 'newest') }) as const;

export const listItemsInput = z
  .object({
    ...pageArgs,
    categoryId: int(1, INT32_MAX, 'must be a positive integer').nullish().transform(nullishToUndefined),
    // An empty keyword means no filter (contract §4.1).
    keyword: keywordArg,
    // Default: best match first with a keyword, newest first without (contract §9.1).
    sort: z.enum(ITEM_SORTS, { error: `must be one of ${ITEM_SORTS.join(', ')}` }).nullish(),
    minPrice: money().nullish().transform(nullishToUndefined),
    maxPrice: money().nullish().transform(nullishToUndefined),
    // `false` is no filter (contract §8.2), so only `true` is kept.
    inStock: z
      .boolean({ error: 'must be true or false' })
      .nullish()
      .transform((v) => v === true || undefined),
    specs: specFilters.nullish().transform(nullishToUndefined),
  })
  .superRefine((input, ctx) => {
    if (input.minPrice !== undefined && input.maxPrice !== undefined && Number(input.minPrice) > Number(input.maxPrice))
      ctx.addIssue({ code: 'custom', path: ['minPrice'], message: 'must not be greater than the maximum price' });
  })
  .transform(withDefaultSort);
/** The parsed list arguments (optional filters may arrive as null from GraphQL's typing). */
export type ListItemsInput = Pick<z.output<typeof listItemsInput>, 'page' | 'limit'> & {
  categoryId?: number | null;
  keyword?: string | null;
  sort?: ItemSort | null;
  minPrice?: string | null;
  maxPrice?: string | null;
  inStock?: boolean | null;
  specs?: SpecFilter[] | null;
};

const itemName = text().trim().min(1, rule('must not be empty')).max(200, rule('must be at most 200 characters'));
// Kept as written (no trimming): line breaks and indentation may be part of the text.
const description = text().max(5000, rule('must be at most 5000 characters'));
const categoryId = int(1, INT32_MAX, 'must be a positive integer');
const stock = int(0, INT32_MAX, `must be an integer between 0 and ${INT32_MAX}`);

// Checked as a whole, so an error names `skus[i].specs` and never echoes (or renames) a client's key.
const specs = z
  .record(z.string(), z.unknown(), { error: 'must be an object of string values' })
  .superRefine((o, ctx) => {
    const entries = Object.entries(o);
    if (entries.length > 20) ctx.addIssue({ code: 'custom', message: 'must have at most 20 entries' });
    else if (entries.some(([, v]) => typeof v !== 'string'))
      ctx.addIssue({ code: 'custom', message: 'values must be strings' });
    else if (entries.some(([k, v]) => !isStorableText(k) || !isStorableText(v as string))) {
      ctx.addIssue({ code: 'custom', message: `keys and values ${UNSTORABLE_TEXT}` });
    }
  })
  .transform((o) => o as Record<string, string>);

/** A length rule that runs only on arrays, so a string in place of a list gets one message. */
const listRule = (message: string) => ({ message, when: (p: { value: unknown }) => Array.isArray(p.value) }) as const;

const sku = z.object(
  {
    skuCode: text().max(64, rule('must be at most 64 characters')).nullish().transform(nullishToUndefined),
    specs: specs.nullish().transform((v) => v ?? {}),
    price: money().optional(),
    stock: stock.nullish().transform((v) => v ?? 0),
  },
  { error: 'must be an object' },
);

// A bare URL string is read as `{ url }`, so a bad URL is reported on `images[i].url` either way.
const image = z.preprocess(
  (v) => (typeof v === 'string' ? { url: v } : v),
  z.object(
    { url: httpUrl(), sortOrder: int(0, INT32_MAX, 'must be an integer >= 0').nullish() },
    { error: 'must be a URL string or an object with `url`' },
  ),
);

const skus = z
  .array(sku, { error: (i) => (i.input === undefined ? 'is required' : 'must be an array') })
  .max(100, listRule('must have at most 100 entries'))
  // Runs even when other SKU fields are invalid, so one answer names every problem.
  .superRefine(
    (list, ctx) => {
      if (!Array.isArray(list)) return;
      const seen = new Map<string, number>();
      list.forEach((s: unknown, i) => {
        const code = (s as { skuCode?: unknown } | null)?.skuCode;
        if (typeof code !== 'string') return;
        const first = seen.get(code);
        if (first === undefined) seen.set(code, i);
        else
          ctx.addIssue({
            code: 'custom',
            path: [i, 'skuCode'],
            message: `must be unique within the item (entry ${first} has the same code)`,
          });
      });
    },
    { when: () => true },
  );

const images = z
  .array(image, { error: (i) => (i.input === undefined ? 'is required' : 'must be an array') })
  .max(20, listRule('must have at most 20 entries'))
  // An image without a sort order keeps its place in the array.
  .transform((list) => list.map((entry, i) => ({ url: entry.url, sortOrder: entry.sortOrder ?? i })));

/** An item's lifecycle states (contract §12.1); only `active` items within their schedule are public. */
export const ITEM_STATUSES = ['draft', 'active', 'archived'] as const;
export type ItemStatus = (typeof ITEM_STATUSES)[number];

const status = z.enum(ITEM_STATUSES, { error: `must be one of ${ITEM_STATUSES.join(', ')}` });

// Compared case-insensitively: stored in lower case, so `Trail-Boot` is `trail-boot`.
const handle = text()
  .trim()
  .toLowerCase()
  .min(1, rule('must not be empty'))
  .max(HANDLE_MAX_LENGTH, rule(`must be at most ${HANDLE_MAX_LENGTH} characters`))
  .regex(HANDLE_PATTERN, rule('must be letters and digits in groups joined by single hyphens (`trail-boot-2`)'));

const moment = timestamp();

/** `publishAt` must come before `unpublishAt` when both are set (contract §12.1). */
export const scheduleError = (publishAt: Date | null | undefined, unpublishAt: Date | null | undefined) =>
  publishAt && unpublishAt && publishAt.getTime() >= unpublishAt.getTime()
    ? { field: 'unpublishAt', message: 'must be later than publishAt' }
    : undefined;

export const createItemInput = z
  .object({
    name: itemName,
    description: description.nullish().transform((v) => v ?? ''),
    categoryId,
    price: money(),
    stock,
    skus,
    images,
    // Created public unless told otherwise, so the create-then-read flow of §4.4 is unchanged.
    status: status.nullish().transform((v) => v ?? 'active'),
    publishAt: moment.nullish().transform((v) => v ?? null),
    unpublishAt: moment.nullish().transform((v) => v ?? null),
    // Left out: made from the name (handles.ts).
    handle: handle.nullish().transform(nullishToUndefined),
  })
  .superRefine((input, ctx) => {
    const error = scheduleError(input.publishAt, input.unpublishAt);
    if (error) ctx.addIssue({ code: 'custom', path: [error.field], message: error.message });
  });
export type CreateItemInput = z.output<typeof createItemInput>;

/**
 * Every field optional; `skus` and `images`, when given, replace the item's whole set; `publishAt`
 * and `unpublishAt` null clear the schedule (the order of the two is checked against the stored
 * ones by the service).
 */
export const updateItemInput = z.object({
  name: itemName.optional(),
  description: description.nullish().transform(nullishToUndefined),
  categoryId: categoryId.optional(),
  price: money().optional(),
  stock: stock.optional(),
  skus: skus.optional(),
  images: images.optional(),
  status: status.nullish().transform(nullishToUndefined),
  publishAt: moment.nullish(),
  unpublishAt: moment.nullish(),
  handle: handle.optional(),
});
export type UpdateItemInput = z.output<typeof updateItemInput>;

/** 1..1000 item ids, each kept once: the items a bulk write (`setItemsStatus`, `deleteItems`) acts on. */
const itemIds = z
  .array(int(1, INT32_MAX, 'must be a positive integer'), { error: 'must be an array' })
  .min(1, listRule('must have at least 1 entry'))
  .max(1000, listRule('must have at most 1000 entries'))
  .transform((ids) => [...new Set(ids)]);

/** The arguments of `setItemsStatus`: the items and the status they get. */
export const setItemsStatusInput = z.object({ ids: itemIds, status });

/** The argument of `deleteItems`. */
export const deleteItemsInput = z.object({ ids: itemIds });

export const idempotencyKey = text()
  .min(1, rule('must not be empty'))
  .max(255, rule('must be at most 255 characters'))
  .nullish()
  .transform(nullishToUndefined);
