/**
 * Input rules of the admin item reads and the version check of the item writes (contract §12.2),
 * declared once: item-admin.graphql.ts and item.graphql.ts attach them, REST runs the same fields.
 */
import { z } from 'zod';
import { INT32_MAX, int, rule, text } from '../validation/rules.ts';
import {
  ITEM_STATUSES,
  type ItemStatus,
  type ListItemsInput,
  listItemsInput,
  nullishToUndefined,
  withDefaultSort,
} from './item.schema.ts';

/**
 * The states an admin list shows: the ones asked for, each once, or — none asked for, or all three —
 * undefined, which is no condition at all.
 */
const statusList = z
  .array(z.enum(ITEM_STATUSES, { error: `must be one of ${ITEM_STATUSES.join(', ')}` }), {
    error: 'must be a list of states',
  })
  .nullish()
  .transform((list) => {
    const asked = [...new Set(list ?? [])];
    return asked.length === 0 || asked.length === ITEM_STATUSES.length ? undefined : asked;
  });

/** `adminItems`: the public list's arguments (every rule of `items`) and `status`. */
export const adminListItemsInput = listItemsInput.in.safeExtend({ status: statusList }).transform(withDefaultSort);
/** The parsed arguments (as GraphQL types them, optional ones may read as null). */
export type AdminListItemsInput = ListItemsInput & { status?: ItemStatus[] | null };

/** `adminItem`: an id or a handle, exactly one of them. */
export const adminItemInput = z
  .object({
    id: int(1, INT32_MAX, 'must be a positive integer').nullish().transform(nullishToUndefined),
    // Handles are lower case (contract §12.1): any spelling of one finds it.
    handle: text()
      .trim()
      .min(1, rule('must not be empty'))
      .max(100, rule('must be at most 100 characters'))
      .transform((h) => h.toLowerCase())
      .nullish()
      .transform(nullishToUndefined),
  })
  .superRefine((args, ctx) => {
    if ((args.id === undefined) === (args.handle === undefined)) {
      const message = 'give exactly one of `id` and `handle`';
      ctx.addIssue({ code: 'custom', path: [args.id === undefined ? 'id' : 'handle'], message });
    }
  });

/** The version a write expects the item to be at (contract §12.2); absent: any. */
export const expectedVersion = int(1, INT32_MAX, 'must be a positive integer').nullish().transform(nullishToUndefined);
