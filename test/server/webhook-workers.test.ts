/**
 * Contract §14.2 "exactly one process of the deployment makes each attempt … a process that dies
 * mid-attempt leaves it to be retried" on PostgreSQL, through what `npm start` runs: two instances (one
 * with WORKERS=2) share the dispatch and the deliveries. Many changes made on both instances are each
 * delivered once (one attempt per event, the receiver's count equal to the log's); and the process
 * making an attempt, killed (SIGKILL) while the receiver holds the request, leaves the event to be
 * delivered again by another — same `webhook-id`, the unanswered attempt in the log as interrupted —
 * and the attempt of the same job to another webhook, answered before, is not made again.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshRequest, workersListening } from '../helpers/fresh-connection.ts';
import { type ServiceProcess, startService } from '../helpers/service-process.ts';
import { createTestDatabase, TEST_DB, type TestDatabase } from '../helpers/test-database.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

const ADMIN = { username: 'hook-root', password: 'hook-root-password' };

describe.skipIf(TEST_DB !== 'postgres')('webhooks with WORKERS=2 and two instances', () => {
  let database: TestDatabase;
  let first: ServiceProcess;
  let second: ServiceProcess;
  let receiver: WebhookReceiver;
  let token: string;
  let categoryId: number;

  const auth = () => ({ authorization: `Bearer ${token}` });
  const gql = async (service: ServiceProcess, query: string, variables: object = {}) => {
    const res = await freshRequest(`${service.url}/graphql`, 'POST', { query, variables }, auth());
    expect(res.body.errors, JSON.stringify(res.body)).toBeUndefined();
    return res.body.data;
  };
  const createItem = (service: ServiceProcess, name: string) =>
    freshRequest(
      `${service.url}/admin/api/items`,
      'POST',
      { name, category_id: categoryId, price: 1, stock: 1, skus: [], images: [] },
      auth(),
    );
  const createWebhook = async (path: string) =>
    (
      await gql(first, 'mutation($input: CreateWebhookInput!) { createWebhook(input: $input) { webhook { id } } }', {
        input: { url: `${receiver.url}${path}`, events: ['item.created'] },
      })
    ).createWebhook.webhook.id as number;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    database = await createTestDatabase();
    const env = {
      DATABASE_URL: database.url!,
      LOG_LEVEL: 'debug',
      ADMIN_USERNAME: ADMIN.username,
      ADMIN_PASSWORD: ADMIN.password,
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      JOB_MAINTENANCE_SECONDS: '1',
      // A delivery's lease is at least 15 s (longer than an attempt may take): the killed one's retry comes then.
      JOB_LEASE_SECONDS: '5',
      // The 50 writers below queue on the catalogue writes' lock; on a busy CI machine (three test
      // files beside these three processes, two cores) the last of them has waited past the default
      // 5 s and answered 503 — correctly (§11), but the feed's order is what is under test here, and
      // the statement timeout's 503 has tests of its own (test/faults/busy-pool.test.ts).
      DATABASE_STATEMENT_TIMEOUT: '30000',
    };
    first = await startService({ ...env, WORKERS: '2' });
    second = await startService({ ...env, WORKERS: '1' });
    await workersListening(first, 2);
    const login = await freshRequest(`${first.url}/admin/api/auth/login`, 'POST', ADMIN);
    token = login.body.access_token;
    categoryId = (await gql(first, 'mutation { createCategory(input: { name: "Hooks" }) { id } }')).createCategory.id;
  }, 120_000);
  afterAll(async () => {
    await first?.stop();
    await second?.stop();
    await database?.drop();
    await receiver?.close();
  });

  it('when 50 writers commit on both instances while a reader pages the feed, then the reader sees every event once, in seq order', async () => {
    const feed = async (after: number) =>
      (await freshRequest(`${first.url}/admin/api/events?after=${after}&limit=500`, 'GET', undefined, auth())).body as {
        events: Array<{ seq: number; type: string }>;
        next_after: number;
      };
    const start = (await feed(0)).next_after;
    const seen: number[] = [];
    let writing = true;
    const reader = (async () => {
      let cursor = start;
      for (;;) {
        const last = !writing;
        const page = await feed(cursor);
        seen.push(...page.events.map((e) => e.seq));
        cursor = page.next_after;
        if (last && page.events.length === 0) return;
      }
    })();
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, n) => createItem(n % 3 ? first : second, `Writer ${n}`)),
    );
    writing = false;
    await reader;
    for (const answer of answers) expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    expect(seen).toEqual(Array.from({ length: 50 }, (_, n) => start + 1 + n));
  }, 60_000);

  it('when 40 items are created on both instances at once, then each event reaches the receiver in exactly one attempt', async () => {
    const webhookId = await createWebhook('/all');
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, n) => createItem(n % 2 ? first : second, `Spread ${n}`)),
    );
    for (const answer of answers) expect(answer.status).toBe(201);
    for (const until = Date.now() + 30_000; receiver.on('/all').length < 40 && Date.now() < until; ) await sleep(100);
    const ids = receiver.on('/all').map((r) => r.headers['webhook-id']);
    expect(ids).toHaveLength(40);
    expect(new Set(ids).size).toBe(40);
    await sleep(500);
    expect(receiver.on('/all')).toHaveLength(40);
    const log = await gql(
      first,
      'query($id: Int!) { webhookDeliveries(webhookId: $id, limit: 100) { total deliveries { attempt status } } }',
      {
        id: webhookId,
      },
    );
    expect(log.webhookDeliveries.total).toBe(40);
    expect(
      log.webhookDeliveries.deliveries.every(
        (d: { attempt: number; status: string }) => d.attempt === 1 && d.status === 'succeeded',
      ),
    ).toBe(true);
  }, 60_000);

  const deliveriesOf = async (webhookId: number) =>
    (
      await gql(
        first,
        'query($id: Int!) { webhookDeliveries(webhookId: $id) { deliveries { eventId attempt status responseBody } } }',
        { id: webhookId },
      )
    ).webhookDeliveries.deliveries as Array<{
      eventId: string;
      attempt: number;
      status: string;
      responseBody: string | null;
    }>;

  it('when the process making an attempt is killed mid-request, then another process delivers the event again with the same webhook-id', async () => {
    // One job makes an event's attempts to both webhooks: /beside answers at once, /crash is held.
    const besideId = await createWebhook('/beside');
    const webhookId = await createWebhook('/crash');
    // The first request is held (never answered in time); the next is answered at once.
    receiver.answerNext('/crash', { status: 200, delayMs: 120_000 });
    expect((await createItem(first, 'Crash lamp')).status).toBe(201);
    for (const until = Date.now() + 15_000; receiver.on('/crash').length < 1 && Date.now() < until; ) await sleep(50);
    const [held] = receiver.on('/crash');
    expect(held).toBeDefined();
    const eventId = held!.headers['webhook-id'] as string;
    const lines = `${first.output()}${second.output()}`.matchAll(
      /"event_id":"(evt_[0-9a-f]+)","pid":(\d+)[^\n]*webhook attempt: sending/g,
    );
    const sender = [...new Set([...lines].filter((m) => m[1] === eventId).map((m) => Number(m[2])))];
    expect(sender).toHaveLength(1);
    expect(sender[0]).not.toBe(first.pid);
    // The attempt beside it is answered and its outcome written before the kill: it is not made again.
    for (const until = Date.now() + 10_000; Date.now() < until; await sleep(50)) {
      const beside = await deliveriesOf(besideId);
      if (beside.some((d) => d.eventId === eventId && d.status === 'succeeded')) break;
    }
    process.kill(sender[0]!, 'SIGKILL');

    // Its job's lease runs out (15 s at least: longer than an attempt may take); another process retries.
    for (const until = Date.now() + 60_000; receiver.on('/crash').length < 2 && Date.now() < until; ) await sleep(200);
    const requests = receiver.on('/crash');
    expect(requests).toHaveLength(2);
    expect(requests[1]!.headers['webhook-id']).toBe(eventId);
    expect(requests[1]!.body).toBe(held!.body);
    let log: Awaited<ReturnType<typeof deliveriesOf>> = [];
    for (const until = Date.now() + 10_000; Date.now() < until; await sleep(200)) {
      log = await deliveriesOf(webhookId);
      if (log.some((d) => d.status === 'succeeded')) break;
    }
    // The receiver's count of attempts equals the log's.
    expect(log).toHaveLength(requests.length);
    expect(log.map((d) => [d.attempt, d.status])).toEqual([
      [2, 'succeeded'],
      [1, 'pending'],
    ]);
    expect(log[1]!.responseBody).toMatch(/interrupted/);
    // The webhook beside it had its one attempt of the event: once at the receiver, once in the log.
    expect(receiver.on('/beside').filter((r) => r.headers['webhook-id'] === eventId)).toHaveLength(1);
    expect((await deliveriesOf(besideId)).map((d) => [d.eventId, d.attempt, d.status])).toEqual([
      [eventId, 1, 'succeeded'],
    ]);
  }, 120_000);
});
