/** Input rules of the category tree (contract §5), declared once on the GraphQL `CategoryInput`. */
import { z } from 'zod';
import { INT32_MAX, int, rule, text } from '../validation/rules.ts';

export const categoryInput = z.object({
  name: text().trim().min(1, rule('must not be empty')).max(100, rule('must be at most 100 characters')),
  parentId: int(1, INT32_MAX, 'must be a positive integer')
    .nullish()
    .transform((v) => v ?? null),
  sortOrder: int(-INT32_MAX, INT32_MAX, 'must be an integer')
    .nullish()
    .transform((v) => v ?? 0),
});
export type CategoryInput = z.output<typeof categoryInput>;
