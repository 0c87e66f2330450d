/**
 * Contract §14.2 through the real server: webhooks created, changed and deleted by the owner (the
 * secret shown once, audited without it); deliveries signed per Standard Webhooks — verified here with
 * the `standardwebhooks` package, as a receiver would — with the event as body; every attempt in the
 * log (the receiver's count equals it); a failure retried with the same `webhook-id` after ~5 s; a
 * redelivery and a test event; rotation signing with both secrets; 5 days of failures disabling the
 * webhook; redirects not followed, 64 KiB read, 1 KiB kept; and the destination rules (https only,
 * no private addresses, at creation and at every attempt).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DELIVERY_BATCH,
  DELIVERY_QUEUE,
  DELIVERY_WORKERS,
  queueDeliveries,
  WEBHOOKS_PER_JOB,
} from '../../src/events/webhook-delivery.ts';
import { loginAsAdmin, makeAdmin } from '../helpers/accounts.ts';
import { makeCategory } from '../helpers/catalog.ts';
import { itemBody, postItem } from '../helpers/catalog-admin.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { DELIVERY_FIELDS, verify, WEBHOOK_FIELDS, webhookKit } from './webhook-kit.ts';

let app: TestApp;
let owner: string;
let receiver: WebhookReceiver;
let category: { id: number };

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  app = await startTestApp({ LOGIN_IP_PER_MINUTE: '1000', WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' });
  owner = await loginAsAdmin(app);
  category = await makeCategory(app, { name: 'Hooks' });
});
afterAll(async () => {
  await app.close();
  await receiver.close();
});

const { gql, createWebhook, deliveries, receivedOn, settled } = webhookKit(() => ({ app, owner, receiver }));

async function createItem(name: string) {
  const res = await postItem(app, owner, itemBody(category.id, { name }));
  expect(res.status, res.text).toBe(201);
  return res.body as { id: number };
}

describe('managing webhooks (contract §14.2)', () => {
  it('when the owner creates one, then the answer has a whsec_ secret of 32 bytes, the audit entry has none, and the list shows it', async () => {
    const { webhook, secret } = await createWebhook('/managed', ['item.created', 'item.created'], 'ERP');
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(webhook).toMatchObject({
      url: `${receiver.url}/managed`,
      events: ['item.created'],
      description: 'ERP',
      disabled: false,
      disabledReason: null,
    });
    const audit = await app.db.prisma.auditEntry.findMany({ where: { targetType: 'webhook', targetId: webhook.id } });
    expect(audit.map((a) => a.action)).toEqual(['webhook.create']);
    expect(JSON.stringify(audit)).not.toContain(secret.slice(6, 20));
    const list = await gql(`{ webhooks { ${WEBHOOK_FIELDS} } }`);
    expect(list.body.data.webhooks.map((w: { id: number }) => w.id)).toContain(webhook.id);
    expect(list.text).not.toContain(secret.slice(6, 20));

    const updated = await gql(
      `mutation($id: Int!) { updateWebhook(id: $id, input: { events: ["item.updated"], description: "ERP 2" }) { ${WEBHOOK_FIELDS} } }`,
      { id: webhook.id },
    );
    expect(updated.body.data.updateWebhook).toMatchObject({ events: ['item.updated'], description: 'ERP 2' });
    const removed = await gql('mutation($id: Int!) { deleteWebhook(id: $id) }', { id: webhook.id });
    expect(removed.body.data.deleteWebhook).toBe(true);
    const actions = await app.db.prisma.auditEntry.findMany({
      where: { targetType: 'webhook', targetId: webhook.id },
      orderBy: { id: 'asc' },
    });
    expect(actions.map((a) => a.action)).toEqual(['webhook.create', 'webhook.update', 'webhook.delete']);
    const again = await gql('mutation($id: Int!) { deleteWebhook(id: $id) }', { id: webhook.id });
    expect(again.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('when the input is wrong, then VALIDATION_FAILED names the field; another role is FORBIDDEN', async () => {
    const create = (input: Record<string, unknown>) =>
      gql('mutation($input: CreateWebhookInput!) { createWebhook(input: $input) { secret } }', { input });
    for (const [input, field] of [
      [{ url: `${receiver.url}/x`, events: [] }, 'events'],
      [{ url: `${receiver.url}/x`, events: ['item.exploded'] }, 'events'],
      [{ url: 'ftp://127.0.0.1/x', events: ['*'] }, 'url'],
      [{ url: 'not a url', events: ['*'] }, 'url'],
      [{ url: `${receiver.url}/x`, events: ['*'], description: 'x'.repeat(501) }, 'description'],
    ] as const) {
      const res = await create(input);
      expect(res.body.errors?.[0]?.extensions?.code, res.text).toBe('VALIDATION_FAILED');
      expect(JSON.stringify(res.body.errors[0].extensions.errors)).toContain(field);
    }
    const manager = await makeAdmin(app, { role: 'catalog_manager', password: 'manager-password-1' });
    const token = await loginAsAdmin(app, { username: manager.username, password: 'manager-password-1' });
    const res = await gql('{ webhooks { id } }', {}, token);
    expect(res.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });
});

describe('delivery (contract §14.2)', () => {
  it('when an item is created, then the receiver gets the event signed per Standard Webhooks, and the log counts the attempt', async () => {
    const { webhook, secret } = await createWebhook('/signed', ['item.created']);
    const item = await createItem('Signed lamp');
    const [request] = await receivedOn('/signed', 1);
    const payload = verify(secret, request!);
    expect(payload).toMatchObject({ type: 'item.created', data: { item: { id: item.id, name: 'Signed lamp' } } });
    expect(Object.keys(payload)).toEqual(['id', 'seq', 'type', 'timestamp', 'data']);
    expect(request!.headers['webhook-id']).toBe(payload.id);
    expect(request!.headers['content-type']).toBe('application/json');
    const [event] = (
      await app.request(`/admin/api/events?after=0&types=item.created&limit=500`, { token: owner })
    ).body.events.filter((e: { data: { item: { id: number } } }) => e.data.item.id === item.id);
    expect(payload).toMatchObject({ id: event.id, seq: event.seq, timestamp: event.at });
    expect(Math.abs(Number(request!.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);

    const log = await settled(webhook.id, 1);
    expect(log).toEqual([
      expect.objectContaining({
        eventId: payload.id,
        attempt: 1,
        status: 'succeeded',
        responseStatus: 200,
        responseBody: 'ok',
        nextAttemptAt: null,
      }),
    ]);
    expect(log[0]!.durationMs).toBeGreaterThanOrEqual(0);
    // Only the types asked for: a change is no item.created.
    await app.request(`/admin/api/items/${item.id}`, { method: 'PATCH', token: owner, body: { price: 9 } });
    await createItem('Second signed lamp');
    await receivedOn('/signed', 2);
    expect(receiver.on('/signed').map((r) => JSON.parse(r.body).type)).toEqual(['item.created', 'item.created']);
    expect(await settled(webhook.id, 2)).toHaveLength(receiver.on('/signed').length);
  });

  it('when the receiver fails, then the attempt is pending with its next time ~5 s on, and the retry carries the same webhook-id', async () => {
    const { webhook, secret } = await createWebhook('/flaky', ['item.created']);
    receiver.answerNext('/flaky', { status: 503, body: 'busy' });
    await createItem('Flaky lamp');
    const [first] = await settled(webhook.id, 1);
    expect(first).toMatchObject({ attempt: 1, status: 'pending', responseStatus: 503, responseBody: 'busy' });
    const wait = Date.parse(first!.nextAttemptAt) - Date.parse(first!.at);
    expect(wait).toBeGreaterThanOrEqual(4000);
    expect(wait).toBeLessThanOrEqual(6500);
    const requests = await receivedOn('/flaky', 2, 15_000);
    expect(requests[1]!.headers['webhook-id']).toBe(requests[0]!.headers['webhook-id']);
    verify(secret, requests[1]!);
    const log = await settled(webhook.id, 2);
    expect(log.map((d) => [d.attempt, d.status])).toEqual([
      [2, 'succeeded'],
      [1, 'pending'],
    ]);
    expect(log).toHaveLength(receiver.on('/flaky').length);
  });

  it('when an event is redelivered and a test event sent, then each is one more attempt, signed, the redelivery with the same webhook-id', async () => {
    const { webhook, secret } = await createWebhook('/again', ['item.created']);
    await createItem('Again lamp');
    const [original] = await receivedOn('/again', 1);
    const eventId = original!.headers['webhook-id'] as string;
    const res = await gql('mutation($w: Int!, $e: String!) { redeliverEvent(webhookId: $w, eventId: $e) }', {
      w: webhook.id,
      e: eventId,
    });
    expect(res.body.data?.redeliverEvent, res.text).toBe(true);
    const [, redelivered] = await receivedOn('/again', 2);
    expect(redelivered!.headers['webhook-id']).toBe(eventId);
    expect(redelivered!.body).toBe(original!.body);
    const test = await gql('mutation($w: Int!) { sendTestEvent(webhookId: $w) }', { w: webhook.id });
    expect(test.body.data?.sendTestEvent, test.text).toBe(true);
    const [, , tested] = await receivedOn('/again', 3);
    expect(verify(secret, tested!)).toMatchObject({ type: 'webhook.test', data: { webhook: { id: webhook.id } } });
    const log = await settled(webhook.id, 3);
    expect(log.map((d) => [d.eventId === eventId, d.attempt])).toEqual([
      [false, 1],
      [true, 2],
      [true, 1],
    ]);
    const unknown = await gql('mutation($w: Int!) { redeliverEvent(webhookId: $w, eventId: "evt_nope") }', {
      w: webhook.id,
    });
    expect(unknown.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('when an event goes to more webhooks than one job names, then each gets its attempt; a job queued by an earlier version (one webhookId) is still made', async () => {
    // More than WEBHOOKS_PER_JOB: the event's attempts are split over two jobs.
    const paths = Array.from({ length: WEBHOOKS_PER_JOB + 1 }, (_, i) => ['/one', '/two'][i] ?? `/shared-${i}`);
    const hooks = await Promise.all(paths.map((path) => createWebhook(path, ['item.created'])));
    await createItem('Shared lamp');
    const firsts = await Promise.all(paths.map((path) => receivedOn(path, 1)));
    const eventId = firsts[0]![0]!.headers['webhook-id'] as string;
    for (const [i, [request]] of firsts.entries()) {
      expect(request!.headers['webhook-id']).toBe(eventId);
      expect(verify(hooks[i]!.secret, request!)).toMatchObject({
        type: 'item.created',
        data: { item: { name: 'Shared lamp' } },
      });
    }
    for (const { webhook } of hooks)
      expect((await settled(webhook.id, 1)).map((d) => [d.eventId, d.attempt, d.status])).toEqual([
        [eventId, 1, 'succeeded'],
      ]);
    // Its first attempts' jobs: none names more than WEBHOOKS_PER_JOB, together they name every webhook.
    const queued = await app.db.sql.query<{ hooks: number[] }>(
      `SELECT ARRAY(SELECT jsonb_array_elements_text(data->'webhookIds')::int) AS hooks
         FROM pgboss.job WHERE name = $1 AND data->>'eventId' = $2`,
      [DELIVERY_QUEUE, eventId],
    );
    expect(queued.length).toBeGreaterThanOrEqual(2);
    for (const { hooks: named } of queued) expect(named.length).toBeLessThanOrEqual(WEBHOOKS_PER_JOB);
    expect(queued.flatMap((q) => q.hooks)).toEqual(expect.arrayContaining(hooks.map((h) => h.webhook.id)));
    // A job as queued before one job named all of an event's webhooks: { webhookId, eventId, try }.
    await app.services.jobs.send(DELIVERY_QUEUE, { webhookId: hooks[1]!.webhook.id, eventId, try: 1 });
    const [, again] = await receivedOn('/two', 2);
    expect(again!.headers['webhook-id']).toBe(eventId);
    expect((await settled(hooks[1]!.webhook.id, 2)).map((d) => d.attempt)).toEqual([2, 1]);
    expect(receiver.on('/one')).toHaveLength(1);
  });

  it('when two jobs taken in one fetch name the same webhook and event, then both attempts are made, numbered one after the other', async () => {
    const { webhook } = await createWebhook('/twice', ['item.created']);
    await createItem('Twice lamp');
    const [first] = await receivedOn('/twice', 1);
    const eventId = first!.headers['webhook-id'] as string;
    // Queued together (two redeliveries at once, say): a worker's fetch takes both, and their attempts
    // begin in one statement (webhook-delivery.ts attemptStarts) — without colliding on the number.
    await app.db.sql.transaction((query) =>
      queueDeliveries(query, app.services.jobs, app.config, [
        { job: { webhookIds: [webhook.id], eventId, try: 1 } },
        { job: { webhookIds: [webhook.id], eventId, try: 1 } },
      ]),
    );
    app.services.jobs.wake(DELIVERY_QUEUE);
    const requests = await receivedOn('/twice', 3);
    expect(requests.map((r) => r.headers['webhook-id'])).toEqual([eventId, eventId, eventId]);
    expect((await settled(webhook.id, 3)).map((d) => [d.attempt, d.status])).toEqual([
      [3, 'succeeded'],
      [2, 'succeeded'],
      [1, 'succeeded'],
    ]);
  });

  it('when the secret is rotated, then both secrets sign for 24 h, each signature verifies, and the audit log names the rotation', async () => {
    const { webhook, secret } = await createWebhook('/rotated', ['item.created']);
    const rotated = await gql('mutation($id: Int!) { rotateWebhookSecret(id: $id) }', { id: webhook.id });
    const fresh = rotated.body.data.rotateWebhookSecret as string;
    expect(fresh).toMatch(/^whsec_/);
    expect(fresh).not.toBe(secret);
    await createItem('Rotated lamp');
    const [request] = await receivedOn('/rotated', 1);
    expect((request!.headers['webhook-signature'] as string).split(' ')).toHaveLength(2);
    expect(verify(fresh, request!)).toMatchObject({ type: 'item.created' });
    expect(verify(secret, request!)).toMatchObject({ type: 'item.created' });
    expect(() => verify(`whsec_${Buffer.alloc(32, 7).toString('base64')}`, request!)).toThrow();
    const audit = await app.db.prisma.auditEntry.findMany({ where: { targetType: 'webhook', targetId: webhook.id } });
    expect(audit.map((a) => a.action)).toContain('webhook.rotate_secret');
    expect(JSON.stringify(audit)).not.toContain(fresh.slice(6, 20));
  });

  it('when every attempt has failed for 5 days, then the next failure disables the webhook, audited with the reason, and nothing more is sent', async () => {
    const { webhook } = await createWebhook('/dead', ['item.created']);
    await app.db.prisma.webhook.update({
      where: { id: webhook.id },
      data: { failingSince: new Date(Date.now() - 6 * 86_400_000) },
    });
    receiver.answerNext('/dead', { status: 500 });
    await createItem('Dead lamp');
    await expect
      .poll(async () => (await app.db.prisma.webhook.findUnique({ where: { id: webhook.id } }))?.disabled, {
        timeout: 5000,
      })
      .toBe(true);
    const stored = await app.db.prisma.webhook.findUnique({ where: { id: webhook.id } });
    expect(stored?.disabledReason).toMatch(/5 days/);
    const [entry] = await app.db.prisma.auditEntry.findMany({
      where: { targetType: 'webhook', targetId: webhook.id, action: 'webhook.disable' },
    });
    expect(entry).toMatchObject({ actorType: 'system' });
    const before = receiver.on('/dead').length;
    await createItem('Dead lamp 2');
    await createItem('Live marker');
    // The next webhook created after is served; the disabled one is not.
    const { webhook: live } = await createWebhook('/alive', ['item.created']);
    await createItem('Live lamp');
    await receivedOn('/alive', 1);
    expect(receiver.on('/dead')).toHaveLength(before);
    expect(live.id).toBeGreaterThan(webhook.id);
    // Enabled again by the owner: its streak restarts.
    const enabled = await gql(
      `mutation($id: Int!) { updateWebhook(id: $id, input: { disabled: false }) { disabled disabledReason } }`,
      { id: webhook.id },
    );
    expect(enabled.body.data.updateWebhook).toEqual({ disabled: false, disabledReason: null });
  });

  it('when the receiver redirects or answers at length, then the redirect is not followed and 1 KiB of the answer is kept', async () => {
    const { webhook } = await createWebhook('/odd', ['item.created']);
    receiver.answerNext(
      '/odd',
      { status: 302, headers: { location: `${receiver.url}/elsewhere` } },
      { status: 200, body: 'x'.repeat(200_000) },
    );
    await createItem('Odd lamp 1');
    const [redirected] = await settled(webhook.id, 1);
    expect(redirected).toMatchObject({ responseStatus: 302, status: 'pending' });
    expect(receiver.on('/elsewhere')).toHaveLength(0);
    const log = await settled(webhook.id, 2, 10_000);
    expect(log[0]).toMatchObject({ responseStatus: 200, status: 'succeeded' });
    expect(log[0]!.responseBody).toHaveLength(1024);
  });

  it('when a receiver answers with a NUL character, then the answer is kept without it and no attempt of that event is made twice', async () => {
    // PostgreSQL's text holds no NUL: kept as it came, the outcome's statement failed, and with it the
    // outcomes written beside it (the other webhook's), whose job then ran again and sent again.
    const { webhook } = await createWebhook('/nul', ['item.created']);
    const beside = await createWebhook('/beside-nul', ['item.created']);
    receiver.answerNext('/nul', { status: 200, body: 'ok\0done' });
    await createItem('Nul lamp 1');
    const [kept] = await settled(webhook.id, 1);
    expect(kept).toMatchObject({ status: 'succeeded', responseStatus: 200, responseBody: 'ok\uFFFDdone' });
    expect(await settled(beside.webhook.id, 1)).toMatchObject([{ status: 'succeeded' }]);
    // A job run again would have sent again within a second or so.
    await new Promise((r) => setTimeout(r, 1500));
    expect(receiver.on('/nul')).toHaveLength(1);
    expect(receiver.on('/beside-nul')).toHaveLength(1);
    expect(await deliveries(webhook.id)).toHaveLength(1);
  });

  it('when one change queues more deliveries than the workers take at once, then every one is made, once', async () => {
    // DELIVERY_WORKERS × DELIVERY_BATCH drafts made active in one transaction: twice as many events
    // (updated and published each) as the workers' batches hold, dispatched in one round. How soon they
    // arrive is the bench's to measure (`npm run bench -- --webhooks`, docs/performance.md), not a timed
    // assertion here.
    const drafts: number[] = [];
    for (let n = 0; n < DELIVERY_WORKERS * DELIVERY_BATCH; n++) {
      const res = await postItem(app, owner, itemBody(category.id, { name: `Burst lamp ${n}`, status: 'draft' }));
      expect(res.status, res.text).toBe(201);
      drafts.push(res.body.id);
    }
    await createWebhook('/burst');
    const bulk = await gql('mutation($ids: [Int!]!) { setItemsStatus(ids: $ids, status: active) }', { ids: drafts });
    expect(bulk.body.data?.setItemsStatus, bulk.text).toBe(drafts.length);
    const requests = await receivedOn('/burst', 2 * drafts.length, 20_000);
    expect(new Set(requests.map((r) => r.headers['webhook-id'])).size).toBe(2 * drafts.length);
    expect(requests).toHaveLength(2 * drafts.length);
  });
});

describe('destinations (contract §14.2)', () => {
  let strict: TestApp;
  let strictOwner: string;
  beforeAll(async () => {
    strict = await startTestApp({ LOGIN_IP_PER_MINUTE: '1000' });
    strictOwner = await loginAsAdmin(strict);
  });
  afterAll(() => strict.close());

  it('when a URL is not https or its host is not public, then creation is refused on url; with the flags it is allowed', async () => {
    for (const url of [
      `${receiver.url}/plain-http`,
      'https://127.0.0.1/hook',
      'https://localhost/hook',
      'https://10.1.2.3/hook',
      'https://192.168.0.9/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/hook',
      'https://[::ffff:10.0.0.1]/hook',
      'https://224.0.0.1/hook',
      'https://user:pass@93.184.216.34/hook',
    ]) {
      const res = await strict.graphql(
        'mutation($input: CreateWebhookInput!) { createWebhook(input: $input) { secret } }',
        { input: { url, events: ['*'] } },
        { token: strictOwner },
      );
      expect(res.body.errors?.[0]?.extensions?.code, `${url}: ${res.text}`).toBe('VALIDATION_FAILED');
      expect(res.body.errors[0].extensions.errors[0].field).toBe('url');
    }
    const ok = await strict.graphql(
      'mutation($input: CreateWebhookInput!) { createWebhook(input: $input) { webhook { id } } }',
      { input: { url: 'https://93.184.216.34/hook', events: ['*'] } },
      { token: strictOwner },
    );
    expect(ok.body.errors, ok.text).toBeUndefined();
  });

  it('when a webhook’s host turns private after creation, then the attempt is refused at connection time and recorded', async () => {
    const created = await strict.graphql(
      'mutation($input: CreateWebhookInput!) { createWebhook(input: $input) { webhook { id } } }',
      { input: { url: 'https://93.184.216.34/turned', events: ['item.created'] } },
      { token: strictOwner },
    );
    const id = created.body.data.createWebhook.webhook.id as number;
    // As if its name now resolved to the machine itself (DNS rebinding).
    await strict.db.prisma.webhook.update({
      where: { id },
      data: { url: `https://127.0.0.1:${new URL(receiver.url).port}/turned` },
    });
    const category2 = await makeCategory(strict, { name: 'Strict' });
    const res = await postItem(strict, strictOwner, itemBody(category2.id));
    expect(res.status).toBe(201);
    await expect
      .poll(
        async () =>
          (await strict.db.prisma.webhookDelivery.findMany({ where: { webhookId: id, durationMs: { not: null } } }))
            .length,
        { timeout: 5000 },
      )
      .toBe(1);
    const [attempt] = await strict.db.prisma.webhookDelivery.findMany({ where: { webhookId: id } });
    expect(attempt).toMatchObject({ status: 'pending', responseStatus: null });
    expect(attempt!.responseBody).toMatch(/^refused: .*127\.0\.0\.1/);
    expect(receiver.on('/turned')).toHaveLength(0);
  });
});
