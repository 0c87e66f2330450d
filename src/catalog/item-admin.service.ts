/**
 * The admin's reads of items (contract §12.2): every state, never from the catalogue's answer cache
 * (nor its cached totals), and from the primary — an admin sees what is stored, drafts and archived
 * items included, and the version a replica has not caught up with yet would only earn them a
 * VERSION_CONFLICT on their next write.
 */
import type { RequestContext } from '../request-context.ts';
import type { ItemFilter } from '../search/item-query.ts';
import { EVERY_STATUS } from '../search/visibility.ts';
import { pageOf, pageWindow } from '../validation/paging.ts';
import { ITEM_ROW_JSON } from './catalog-json.ts';
import { findItemInAnyState, findItemPageJson, type ItemRow } from './item.repository.ts';
import { type ItemPage, itemFilterOf } from './item.service.ts';
import type { AdminListItemsInput } from './item-admin.schema.ts';

/**
 * The items an admin read of the list's arguments shows (the list, an export of it): the public list's
 * filters over every state, or the ones asked for. The one place that says so.
 */
export const adminItemFilterOf = async (ctx: RequestContext, input: AdminListItemsInput): Promise<ItemFilter> => ({
  ...(await itemFilterOf(ctx, input)),
  visibility: input.status ?? EVERY_STATUS,
});

/** One page of the admin list: the public list's filters and order over the states asked for. */
export async function listAdminItemPage(ctx: RequestContext, input: AdminListItemsInput): Promise<ItemPage> {
  const { page, limit, sort } = input;
  const filter = await adminItemFilterOf(ctx, input);
  const { offset } = pageWindow({ page, limit });
  const read = () => findItemPageJson(ctx.db.sql, filter, sort ?? 'newest', limit, offset, ITEM_ROW_JSON);
  // Spec filters test every SKU of every match: a costly search, bounded per client as the public list's.
  const { total, items } = filter.specs?.length ? await ctx.services.searchSlots.run(ctx.clientIp, read) : await read();
  return { ...pageOf(JSON.parse(items) as ItemRow[], { page, limit }, total), filter };
}

/** One item by id or handle, whatever its state; null when there is none. */
export const findAdminItem = (
  ctx: RequestContext,
  by: { id?: number | null; handle?: string | null },
): Promise<ItemRow | null> =>
  findItemInAnyState(ctx.db.sql, typeof by.id === 'number' ? { id: by.id } : { handle: by.handle ?? '' });
