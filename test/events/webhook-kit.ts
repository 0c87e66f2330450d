/**
 * The webhook tests' helpers (webhooks.test.ts, webhook-rules.test.ts): webhooks created on a local
 * receiver, their delivery log read, and waits for requests or finished attempts — over the app, the
 * owner's token and the receiver a test file holds (read when called: its beforeAll sets them).
 */
import { Webhook } from 'standardwebhooks';
import { expect } from 'vitest';
import type { TestApp } from '../helpers/test-app.ts';
import type { Received, WebhookReceiver } from '../helpers/webhook-receiver.ts';

export const WEBHOOK_FIELDS = 'id url events description disabled disabledReason createdAt';
export const DELIVERY_FIELDS = 'id eventId attempt at status responseStatus responseBody durationMs nextAttemptAt';

/** A delivery request verified as a receiver would, with the `standardwebhooks` package: its payload (throws when the signature is not `secret`'s). */
export const verify = (secret: string, request: Received) =>
  new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as Record<string, any>;

export function webhookKit(held: () => { app: TestApp; owner: string; receiver: WebhookReceiver }) {
  const gql = (query: string, variables: Record<string, unknown> = {}, token = held().owner) =>
    held().app.graphql(query, variables, { token });

  /** A webhook on the receiver's `path`: it and its secret (shown once). */
  async function createWebhook(path: string, events: string[] = ['*'], description?: string) {
    const res = await gql(
      `mutation($input: CreateWebhookInput!) { createWebhook(input: $input) { webhook { ${WEBHOOK_FIELDS} } secret } }`,
      { input: { url: `${held().receiver.url}${path}`, events, ...(description ? { description } : {}) } },
    );
    expect(res.body.errors, res.text).toBeUndefined();
    return res.body.data.createWebhook as { webhook: { id: number; url: string }; secret: string };
  }

  /** The delivery log of `webhookId` (optionally of one status), as the API orders it: newest first. */
  async function deliveries(webhookId: number, status?: string) {
    const res = await gql(
      `query($id: Int!, $status: WebhookDeliveryStatus) { webhookDeliveries(webhookId: $id, status: $status, limit: 100) { deliveries { ${DELIVERY_FIELDS} } total } }`,
      { id: webhookId, status },
    );
    expect(res.body.errors, res.text).toBeUndefined();
    return res.body.data.webhookDeliveries.deliveries as Array<Record<string, any>>;
  }

  /** Waits until `path` has received `count` requests. */
  async function receivedOn(path: string, count: number, timeout = 5000): Promise<Received[]> {
    const { receiver } = held();
    await expect.poll(() => receiver.on(path).length, { timeout, interval: 50 }).toBeGreaterThanOrEqual(count);
    return receiver.on(path);
  }

  /** Waits until the log of `webhookId` holds `count` finished attempts; the log, newest first. */
  async function settled(webhookId: number, count: number, timeout = 5000) {
    await expect
      .poll(async () => (await deliveries(webhookId)).filter((d) => d.durationMs !== null).length, {
        timeout,
        interval: 100,
      })
      .toBeGreaterThanOrEqual(count);
    return deliveries(webhookId);
  }

  return { gql, createWebhook, deliveries, receivedOn, settled };
}
