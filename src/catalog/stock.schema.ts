/**
 * Input rules of stock adjustments (contract §12.3), declared once: stock.graphql.ts attaches them to
 * `adjustStock`'s arguments, which REST (`POST /admin/api/stock-adjustments`) runs too.
 */
import { z } from 'zod';
import { INT32_MAX, int, rule, text } from '../validation/rules.ts';

/** The most adjustments one request may carry. */
export const MAX_ADJUSTMENTS = 100;

/** A length rule that runs only on arrays, so a string in place of the list gets one message. */
const listRule = (message: string) => ({ message, when: (p: { value: unknown }) => Array.isArray(p.value) }) as const;

const adjustment = z.object(
  {
    skuId: int(1, INT32_MAX, 'must be a positive integer'),
    // Zero would change nothing yet bump the item's version and write an audit entry: a caller's
    // mistake more likely than an intent, so it is refused.
    delta: int(-INT32_MAX, INT32_MAX, `must be a non-zero integer between -${INT32_MAX} and ${INT32_MAX}`).refine(
      (d) => d !== 0,
      'must not be 0',
    ),
  },
  { error: 'must be an object with `skuId` and `delta`' },
);

export const adjustStockInput = z.object({
  adjustments: z
    .array(adjustment, { error: (i) => (i.input === undefined ? 'is required' : 'must be an array') })
    .min(1, listRule('must have at least 1 entry'))
    .max(MAX_ADJUSTMENTS, listRule(`must have at most ${MAX_ADJUSTMENTS} entries`))
    // One adjustment per SKU, so each answer and each refusal names one entry: a repeated SKU is
    // refused rather than summed (the caller sums). Runs even when other entries are invalid.
    .superRefine(
      (list, ctx) => {
        if (!Array.isArray(list)) return;
        const seen = new Map<number, number>();
        list.forEach((a: unknown, i) => {
          const id = (a as { skuId?: unknown } | null)?.skuId;
          if (typeof id !== 'number') return;
          const first = seen.get(id);
          if (first === undefined) seen.set(id, i);
          else
            ctx.addIssue({
              code: 'custom',
              path: [i, 'skuId'],
              message: `must not repeat a SKU (entry ${first} has the same one): give one adjustment per SKU with the summed delta`,
            });
        });
      },
      { when: () => true },
    ),
  // Required here (unlike item creation's): a retried adjustment must never count twice.
  idempotencyKey: text().min(1, rule('must not be empty')).max(255, rule('must be at most 255 characters')),
  allowNegative: z
    .boolean({ error: 'must be true or false' })
    .nullish()
    .transform((v) => v ?? false),
});
export type AdjustStockInput = z.output<typeof adjustStockInput>;
