/** `setItemsStatus`: statuses in bulk (contract §12.1). */
import { builder } from '../graphql/builder.ts';
import { ItemStatusType } from './item.graphql.ts';
import { setItemsStatusInput } from './item.schema.ts';
import { setItemsStatus } from './item-status.service.ts';

builder.mutationFields((t) => ({
  setItemsStatus: t.int({
    description:
      'Admin: gives every listed item the status, in one transaction; answers how many changed (items already in ' +
      'that status are not counted). An unknown id → VALIDATION_FAILED on `ids`, nothing changed.',
    authScopes: { catalogWrite: true },
    args: t.validate(
      {
        ids: t.arg.intList({ required: true, description: '1..1000 item ids.' }),
        status: t.arg({ type: ItemStatusType, required: true }),
      },
      setItemsStatusInput,
    ),
    resolve: (_root, args, ctx) => setItemsStatus(ctx, args.ids, args.status),
  }),
}));
