/**
 * The owner's webhooks (contract §14.2): create (the secret shown once), list, change, delete, rotate
 * the secret (the previous one signs beside it for 24 h), the attempts log, a redelivery of any event
 * still kept, and a test event. Changes are audited (`webhook.create|update|delete|rotate_secret`);
 * secrets never reach the audit log, the logs or an error.
 */
import { adminWrite, type Tx } from '../audit/admin-write.ts';
import { changesBetween } from '../audit/audit-log.ts';
import { notFound, validationFailed } from '../errors/app-error.ts';
import type { Webhook, WebhookDelivery } from '../generated/prisma/client.ts';
import type { RequestContext } from '../request-context.ts';
import { type Page, pageOf, pageWindow } from '../validation/paging.ts';
import { newEventId } from './event-log.ts';
import { DELIVERY_QUEUE, type DeliveryJob, type TestEvent } from './webhook-delivery.ts';
import { hostProblem, urlProblem } from './webhook-destination.ts';
import { newWebhookSecret, PREVIOUS_SECRET_HOURS } from './webhook-signing.ts';
import type { CreateWebhookInput, UpdateWebhookInput } from './webhooks.schema.ts';

export interface CreatedWebhook {
  webhook: Webhook;
  /** `whsec_…`: shown in this answer; afterwards only used to sign. */
  secret: string;
}

/** What the audit log shows of a webhook (never its secrets). */
const audited = (w: Webhook) => ({
  url: w.url,
  events: w.events,
  description: w.description,
  disabled: w.disabled,
  disabledReason: w.disabledReason,
});

/** A URL the service may deliver to, or VALIDATION_FAILED on `url` saying why not. */
async function checkUrl(ctx: RequestContext, url: string): Promise<void> {
  const problem =
    urlProblem(url, ctx.services.config.webhooks) ?? (await hostProblem(url, ctx.services.config.webhooks));
  if (problem) throw validationFailed([{ field: 'url', message: problem }]);
}

export async function createWebhook(ctx: RequestContext, input: CreateWebhookInput): Promise<CreatedWebhook> {
  await checkUrl(ctx, input.url);
  const secret = newWebhookSecret();
  const webhook = await adminWrite(ctx, async (tx, audit) => {
    const created = await tx.webhook.create({ data: { ...input, secret } });
    audit({
      action: 'webhook.create',
      target: { type: 'webhook', id: created.id },
      changes: changesBetween(null, audited(created)),
    });
    return created;
  });
  return { webhook, secret };
}

export const listWebhooks = (ctx: RequestContext): Promise<Webhook[]> =>
  ctx.db.prisma.webhook.findMany({ orderBy: { id: 'asc' } });

/** The webhook `id` (read by `db`: the request's client, or a write's transaction), or NOT_FOUND. */
async function existing(db: Pick<Tx, 'webhook'>, id: number): Promise<Webhook> {
  const webhook = await db.webhook.findUnique({ where: { id } });
  if (!webhook) throw notFound('webhook');
  return webhook;
}

export async function updateWebhook(ctx: RequestContext, id: number, input: UpdateWebhookInput): Promise<Webhook> {
  if (input.url != null) await checkUrl(ctx, input.url);
  return adminWrite(ctx, async (tx, audit) => {
    const before = await existing(tx, id);
    const enabling = input.disabled === false && before.disabled;
    const after = await tx.webhook.update({
      where: { id },
      data: {
        ...(input.url != null ? { url: input.url } : {}),
        ...(input.events != null ? { events: input.events } : {}),
        ...(input.description != null ? { description: input.description } : {}),
        ...(input.disabled != null ? { disabled: input.disabled } : {}),
        // Enabled again: its failing streak starts afresh, and the reason is history (in the audit log).
        ...(enabling ? { disabledReason: null, failingSince: null } : {}),
      },
    });
    audit({
      action: 'webhook.update',
      target: { type: 'webhook', id },
      changes: changesBetween(audited(before), audited(after)),
    });
    return after;
  });
}

export async function deleteWebhook(ctx: RequestContext, id: number): Promise<true> {
  await adminWrite(ctx, async (tx, audit) => {
    const before = await existing(tx, id);
    await tx.webhook.delete({ where: { id } });
    audit({
      action: 'webhook.delete',
      target: { type: 'webhook', id },
      changes: changesBetween(audited(before), null),
    });
  });
  return true;
}

/** A new secret, answered once; the one it replaces keeps signing (a second signature) for 24 h. */
export async function rotateWebhookSecret(ctx: RequestContext, id: number): Promise<string> {
  const secret = newWebhookSecret();
  await adminWrite(ctx, async (tx, audit) => {
    const before = await existing(tx, id);
    await tx.webhook.update({
      where: { id },
      data: {
        secret,
        previousSecret: before.secret,
        previousSecretUntil: new Date(Date.now() + PREVIOUS_SECRET_HOURS * 3600_000),
      },
    });
    audit({ action: 'webhook.rotate_secret', target: { type: 'webhook', id }, changes: { secret: [true, true] } });
  });
  return secret;
}

export async function listDeliveries(
  ctx: RequestContext,
  args: { webhookId: number; status?: WebhookDelivery['status'] | null; page: number; limit: number },
): Promise<Page<WebhookDelivery>> {
  await existing(ctx.db.prisma, args.webhookId);
  const where = { webhookId: args.webhookId, ...(args.status ? { status: args.status } : {}) };
  const { offset, limit } = pageWindow(args);
  const [rows, total] = await Promise.all([
    ctx.db.prisma.webhookDelivery.findMany({ where, orderBy: { id: 'desc' }, skip: offset, take: limit }),
    ctx.db.prisma.webhookDelivery.count({ where }),
  ]);
  return pageOf(rows, args, total);
}

/** A webhook deliveries may be sent to now: it exists (else NOT_FOUND) and is enabled (else VALIDATION_FAILED). */
async function enabled(ctx: RequestContext, webhookId: number): Promise<Webhook> {
  const webhook = await existing(ctx.db.prisma, webhookId);
  if (webhook.disabled) throw validationFailed([{ field: 'webhookId', message: 'is disabled; enable it first' }]);
  return webhook;
}

/** Queues one delivery now; the job makes the attempt, like any other. */
async function queueOne(ctx: RequestContext, job: DeliveryJob): Promise<true> {
  await ctx.services.jobs.send(DELIVERY_QUEUE, job);
  return true;
}

/** Delivers an event still kept once more (delivered ones too): a new attempt, the same `webhook-id`. */
export async function redeliverEvent(ctx: RequestContext, webhookId: number, eventId: string): Promise<true> {
  await enabled(ctx, webhookId);
  const event = await ctx.db.prisma.event.findUnique({ where: { id: eventId }, select: { id: true } });
  if (!event) throw notFound('event');
  return queueOne(ctx, { webhookIds: [webhookId], eventId, try: 1 });
}

/** A `webhook.test` event to this webhook alone (not in the log). */
export async function sendTestEvent(ctx: RequestContext, webhookId: number): Promise<true> {
  const webhook = await enabled(ctx, webhookId);
  const test: TestEvent = {
    id: newEventId(),
    seq: 0,
    type: 'webhook.test',
    at: new Date().toISOString(),
    data: { webhook: { id: webhook.id, url: webhook.url } },
  };
  return queueOne(ctx, { webhookIds: [webhookId], eventId: test.id, try: 1, test });
}
