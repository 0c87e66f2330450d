/**
 * Contract §14 rules that no other test drives, through the real server on both databases: a stock
 * adjustment's `item.updated` event (§12.3); an unpublish time passing as one `item.unpublished`; the
 * feed's defaults (`after` 0, `limit` 100); a rotated secret's previous one no longer signing once its
 * 24 h are over; the destination check at every attempt through the connection's own DNS lookup (a
 * host NAME that now resolves to the machine itself); the retry schedule ending in `failed` after the
 * 8th attempt; an attempt whose outcome cannot be recorded put off to its schedule after 3 runs; and
 * events past EVENT_RETENTION_DAYS dropped by the dispatcher's first round.
 * Time travel is SQL: a rotation's `previous_secret_until`, pg-boss's `start_after` of a due retry,
 * an event's `at`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEventDispatch } from '../../src/events/event-dispatch.ts';
import { DELIVERY_FAILURES_TOLERATED, DELIVERY_QUEUE, RETRY_DELAYS_S } from '../../src/events/webhook-delivery.ts';
import { createLogger } from '../../src/logger.ts';
import { loginAsAdmin } from '../helpers/accounts.ts';
import { makeCategory } from '../helpers/catalog.ts';
import { itemBody, postItem } from '../helpers/catalog-admin.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { verify, webhookKit } from './webhook-kit.ts';

let app: TestApp;
let owner: string;
let receiver: WebhookReceiver;
let category: { id: number };

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  app = await startTestApp({ LOGIN_IP_PER_MINUTE: '1000', WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' });
  owner = await loginAsAdmin(app);
  category = await makeCategory(app, { name: 'Rules' });
});
afterAll(async () => {
  await app.close();
  await receiver.close();
});

interface FeedEvent {
  id: string;
  seq: number;
  type: string;
  at: string;
  actor: unknown;
  data: Record<string, any>;
}

async function feed(query = '', on = app, token = owner): Promise<{ events: FeedEvent[]; next_after: number }> {
  const res = await on.request(`/admin/api/events${query}`, { token });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

async function lastSeq(on = app): Promise<number> {
  const rows = await on.db.prisma.event.aggregate({ _max: { seq: true } });
  return rows._max.seq ?? 0;
}

async function createItem(overrides: Record<string, unknown> = {}) {
  const res = await postItem(app, owner, itemBody(category.id, overrides));
  expect(res.status, res.text).toBe(201);
  return res.body as { id: number; handle: string; version: number; skus: Array<{ id: number; stock: number }> };
}

const kit = webhookKit(() => ({ app, owner, receiver }));
const { receivedOn } = kit;
/** A webhook on the receiver, of `item.created` events unless told. */
const createWebhook = (path: string, events = ['item.created']) => kit.createWebhook(path, events);
/** Waits for `count` finished attempts of `webhookId`; its log, oldest first. */
const settled = async (webhookId: number, count: number, timeout?: number) =>
  (await kit.settled(webhookId, count, timeout)).sort((a, b) => a.attempt - b.attempt);

describe('the event log (contract §14.1)', () => {
  it('when stock is adjusted (§12.3), then the feed has one item.updated with the new stock and version', async () => {
    const item = await createItem({ name: 'Stocked lamp' });
    const sku = item.skus[0]!;
    const after = await lastSeq();
    const res = await app.request('/admin/api/stock-adjustments', {
      method: 'POST',
      token: owner,
      body: { adjustments: [{ sku_id: sku.id, delta: -4 }] },
      headers: { 'Idempotency-Key': `rules-stock-${item.id}` },
    });
    expect(res.status, res.text).toBe(200);
    const { events } = await feed(`?after=${after}`);
    expect(events.map((e) => [e.type, e.data.item.id])).toEqual([['item.updated', item.id]]);
    const updated = events[0]!.data.item;
    expect(updated.version).toBe(item.version + 1);
    expect(updated.skus.find((s: { id: number }) => s.id === sku.id).stock).toBe(sku.stock - 4);
    expect(events[0]!.actor).toMatchObject({ type: 'admin', name: 'root' });
  });

  it('when an item’s unpublish time passes, then it is unpublished by one event with no actor, once', async () => {
    const item = await createItem({ name: 'Fading lamp', status: 'active' });
    const after = await lastSeq();
    const res = await app.request(`/admin/api/items/${item.id}`, {
      method: 'PATCH',
      token: owner,
      body: { unpublish_at: new Date(Date.now() + 1500).toISOString() },
    });
    expect(res.status, res.text).toBe(200);
    const unpublished = async () =>
      (await feed(`?after=${after}&types=item.unpublished,item.published`)).events.map((e) => [e.type, e.data.item.id]);
    await expect.poll(unpublished, { timeout: 5000, interval: 100 }).toEqual([['item.unpublished', item.id]]);
    const [event] = (await feed(`?after=${after}&types=item.unpublished`)).events;
    expect(event!.actor).toBeNull();
    expect(event!.data.item).toMatchObject({ id: item.id, status: 'active' });
    // Passed once: the schedule watcher's next look (and the next change's) appends nothing more.
    await createItem({ name: 'Later lamp' });
    await new Promise((r) => setTimeout(r, 1200));
    expect(await unpublished()).toEqual([['item.unpublished', item.id]]);
  });

  it('when after and limit are left out, then the feed starts at the first event and answers 100', async () => {
    // More than 100 events: 10 drafts (10 events), then 5 status rounds of 20 events each.
    const drafts: number[] = [];
    for (let n = 0; n < 10; n++) drafts.push((await createItem({ name: `Paged lamp ${n}`, status: 'draft' })).id);
    for (const status of ['active', 'draft', 'active', 'draft', 'active']) {
      const res = await app.graphql(
        `mutation($ids: [Int!]!) { setItemsStatus(ids: $ids, status: ${status}) }`,
        { ids: drafts },
        { token: owner },
      );
      expect(res.body.data?.setItemsStatus, res.text).toBe(drafts.length);
    }
    const total = await app.db.prisma.event.count();
    expect(total).toBeGreaterThan(110);
    const first = await app.db.prisma.event.aggregate({ _min: { seq: true } });
    const page = await feed('');
    expect(page.events).toHaveLength(100);
    expect(page.events[0]!.seq).toBe(first._min.seq);
    expect(page.next_after).toBe(page.events[99]!.seq);
    expect(page).toEqual(await feed('?after=0&limit=100'));
    const next = await feed(`?after=${page.next_after}`);
    expect(next.events[0]!.seq).toBe(page.next_after + 1);
  });
});

describe('webhook rules (contract §14.2)', () => {
  it('when a rotation’s 24 h have passed, then only the new secret signs', async () => {
    const { webhook, secret } = await createWebhook('/rotated-past');
    const rotated = await app.graphql(
      'mutation($id: Int!) { rotateWebhookSecret(id: $id) }',
      { id: webhook.id },
      { token: owner },
    );
    const fresh = rotated.body.data.rotateWebhookSecret as string;
    expect(fresh).toMatch(/^whsec_/);
    // Time travel: the rotation was a day and a second ago.
    await app.db.sql.query(
      `UPDATE webhooks SET previous_secret_until = now() - interval '1 second' WHERE id = $1 AND previous_secret_until IS NOT NULL`,
      [webhook.id],
    );
    await createItem({ name: 'Past rotation lamp' });
    const [request] = await receivedOn('/rotated-past', 1);
    const signatures = (request!.headers['webhook-signature'] as string).split(' ');
    expect(signatures).toHaveLength(1);
    expect(signatures[0]).toMatch(/^v1,/);
    expect(verify(fresh, request!)).toMatchObject({
      type: 'item.created',
      data: { item: { name: 'Past rotation lamp' } },
    });
    expect(() => verify(secret, request!)).toThrow();
  });

  it('when every attempt fails, then 8 attempts are made about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h apart and the delivery ends failed', async () => {
    const path = '/always-500';
    const { webhook } = await createWebhook(path);
    receiver.answerNext(path, ...Array.from({ length: 9 }, () => ({ status: 500, body: 'down' })));
    await createItem({ name: 'Doomed lamp' });
    const attempts = RETRY_DELAYS_S.length + 1;
    /** The retry jobs of this webhook not yet run (pg-boss 10: pgboss.job, state below active). */
    const waitingJobs = () =>
      app.db.sql.query<{ id: string }>(
        `SELECT id FROM pgboss.job WHERE name = $1 AND state < 'active'
            AND (data->'webhookIds') @> to_jsonb(ARRAY[$2::int])`,
        [DELIVERY_QUEUE, webhook.id],
      );
    for (let n = 1; n < attempts; n++) {
      const log = await settled(webhook.id, n);
      expect(log[n - 1]).toMatchObject({ attempt: n, status: 'pending', responseStatus: 500 });
      // Time travel: the retry's job is due now, not in minutes or hours.
      await expect.poll(async () => (await waitingJobs()).length, { timeout: 5000 }).toBe(1);
      await app.db.sql.query(
        `UPDATE pgboss.job SET start_after = now() WHERE name = $1 AND state < 'active'
            AND (data->'webhookIds') @> to_jsonb(ARRAY[$2::int])`,
        [DELIVERY_QUEUE, webhook.id],
      );
      app.services.jobs.wake(DELIVERY_QUEUE);
    }
    const log = await settled(webhook.id, attempts, 10_000);
    expect(log.map((d) => [d.attempt, d.status])).toEqual(
      Array.from({ length: attempts }, (_, i) => [i + 1, i + 1 < attempts ? 'pending' : 'failed']),
    );
    expect(log.at(-1)).toMatchObject({ responseStatus: 500, nextAttemptAt: null });
    expect(new Set(log.map((d) => d.eventId)).size).toBe(1);
    for (const [i, delay] of RETRY_DELAYS_S.entries()) {
      const wait = (Date.parse(log[i]!.nextAttemptAt) - Date.parse(log[i]!.at)) / 1000;
      expect(wait, `wait after attempt ${i + 1}`).toBeGreaterThanOrEqual(delay * 0.8 - 1);
      expect(wait, `wait after attempt ${i + 1}`).toBeLessThanOrEqual(delay * 1.2 + 2);
    }
    expect(await waitingJobs()).toEqual([]);
    expect(receiver.on(path)).toHaveLength(attempts);
  });

  it('when an attempt’s outcome cannot be recorded, then its job is run 3 times (one webhook-id) and then put off to the schedule’s next try, which delivers it', async () => {
    const path = '/unrecordable';
    const { webhook } = await createWebhook(path);
    // A bug made by hand: the database refuses to record this receiver's answer, every time.
    await app.db.sql.query(
      `CREATE FUNCTION refuse_outcome() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'outcome refused (test)'; END $$`,
    );
    await app.db.sql.query(
      `CREATE TRIGGER refuse_outcome BEFORE UPDATE ON webhook_deliveries FOR EACH ROW
         WHEN (NEW.response_body = 'unrecordable') EXECUTE FUNCTION refuse_outcome()`,
    );
    try {
      receiver.answerNext(
        path,
        ...Array.from({ length: DELIVERY_FAILURES_TOLERATED }, () => ({ status: 200, body: 'unrecordable' })),
      );
      await createItem({ name: 'Unrecordable lamp' });
      // The third run's attempt is put off (finished, duration 0); the two before it were interrupted.
      const first = await settled(webhook.id, 1, 15_000);
      expect(first.map((d) => [d.attempt, d.durationMs === null ? 'interrupted' : d.status])).toEqual([
        [1, 'interrupted'],
        [2, 'interrupted'],
        [3, 'pending'],
      ]);
      const putOff = first[2]!;
      expect(putOff.responseBody).toMatch(/^not recorded: the service failed 3 times in a row/);
      // The schedule's next try (5 s ± 20 %), not the queue's next second.
      expect(Date.parse(putOff.nextAttemptAt) - Date.parse(putOff.at)).toBeGreaterThanOrEqual(3500);
      const waiting = await app.db.sql.query<{ try: number }>(
        `SELECT (data->>'try')::int AS try FROM pgboss.job WHERE name = $1 AND state < 'active'
            AND (data->'webhookIds') @> to_jsonb(ARRAY[$2::int])`,
        [DELIVERY_QUEUE, webhook.id],
      );
      expect(waiting).toEqual([{ try: 2 }]);
      await app.db.sql.query(
        `UPDATE pgboss.job SET start_after = now() WHERE name = $1 AND state < 'active'
            AND (data->'webhookIds') @> to_jsonb(ARRAY[$2::int])`,
        [DELIVERY_QUEUE, webhook.id],
      );
      app.services.jobs.wake(DELIVERY_QUEUE);
      const log = await settled(webhook.id, 2, 15_000);
      expect(log[3]).toMatchObject({ attempt: 4, status: 'succeeded', responseStatus: 200 });
      // Every request the receiver saw is in the log, under one webhook-id.
      const requests = receiver.on(path);
      expect(requests).toHaveLength(4);
      expect(new Set(requests.map((r) => r.headers['webhook-id'])).size).toBe(1);
    } finally {
      await app.db.sql.query('DROP TRIGGER IF EXISTS refuse_outcome ON webhook_deliveries');
      await app.db.sql.query('DROP FUNCTION IF EXISTS refuse_outcome()');
    }
  });
});

describe('destinations at every attempt (contract §14.2)', () => {
  let strict: TestApp;
  let strictOwner: string;
  beforeAll(async () => {
    strict = await startTestApp({ LOGIN_IP_PER_MINUTE: '1000' });
    strictOwner = await loginAsAdmin(strict);
  });
  afterAll(() => strict.close());

  it('when a webhook’s host name now resolves to the machine itself, then the attempt is refused by its lookup and recorded', async () => {
    const created = await strict.graphql(
      'mutation($input: CreateWebhookInput!) { createWebhook(input: $input) { webhook { id } } }',
      { input: { url: 'https://93.184.216.34/renamed', events: ['item.created'] } },
      { token: strictOwner },
    );
    expect(created.body.errors, created.text).toBeUndefined();
    const id = created.body.data.createWebhook.webhook.id as number;
    // As if its name now resolved to the machine itself (DNS rebinding): a name, not an address, so
    // only the connection's own lookup can refuse it.
    await strict.db.prisma.webhook.update({
      where: { id },
      data: { url: `http://localhost:${new URL(receiver.url).port}/renamed` },
    });
    const shelf = await makeCategory(strict, { name: 'Strict rules' });
    const res = await postItem(strict, strictOwner, itemBody(shelf.id));
    expect(res.status, res.text).toBe(201);
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
    expect(attempt!.responseBody).toMatch(/^refused: .*non-public address/);
    expect(receiver.on('/renamed')).toHaveLength(0);
  });
});

describe('retention (contract §14.1)', () => {
  it('when events are older than EVENT_RETENTION_DAYS, then the dispatcher’s first round drops them and keeps the newer', async () => {
    const before = await lastSeq();
    const old = await createItem({ name: 'Old lamp' });
    const kept = await createItem({ name: 'Kept lamp' });
    const created = (await feed(`?after=${before}&types=item.created`)).events;
    const seqOf = (id: number) => created.find((e) => e.data.item.id === id)?.seq;
    const [oldSeq, keptSeq] = [seqOf(old.id), seqOf(kept.id)];
    // The dispatcher's cursor has passed them (only dispatched events are dropped).
    await expect
      .poll(
        async () =>
          (await app.db.sql.query<{ after: number }>('SELECT after FROM event_dispatch WHERE id = 1'))[0]?.after,
        {
          timeout: 5000,
        },
      )
      .toBeGreaterThanOrEqual(keptSeq!);
    // Time travel: every event up to the old item's is 31 days old; the kept item's is 29 days old.
    await app.db.sql.query(`UPDATE events SET at = now() - interval '31 days' WHERE seq <= $1`, [oldSeq]);
    await app.db.sql.query(`UPDATE events SET at = now() - interval '29 days' WHERE seq = $1`, [keptSeq]);
    expect((await feed('?after=0&limit=500&types=item.created')).events.map((e) => e.seq)).toContain(oldSeq);
    // A process that starts (as after a deploy) prunes in its first round; the running app's hourly
    // round is not due. The default retention: 30 days.
    expect(app.config.events.retentionDays).toBe(30);
    const dispatch = startEventDispatch(app.db.sql, app.services.jobs, app.config, createLogger('silent'));
    try {
      await expect
        .poll(async () => (await feed('?after=0&limit=500')).events.some((e) => e.seq <= oldSeq!), { timeout: 5000 })
        .toBe(false);
    } finally {
      await dispatch.stop();
    }
    const left = (await feed('?after=0&limit=500')).events.map((e) => e.seq);
    expect(left).toContain(keptSeq);
    expect(left[0]).toBeGreaterThan(oldSeq!);
  });
});
