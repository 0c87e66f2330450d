/** Input rules of the webhook operations (contract §14.2), declared once. */
import { z } from 'zod';
import { pageArgs } from '../validation/paging.ts';
import { INT32_MAX, int, rule, text } from '../validation/rules.ts';
import { eventTypeFilter } from './events.schema.ts';

const url = text().trim().min(1, rule('must not be empty')).max(2048, rule('must be at most 2048 characters'));
const events = eventTypeFilter
  .min(1, 'must name at least one event type (or *)')
  .transform((types) => [...new Set(types)]);
const description = text().trim().max(500, rule('must be at most 500 characters'));

export const createWebhookInput = z.object({
  url,
  events,
  description: description.nullish().transform((v) => v ?? ''),
});
export type CreateWebhookInput = z.output<typeof createWebhookInput>;

/** Each field given replaces it; `disabled: false` enables a webhook that was disabled again. */
export const updateWebhookInput = z.object({
  url: url.nullish(),
  events: events.nullish(),
  description: description.nullish(),
  disabled: z.boolean({ error: 'must be true or false' }).nullish(),
});
export type UpdateWebhookInput = z.output<typeof updateWebhookInput>;

const id = int(1, INT32_MAX, 'must be a positive integer');
export const webhookIdInput = z.object({ id });
export const deliveriesInput = z.object({
  ...pageArgs,
  webhookId: id,
  status: z.enum(['pending', 'succeeded', 'failed'], { error: 'must be pending, succeeded or failed' }).nullish(),
});
export const redeliverInput = z.object({
  webhookId: id,
  eventId: text().trim().min(1, rule('must not be empty')).max(40, rule('must be at most 40 characters')),
});
