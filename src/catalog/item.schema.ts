/**
 * Input rules of the catalogue (contract §4.1, §4.4), declared once and shared by GraphQL and REST.
 * Outputs are normalised (trimmed names, canonical money strings, images as objects with their
 * sort order), and parsing an output again yields the same value, because the REST adapter
 * validates first and the resolver validates what it receives once more.
 */
import { z } from 'zod';
import { money } from '../validation/money.ts';
import { INT32_MAX, int, intParam, rule, text } from '../validation/rules.ts';

export const MAX_LIMIT = 100;

const nullishToUndefined = <T>(v: T | null | undefined) => v ?? undefined;

export const listItemsInput = z.object({
  page: intParam(1, INT32_MAX, 'must be an integer >= 1').nullish().transform((v) => v ?? 1),
  limit: intParam(1, MAX_LIMIT, `must be an integer between 1 and ${MAX_LIMIT}`).nullish().transform((v) => v ?? 20),
  categoryId: intParam(1, INT32_MAX, 'must be a positive integer').nullish().transform(nullishToUndefined),
  keyword: text()
    .trim()
    .max(100, rule('must be at most 100 characters'))
    .nullish()
    // An empty keyword means no filter (contract §4.1).
    .transform((v) => v || undefined),
});
export type ListItemsInput = z.output<typeof listItemsInput>;

const itemName = text().trim().min(1, rule('must not be empty')).max(200, rule('must be at most 200 characters'));
const categoryId = int(1, INT32_MAX, 'must be a positive integer');
const stock = int(0, INT32_MAX, `must be an integer between 0 and ${INT32_MAX}`);

// Checked as a whole, so an error names `skus[i].specs` and never echoes (or renames) a client's key.
const specs = z
  .record(z.string(), z.unknown(), { error: 'must be an object of string values' })
  .superRefine((o, ctx) => {
    const entries = Object.entries(o);
    if (entries.length > 20) ctx.addIssue({ code: 'custom', message: 'must have at most 20 entries' });
    else if (entries.some(([, v]) => typeof v !== 'string')) ctx.addIssue({ code: 'custom', message: 'values must be strings' });
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

const httpUrl = text()
  .max(2048, rule('must be at most 2048 characters'))
  .refine((v) => {
    try {
      const u = new URL(v);
      return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
    } catch {
      return false;
    }
  }, 'must be an http(s) URL');

// A bare URL string is read as `{ url }`, so a bad URL is reported on `images[i].url` either way.
const image = z.preprocess(
  (v) => (typeof v === 'string' ? { url: v } : v),
  z.object(
    { url: httpUrl, sortOrder: int(0, INT32_MAX, 'must be an integer >= 0').nullish() },
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
        else ctx.addIssue({ code: 'custom', path: [i, 'skuCode'], message: `must be unique within the item (entry ${first} has the same code)` });
      });
    },
    { when: () => true },
  );

const images = z
  .array(image, { error: (i) => (i.input === undefined ? 'is required' : 'must be an array') })
  .max(20, listRule('must have at most 20 entries'))
  // An image without a sort order keeps its place in the array.
  .transform((list) =>
    list.map((entry, i) => ({ url: entry.url, sortOrder: entry.sortOrder ?? i })),
  );

export const createItemInput = z.object({ name: itemName, categoryId, price: money(), stock, skus, images });
export type CreateItemInput = z.output<typeof createItemInput>;

/** Every field optional; `skus` and `images`, when given, replace the item's whole set. */
export const updateItemInput = z.object({
  name: itemName.optional(),
  categoryId: categoryId.optional(),
  price: money().optional(),
  stock: stock.optional(),
  skus: skus.optional(),
  images: images.optional(),
});
export type UpdateItemInput = z.output<typeof updateItemInput>;

export const idempotencyKey = text()
  .min(1, rule('must not be empty'))
  .max(255, rule('must be at most 255 characters'))
  .nullish()
  .transform(nullishToUndefined);

export const categoryInput = z.object({
  name: text().trim().min(1, rule('must not be empty')).max(100, rule('must be at most 100 characters')),
  parentId: int(1, INT32_MAX, 'must be a positive integer').nullish().transform((v) => v ?? null),
  sortOrder: int(-INT32_MAX, INT32_MAX, 'must be an integer').nullish().transform((v) => v ?? 0),
});
export type CategoryInput = z.output<typeof categoryInput>;
