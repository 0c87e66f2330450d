/**
 * One delivery attempt (contract §14.2), the work of one job of the `webhook-deliveries` queue:
 *
 * 1. the attempt is recorded (`pending`) and committed BEFORE the request is sent, so the log counts
 *    every request a receiver may have seen — also one whose process died before it heard the answer;
 * 2. `POST url` with the event, signed (webhook-signing.ts), to the address the connection's own lookup
 *    checked (webhook-destination.ts), redirects not followed, 10 s for the whole answer, 64 KiB read;
 * 3. its outcome, the next attempt's job (when it failed and the schedule has one more) and the
 *    webhook's failing streak are written in one transaction.
 *
 * Steps 1 and 3 are one statement each when the attempt succeeds (a data-modifying CTE, prepared on
 * the maintenance pool's connection): each attempt's CPU is taken from the requests' cores
 * (docs/performance.md, "Webhooks during mixed": 11 statements an attempt before).
 *
 * A job run again after its process died (its lease ran out) finds its unanswered attempt, marks it
 * interrupted and makes the next one — same `webhook-id`, the receiver's de-duplication key. One whose
 * outcome was already written does nothing: each attempt happens once.
 */
import http from 'node:http';
import https from 'node:https';
import { isoSql } from '../catalog/catalog-json.ts';
import type { Config } from '../config/config.ts';
import type { SqlDriver, SqlQuery } from '../db/database.ts';
import type { JobQueue } from '../jobs/job-queue.ts';
import type { Logger } from '../logger.ts';
import { checkedLookup, type DestinationRules, refusedLiteral } from './webhook-destination.ts';
import { signedHeaders } from './webhook-signing.ts';

export const DELIVERY_QUEUE = 'webhook-deliveries';
/** A 2xx answer within this is success (contract §14.2). */
export const ATTEMPT_TIMEOUT_MS = 10_000;
/** The most of an answer read; the first KiB of it is kept. */
const READ_BYTES = 64 * 1024;
const KEPT_BYTES = 1024;
/** The waits after each failed attempt: ~5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h; then `failed`. */
export const RETRY_DELAYS_S = [5, 300, 1800, 7200, 18_000, 36_000, 36_000];
/** A retry due sooner than this wakes this process's workers when it is due. */
const NEAR_RETRY_MS = 60_000;
/** ±20 %: receivers that failed together are not retried in one burst. */
const JITTER = 0.2;
/** A webhook whose every attempt has failed this long is disabled. */
export const DISABLE_AFTER_DAYS = 5;
/**
 * One process's delivery workers, and the jobs each fetches at once and makes side by side (each
 * mostly waits for its receiver): the fetch and the completion are one statement for the batch. Two
 * workers: a receiver that holds its request up to ATTEMPT_TIMEOUT_MS holds only its worker's next fetch.
 */
export const DELIVERY_WORKERS = 2;
export const DELIVERY_BATCH = 8;

/** A `webhook.test` event (sendTestEvent): not in the log, carried by its job. */
export interface TestEvent {
  id: string;
  seq: number;
  type: 'webhook.test';
  at: string;
  data: unknown;
}

/** What a delivery job holds: whom, what, and which try of its schedule (1: the first). */
export interface DeliveryJob {
  webhookId: number;
  eventId: string;
  try: number;
  test?: TestEvent;
}

/** A job's lease: longer than an attempt may take, so a live attempt is never taken for a dead one. */
export const deliveryLeaseSeconds = (config: Config) =>
  Math.max(config.jobs.leaseSeconds, ATTEMPT_TIMEOUT_MS / 1000 + 5);

/** Queues deliveries in the caller's transaction. */
export function queueDeliveries(
  query: SqlQuery,
  jobs: JobQueue,
  config: Config,
  deliveries: Array<{ job: DeliveryJob; startAfter?: Date }>,
): Promise<void> {
  return jobs.sendWithin(
    query,
    DELIVERY_QUEUE,
    deliveries.map(({ job, startAfter }) => ({ data: job, ...(startAfter ? { startAfter } : {}) })),
    { leaseSeconds: deliveryLeaseSeconds(config) },
  );
}

/** The wait before try `next` (2..8), jittered; none after the last. */
export function retryDelayMs(next: number): number | undefined {
  const seconds = RETRY_DELAYS_S[next - 2];
  return seconds === undefined ? undefined : seconds * 1000 * (1 - JITTER + Math.random() * 2 * JITTER);
}

interface Outcome {
  ok: boolean;
  status: number | null;
  body: string | null;
  durationMs: number;
}

const AGENT_OPTIONS = { keepAlive: true, maxSockets: 16 };
const agents = { 'http:': new http.Agent(AGENT_OPTIONS), 'https:': new https.Agent(AGENT_OPTIONS) };

/** Sends one signed request; never throws (a failure is an outcome). */
function post(url: string, headers: Record<string, string>, body: string, rules: DestinationRules): Promise<Outcome> {
  const started = performance.now();
  const target = new URL(url);
  const transport = target.protocol === 'https:' ? https : http;
  return new Promise<Outcome>((done) => {
    const finish = (outcome: Omit<Outcome, 'durationMs'>) =>
      done({ ...outcome, durationMs: Math.round(performance.now() - started) });
    const literal = refusedLiteral(target, rules);
    if (literal) return finish({ ok: false, status: null, body: `refused: ${literal.message}` });
    const request = transport.request(target, {
      method: 'POST',
      agent: agents[target.protocol as keyof typeof agents],
      headers: {
        ...headers,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        'user-agent': 'shop-webhooks/1',
      },
      lookup: checkedLookup(rules) as never,
      signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
    });
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      let read = 0;
      const settle = () => {
        const status = response.statusCode ?? null;
        const text = Buffer.concat(chunks).subarray(0, KEPT_BYTES).toString('utf8');
        finish({ ok: status !== null && status >= 200 && status < 300, status, body: text });
      };
      response.on('data', (chunk: Buffer) => {
        if (read >= READ_BYTES) return;
        chunks.push(chunk);
        read += chunk.length;
        // Enough read: the rest is not ours to wait for.
        if (read >= READ_BYTES) {
          response.destroy();
          settle();
        }
      });
      response.on('end', settle);
      response.on('error', (err) =>
        finish({ ok: false, status: response.statusCode ?? null, body: `answer broken off: ${err.message}` }),
      );
    });
    request.on('error', (err: NodeJS.ErrnoException) => {
      const why =
        err.name === 'AbortError' || err.name === 'TimeoutError'
          ? `no answer within ${ATTEMPT_TIMEOUT_MS / 1000} s`
          : err.name === 'RefusedDestination'
            ? `refused: ${err.message}`
            : `not delivered: ${err.code ?? err.message}`;
      finish({ ok: false, status: null, body: why });
    });
    request.end(body);
  });
}

/** What the attempt's start answers: the webhook's address and secrets, the event, the attempt's row. */
interface Begun {
  url: string;
  secret: string;
  previous: string | null;
  id: string;
  seq: number;
  type: string;
  at: string;
  data: string;
  attempt: number;
}

type EventRow = Pick<Begun, 'id' | 'seq' | 'type' | 'at' | 'data'>;

/** The delivery body: `{ id, seq, type, timestamp, data }`, the event's data as the log wrote it. */
const bodyOf = (event: EventRow) =>
  `{"id":${JSON.stringify(event.id)},"seq":${event.seq},"type":${JSON.stringify(event.type)},"timestamp":${JSON.stringify(event.at)},"data":${event.data}}`;

export interface DeliveryDeps {
  sql: SqlDriver;
  jobs: JobQueue;
  config: Config;
  log: Logger;
}

/**
 * The attempt's start, one statement ($1 webhook, $2 event, $3 job): no row when this job's attempt was
 * already made, its webhook is gone or disabled (its pending attempts end there) or its event is past
 * its retention; otherwise an unanswered attempt of this job marked interrupted and the new one
 * recorded, with what the request needs. One statement is one transaction: it commits before the
 * request is sent, all of it or nothing. (Its data-modifying parts run whether or not the final SELECT
 * reads them, so each is gated on `event`; all of them see the statement's one snapshot, in which the
 * interruption does not change any `attempt`.) `fromLog` false: a `webhook.test` event, carried by its
 * job — only the webhook is read.
 */
const beginSql = (fromLog: boolean) => `
  WITH made AS (
    SELECT FROM webhook_deliveries WHERE job_id = $3::uuid AND duration_ms IS NOT NULL
  ), hook AS (
    SELECT url, secret, CASE WHEN previous_secret_until > now() THEN previous_secret END AS previous
      FROM webhooks WHERE id = $1::int AND NOT disabled AND NOT EXISTS (SELECT FROM made)
  ), event AS (${
    fromLog
      ? `
    SELECT id, seq, type, ${isoSql('at')} AS at, data::text AS data
      FROM events WHERE id = $2::varchar AND EXISTS (SELECT FROM hook)`
      : `
    SELECT NULL::varchar AS id, NULL::int AS seq, NULL::varchar AS type, NULL::text AS at, NULL::text AS data
      FROM hook`
  }
  ), interrupted AS (
    UPDATE webhook_deliveries SET response_body = 'interrupted: the delivering process stopped', next_attempt_at = now()
     WHERE job_id = $3::uuid AND duration_ms IS NULL AND EXISTS (SELECT FROM event)
  ), attempt AS (
    INSERT INTO webhook_deliveries (webhook_id, event_id, attempt, job_id)
    SELECT $1::int, $2::varchar, COALESCE(max(attempt), 0) + 1, $3::uuid
      FROM webhook_deliveries WHERE webhook_id = $1::int AND event_id = $2::varchar
    HAVING EXISTS (SELECT FROM event)
    RETURNING id
  )
  SELECT hook.url, hook.secret, hook.previous, event.id, event.seq, event.type, event.at, event.data, attempt.id AS attempt
    FROM hook, event, attempt`;
const BEGIN_FROM_LOG = beginSql(true);
const BEGIN_TEST = beginSql(false);

/** The attempt's start (see beginSql): on the maintenance pool, so a backlog of requests never holds it. */
async function beginAttempt(sql: SqlDriver, job: DeliveryJob, jobId: string): Promise<Begun | undefined> {
  const [begun] = await sql.queryUnbounded<Begun>(
    job.test ? BEGIN_TEST : BEGIN_FROM_LOG,
    [job.webhookId, job.eventId, jobId],
    { prepare: true },
  );
  if (!begun || !job.test) return begun;
  const { id, seq, type, at, data } = job.test;
  return { ...begun, id, seq, type, at, data: JSON.stringify(data) };
}

/**
 * The outcome of attempt $1 and the webhook's ($7) failing streak, one statement: a success ($8) clears
 * the streak (a webhook that was not failing is not written: most attempts succeed), a failure starts it
 * if it was not running. Answers whether the streak has lasted DISABLE_AFTER_DAYS ($9), when written.
 */
const OUTCOME_SQL = `
  WITH outcome AS (
    UPDATE webhook_deliveries SET status = $2::"WebhookDeliveryStatus", response_status = $3, response_body = $4,
           duration_ms = $5, next_attempt_at = $6
     WHERE id = $1
  )
  UPDATE webhooks SET failing_since = CASE WHEN $8 THEN NULL ELSE COALESCE(failing_since, now()) END
   WHERE id = $7 AND NOT ($8 AND failing_since IS NULL)
  RETURNING NOT disabled AND failing_since <= now() - make_interval(days => $9) AS disable`;

/** Makes the attempt `job` stands for (see the module's comment). */
export async function deliver(deps: DeliveryDeps, job: DeliveryJob, jobId: string): Promise<void> {
  const { sql, config, log } = deps;
  const begun = await beginAttempt(sql, job, jobId);
  if (!begun) return;

  log.debug({ webhook_id: job.webhookId, event_id: job.eventId, pid: process.pid }, 'webhook attempt: sending');
  const at = new Date();
  const body = bodyOf(begun);
  const secrets = begun.previous ? [begun.secret, begun.previous] : [begun.secret];
  const outcome = await post(begun.url, signedHeaders(begun.id, at, body, secrets), body, config.webhooks);

  const wait = outcome.ok ? undefined : retryDelayMs(job.try + 1);
  const nextAt = wait === undefined ? null : new Date(Date.now() + wait);
  const params = [
    begun.attempt,
    outcome.ok ? 'succeeded' : nextAt ? 'pending' : 'failed',
    outcome.status,
    outcome.body,
    outcome.durationMs,
    nextAt,
    job.webhookId,
    outcome.ok,
    DISABLE_AFTER_DAYS,
  ];
  // A success is one statement (its own transaction); a failure also queues the next try and may
  // disable the webhook, all in one transaction.
  if (outcome.ok) await sql.queryUnbounded(OUTCOME_SQL, params, { prepare: true });
  else
    await sql.transaction(async (query) => {
      const [streak] = await query<{ disable: boolean }>(OUTCOME_SQL, params);
      if (nextAt)
        await queueDeliveries(query, deps.jobs, config, [{ job: { ...job, try: job.try + 1 }, startAfter: nextAt }]);
      if (streak?.disable) await disable(query, job.webhookId);
    });
  // A near retry (the first is ~5 s on) is looked for when due, not at the next poll of the queue.
  if (wait !== undefined && wait < NEAR_RETRY_MS) setTimeout(() => deps.jobs.wake(DELIVERY_QUEUE), wait + 50).unref();
  log.debug(
    { webhook_id: job.webhookId, event_id: job.eventId, status: outcome.status, ok: outcome.ok },
    'webhook attempt',
  );
}

/** Disables a webhook whose streak of failures lasted DISABLE_AFTER_DAYS (audited as the service's own act, with the reason). */
async function disable(query: SqlQuery, webhookId: number): Promise<void> {
  const reason = `every delivery failed for ${DISABLE_AFTER_DAYS} days`;
  await query('UPDATE webhooks SET disabled = true, disabled_reason = $2, updated_at = now() WHERE id = $1', [
    webhookId,
    reason,
  ]);
  await query(
    `INSERT INTO audit_log (action, target_type, target_id, actor_type, actor_id, actor_name, changes)
     VALUES ('webhook.disable', 'webhook', $1, 'system', NULL, 'webhooks', $2::jsonb)`,
    [webhookId, JSON.stringify({ disabled: [false, true], disabledReason: [null, reason] })],
  );
}
