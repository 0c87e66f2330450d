/** The admin's item reads (contract §12.2): every state, by list, id or handle. */
import { builder } from '../graphql/builder.ts';
import { specFilterCost } from '../search/facets.graphql.ts';
import { pageSizeCost } from '../validation/paging.ts';
import { ItemPageType, ItemStatusType, ItemType, listItemsArgs } from './item.graphql.ts';
import { adminItemInput, adminListItemsInput } from './item-admin.schema.ts';
import { findAdminItem, listAdminItemPage } from './item-admin.service.ts';

builder.queryFields((t) => ({
  adminItems: t.field({
    type: ItemPageType,
    // As `items`: the page's items cost `limit` times what is selected of each.
    complexity: (args) => ({ field: 1 + specFilterCost(args.specs), multiplier: pageSizeCost(args.limit) }),
    description:
      'Admin: the `items` list over items in every state — drafts, active (published or not) and archived — with the ' +
      'same filters, orders and facets, read as stored (never from the public answer cache).',
    authScopes: { catalogRead: true },
    args: t.validate(
      {
        status: t.arg({
          type: [ItemStatusType],
          required: { list: false, items: true },
          description: 'The states to show (REST: repeatable `status`); default all three.',
        }),
        ...listItemsArgs(),
      },
      adminListItemsInput,
    ),
    resolve: (_root, args, ctx) => listAdminItemPage(ctx, args),
  }),
  adminItem: t.field({
    type: ItemType,
    nullable: true,
    description:
      'Admin: one item by `id` or by `handle` (exactly one; a handle in any case), whatever its state; null when there ' +
      'is none.',
    authScopes: { catalogRead: true },
    args: t.validate(
      { id: t.arg.int(), handle: t.arg.string({ description: '1..100 characters, compared case-insensitively.' }) },
      adminItemInput,
    ),
    resolve: (_root, args, ctx) => findAdminItem(ctx, args),
  }),
}));
