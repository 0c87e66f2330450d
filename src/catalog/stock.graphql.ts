/** `adjustStock`: the order system's one atomic stock operation (contract §12.3). */
import { builder } from '../graphql/builder.ts';
import { SkuType } from './item.graphql.ts';
import { adjustStockInput, MAX_ADJUSTMENTS } from './stock.schema.ts';
import { adjustStock } from './stock.service.ts';

const StockAdjustmentInput = builder.inputType('StockAdjustmentInput', {
  description: "One SKU's change of stock.",
  fields: (t) => ({
    skuId: t.int({ required: true, description: 'An existing SKU; each SKU at most once per request.' }),
    delta: t.int({ required: true, description: 'Added to the stock: negative takes away. Not 0.' }),
  }),
});

builder.mutationField('adjustStock', (t) =>
  t.field({
    type: [SkuType],
    description:
      `Admin: adds each \`delta\` to its SKU's stock, all or nothing (1..${MAX_ADJUSTMENTS} adjustments, one per SKU); ` +
      "each item's own stock moves by the sum of its SKUs' deltas and its version by one. A SKU that would go below " +
      '0 (without `allowNegative`) → INSUFFICIENT_STOCK naming each such `adjustments[i].delta` with the stock ' +
      'available, nothing changed; an unknown SKU → VALIDATION_FAILED on `adjustments[i].skuId`. The same ' +
      '`idempotencyKey` with the same arguments within 24 h answers the first answer again without adjusting; ' +
      'with other arguments → IDEMPOTENCY_CONFLICT. Answers the adjusted SKUs in the order of `adjustments`.',
    authScopes: { catalogWrite: true },
    args: t.validate(
      {
        adjustments: t.arg({ type: [StockAdjustmentInput], required: true }),
        idempotencyKey: t.arg.string({
          required: true,
          description:
            '1..255 characters, remembered per admin (or API key) for 24 h (REST: the `Idempotency-Key` header). ' +
            'A refused request is not remembered.',
        }),
        allowNegative: t.arg.boolean({
          defaultValue: false,
          description: '`true` lets a SKU (and its item) go below 0: back-orders.',
        }),
      },
      adjustStockInput,
    ),
    resolve: (_root, args, ctx) => adjustStock(ctx, args),
  }),
);
