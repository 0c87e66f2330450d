/** REST route of contract §12.3: `POST /admin/api/stock-adjustments` runs `adjustStock` with snake_case aliases. */
import type { RestRoute } from '../rest/route.ts';
import { IDEMPOTENCY_KEY_HEADER } from './idempotency.ts';

/** The `Idempotency-Key` header of a stock adjustment: required, unlike item creation's. */
const STOCK_IDEMPOTENCY_KEY_HEADER = {
  ...IDEMPOTENCY_KEY_HEADER,
  required: true,
  replaces: 'idempotency_key',
  description:
    'Required, 1..255 characters (one fresh key per intended adjustment, e.g. the order line’s id and step), ' +
    'remembered per admin (or API key) for 24 h. A retry with the same key and the same body adjusts nothing and ' +
    'answers 200 with the first answer, word for word; the same key with another body is 409 IDEMPOTENCY_CONFLICT. ' +
    'A refused request (400, 409 INSUFFICIENT_STOCK) is not remembered: its key may be sent again.',
};

export const stockRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: '/admin/api/stock-adjustments',
    summary: 'Adjust the stock of SKUs, all or nothing (admin; Idempotency-Key header required)',
    tag: 'Catalogue administration',
    document: /* GraphQL */ `
      mutation RestAdjustStock(
        $adjustments: [StockAdjustmentInput!]!, $idempotencyKey: String!, $allowNegative: Boolean
      ) {
        skus: adjustStock(adjustments: $adjustments, idempotencyKey: $idempotencyKey, allowNegative: $allowNegative) {
          id sku_code: skuCode specs price stock
        }
      }`,
    input: { from: 'body' },
    // Left out when absent, so the validation names the missing header (not a null value).
    variables: (req) => ({ idempotencyKey: req.header('idempotency-key') }),
    result: 'skus',
    // `{ "skus": [...] }`: the operation's whole `data`.
    bodyIsData: true,
    errors: ['INSUFFICIENT_STOCK', 'IDEMPOTENCY_CONFLICT'],
    requestHeaders: [{ ...STOCK_IDEMPOTENCY_KEY_HEADER, example: 'docs-example-stock-1' }],
    example: {
      // SKU 1 is the first demo item's first SKU; +5 can never be refused, and the key makes
      // "Try it out" twice adjust once.
      body: { adjustments: [{ sku_id: 1, delta: 5 }], allow_negative: false },
      description:
        'The adjusted SKUs with their new stock. Sent again with the same Idempotency-Key (as this example is), it ' +
        'answers the same without adjusting again; change the key for another adjustment.',
    },
  },
];
