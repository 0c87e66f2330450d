/** Webhooks in GraphQL (contract §14.2), the owner's alone. */
import type { Webhook, WebhookDelivery } from '../generated/prisma/client.ts';
import { builder } from '../graphql/builder.ts';
import { pageType } from '../graphql/page-type.ts';
import { pageSizeCost } from '../validation/paging.ts';
import {
  createWebhookInput,
  deliveriesInput,
  redeliverInput,
  updateWebhookInput,
  webhookIdInput,
} from './webhooks.schema.ts';
import {
  type CreatedWebhook,
  createWebhook,
  deleteWebhook,
  listDeliveries,
  listWebhooks,
  redeliverEvent,
  rotateWebhookSecret,
  sendTestEvent,
  updateWebhook,
} from './webhooks.service.ts';

const WebhookType = builder.objectRef<Webhook>('Webhook').implement({
  description: 'Where events of the listed types are delivered, signed per Standard Webhooks (contract §14.2).',
  fields: (t) => ({
    id: t.exposeInt('id'),
    url: t.exposeString('url'),
    events: t.exposeStringList('events', { description: 'Event types, or `*` for every one.' }),
    description: t.exposeString('description'),
    disabled: t.exposeBoolean('disabled', {
      description: 'True: nothing is delivered (disabled by an owner, or after 5 days of failures).',
    }),
    disabledReason: t.exposeString('disabledReason', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const CreatedWebhookType = builder.objectRef<CreatedWebhook>('CreatedWebhook').implement({
  fields: (t) => ({
    webhook: t.field({ type: WebhookType, resolve: (c) => c.webhook }),
    secret: t.exposeString('secret', {
      description: '`whsec_…`: the signing secret, shown in this answer only (rotateWebhookSecret makes a new one).',
    }),
  }),
});

const DeliveryStatusType = builder.enumType('WebhookDeliveryStatus', {
  description:
    '`succeeded` (a 2xx within 10 s), `pending` (another attempt follows at `nextAttemptAt`), `failed` (the last).',
  values: ['pending', 'succeeded', 'failed'] as const,
});

const WebhookDeliveryType = builder.objectRef<WebhookDelivery>('WebhookDelivery').implement({
  description: 'One attempt to deliver an event, recorded before its request was sent.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    eventId: t.exposeString('eventId'),
    attempt: t.exposeInt('attempt', { description: '1 for the first attempt of this event to this webhook.' }),
    at: t.expose('at', { type: 'DateTime' }),
    status: t.expose('status', { type: DeliveryStatusType }),
    responseStatus: t.exposeInt('responseStatus', {
      nullable: true,
      description: 'None: no answer (why: `responseBody`).',
    }),
    responseBody: t.exposeString('responseBody', {
      nullable: true,
      description: 'The first KiB of the answer; without one, why (no answer within 10 s, refused address …).',
    }),
    durationMs: t.exposeInt('durationMs', { nullable: true, description: 'None while the attempt is under way.' }),
    nextAttemptAt: t.expose('nextAttemptAt', { type: 'DateTime', nullable: true }),
  }),
});

const WebhookDeliveryPageType = pageType({
  name: 'WebhookDeliveryPage',
  description: "A webhook's attempts, newest first.",
  of: WebhookDeliveryType,
  list: 'deliveries',
  total: 'Attempts matching the filter, on every page.',
});

const CreateWebhookInput = builder
  .inputType('CreateWebhookInput', {
    fields: (t) => ({
      url: t.string({
        required: true,
        description: 'https:// (http:// with WEBHOOK_ALLOW_HTTP); its host must resolve to public addresses.',
      }),
      events: t.stringList({ required: true, description: 'Event types (`item.updated`, …) or `*`.' }),
      description: t.string({ description: 'At most 500 characters.' }),
    }),
  })
  .validate(createWebhookInput);

const UpdateWebhookInput = builder
  .inputType('UpdateWebhookInput', {
    description: 'Each field given replaces it.',
    fields: (t) => ({
      url: t.string(),
      events: t.stringList(),
      description: t.string(),
      disabled: t.boolean({ description: 'false enables a disabled webhook again (its failing streak restarts).' }),
    }),
  })
  .validate(updateWebhookInput);

builder.queryFields((t) => ({
  webhooks: t.field({
    type: [WebhookType],
    description: 'Every webhook, oldest first.',
    authScopes: { owner: true },
    resolve: (_root, _args, ctx) => listWebhooks(ctx),
  }),
  webhookDeliveries: t.field({
    type: WebhookDeliveryPageType,
    description: "A webhook's delivery attempts, newest first; `status` filters.",
    authScopes: { owner: true },
    complexity: (args) => ({ field: 1, multiplier: pageSizeCost(args.limit) }),
    args: t.validate(
      {
        webhookId: t.arg.int({ required: true }),
        status: t.arg({ type: DeliveryStatusType }),
        page: t.arg.int({ description: '>= 1, default 1.' }),
        limit: t.arg.int({ description: '1..100, default 20.' }),
      },
      deliveriesInput,
    ),
    resolve: (_root, args, ctx) => listDeliveries(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  createWebhook: t.field({
    type: CreatedWebhookType,
    description: 'Creates a webhook; its signing secret is in the answer and shown nowhere else.',
    authScopes: { owner: true },
    args: { input: t.arg({ type: CreateWebhookInput, required: true }) },
    resolve: (_root, args, ctx) => createWebhook(ctx, args.input),
  }),
  updateWebhook: t.field({
    type: WebhookType,
    authScopes: { owner: true },
    args: {
      id: t.arg.int({ required: true }),
      input: t.arg({ type: UpdateWebhookInput, required: true }),
    },
    resolve: (_root, args, ctx) => updateWebhook(ctx, args.id, args.input),
  }),
  deleteWebhook: t.boolean({
    description: 'Deletes a webhook with its attempts log; its pending attempts are not made.',
    authScopes: { owner: true },
    args: t.validate({ id: t.arg.int({ required: true }) }, webhookIdInput),
    resolve: (_root, args, ctx) => deleteWebhook(ctx, args.id),
  }),
  rotateWebhookSecret: t.string({
    description: 'A new signing secret, answered once; for 24 h the previous one signs too (a second signature).',
    authScopes: { owner: true },
    args: t.validate({ id: t.arg.int({ required: true }) }, webhookIdInput),
    resolve: (_root, args, ctx) => rotateWebhookSecret(ctx, args.id),
  }),
  redeliverEvent: t.boolean({
    description:
      'Delivers an event still kept (delivered ones too) once more: a new attempt with the same `webhook-id`.',
    authScopes: { owner: true },
    args: t.validate(
      { webhookId: t.arg.int({ required: true }), eventId: t.arg.string({ required: true }) },
      redeliverInput,
    ),
    resolve: (_root, args, ctx) => redeliverEvent(ctx, args.webhookId, args.eventId),
  }),
  sendTestEvent: t.boolean({
    description: 'Delivers a `webhook.test` event to this webhook alone.',
    authScopes: { owner: true },
    args: t.validate({ webhookId: t.arg.int({ required: true }) }, deliveriesInput.pick({ webhookId: true })),
    resolve: (_root, args, ctx) => sendTestEvent(ctx, args.webhookId),
  }),
}));
