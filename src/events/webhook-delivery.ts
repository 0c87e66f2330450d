/**
 * Delivery attempts (contract §14.2), the work of one job of the `webhook-deliveries` queue: one event
 * to the webhooks the job names — every webhook that wants it for a first attempt (the dispatcher
 * queues one job an event), one webhook for a retry, a redelivery or a test event. For each of them:
 *
 * 1. the attempt is recorded (`pending`) and committed BEFORE the request is sent, so the log counts
 *    every request a receiver may have seen — also one whose process died before it heard the answer;
 * 2. `POST url` with the event, signed (webhook-signing.ts), to the address the connection's own lookup
 *    checked (webhook-destination.ts), redirects not followed, 10 s for the whole answer, 64 KiB read;
 * 3. its outcome, the next attempt's job (when it failed and the schedule has one more) and the
 *    webhook's failing streak are written in one transaction.
 *
 * Step 1 is one statement for all the webhooks of all the jobs a process takes in one fetch, and step 3
 * one statement for the successes that come in together, of those jobs too (data-modifying CTEs,
 * prepared on the maintenance pool's connection): an attempt's statements and job rows are what it
 * costs the requests' cores and PostgreSQL (docs/performance.md, "The background process"). The
 * requests go out side by side; a slow receiver delays no other's.
 *
 * A job run again after its process died (its lease ran out) finds its unanswered attempts, marks them
 * interrupted and makes the next ones — same `webhook-id`, the receiver's de-duplication key. A webhook
 * whose attempt of this job already has its outcome is left out: each attempt happens once.
 */
import http from 'node:http';
import https from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import DataLoader from 'dataloader';
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
/**
 * The most webhooks one job names (the dispatcher splits an event wanted by more): a process makes at
 * most DELIVERY_WORKERS × DELIVERY_BATCH × this requests at once, however many webhooks there are.
 */
export const WEBHOOKS_PER_JOB = 8;

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
  webhookIds: number[];
  eventId: string;
  try: number;
  test?: TestEvent;
}

/** A job as queued: one queued before a job named several webhooks names one (`webhookId`). */
export type QueuedDeliveryJob = Omit<DeliveryJob, 'webhookIds'> & { webhookIds?: number[]; webhookId?: number };

/** The webhooks a queued job names. */
export const webhooksOf = (job: QueuedDeliveryJob): number[] =>
  job.webhookIds ?? (job.webhookId === undefined ? [] : [job.webhookId]);

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

/**
 * Kept-alive sockets, each dropped when idle 1 s before the receiver said it would close it (its
 * `Keep-Alive: timeout=` answer): Node's agent honours that hint only with a `timeout` of its own set
 * (longer than an attempt: an active request is ended by its own 10 s). Without it, a retry due 5 s
 * after the last request met node:http's 5 s keep-alive closing the socket under it: "No answer".
 */
const AGENT_OPTIONS = { keepAlive: true, maxSockets: 16, timeout: 60_000 };
const agents = { 'http:': new http.Agent(AGENT_OPTIONS), 'https:': new https.Agent(AGENT_OPTIONS) };

/**
 * An answer's text as the delivery log can keep it: PostgreSQL's text holds no NUL character, and one
 * sent by a receiver would fail the outcome's statement — with it the outcomes written beside it, whose
 * jobs would then be run again and send their requests twice. (Invalid UTF-8 is already U+FFFD here.)
 */
const keptText = (body: string | null) => (body === null ? null : body.replaceAll('\0', '\uFFFD'));

/** Sends one signed request; never throws (a failure is an outcome). */
function post(url: string, headers: Record<string, string>, body: string, rules: DestinationRules): Promise<Outcome> {
  const started = performance.now();
  const target = new URL(url);
  const transport = target.protocol === 'https:' ? https : http;
  return new Promise<Outcome>((done) => {
    const finish = (outcome: Omit<Outcome, 'durationMs'>) =>
      done({ ...outcome, body: keptText(outcome.body), durationMs: Math.round(performance.now() - started) });
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

/** What an attempt's start answers: the webhook's address and secrets, the event, the attempt's row. */
interface Begun {
  webhook_id: number;
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
 * The attempts' start for the jobs a process takes side by side (one fetch of the queue), one
 * statement: a row of ($1 job, $2 event, $3 webhook, $4 whether the event is in the log) for each
 * webhook each job names; a row back per attempt begun. None for a webhook whose attempt of its job
 * was already made, one gone or disabled (its pending attempts end there), or when the event is past
 * its retention; for the others an unanswered attempt of the job marked interrupted and the new one
 * recorded, with what the request needs — numbered after the event's last attempt to that webhook (and
 * after each other, should two jobs at once name the same webhook and event). One statement is one
 * transaction: it commits before any request is sent, all of it or nothing. (Its data-modifying parts
 * all see the statement's one snapshot, in which the interruption does not change any `attempt`.) An
 * event not in the log — a `webhook.test` event, carried by its job — reads only the webhook.
 */
const BEGIN_SQL = `
  WITH wanted AS (
    SELECT * FROM unnest($1::uuid[], $2::varchar[], $3::int[], $4::boolean[]) AS w(job_id, event_id, webhook_id, from_log)
  ), made AS (
    SELECT job_id, webhook_id FROM webhook_deliveries WHERE job_id = ANY ($1::uuid[]) AND duration_ms IS NOT NULL
  ), hook AS (
    SELECT w.job_id, w.event_id, w.from_log, h.id, h.url, h.secret,
           CASE WHEN h.previous_secret_until > now() THEN h.previous_secret END AS previous
      FROM wanted w JOIN webhooks h ON h.id = w.webhook_id
     WHERE NOT h.disabled AND NOT EXISTS (SELECT FROM made m WHERE m.job_id = w.job_id AND m.webhook_id = h.id)
  ), event AS (
    SELECT id, seq, type, ${isoSql('at')} AS at, data::text AS data
      FROM events WHERE id IN (SELECT event_id FROM hook WHERE from_log)
  ), live AS (
    SELECT * FROM hook WHERE NOT from_log OR event_id IN (SELECT id FROM event)
  ), interrupted AS (
    UPDATE webhook_deliveries d SET response_body = 'interrupted: the delivering process stopped', next_attempt_at = now()
      FROM live l WHERE d.job_id = l.job_id AND d.webhook_id = l.id AND d.duration_ms IS NULL
  ), attempt AS (
    INSERT INTO webhook_deliveries (webhook_id, event_id, attempt, job_id)
    SELECT l.id, l.event_id,
           COALESCE((SELECT max(d.attempt) FROM webhook_deliveries d WHERE d.webhook_id = l.id AND d.event_id = l.event_id), 0)
             + row_number() OVER (PARTITION BY l.id, l.event_id ORDER BY l.job_id),
           l.job_id
      FROM live l
    RETURNING id, webhook_id, job_id
  )
  SELECT l.job_id, l.id AS webhook_id, l.url, l.secret, l.previous, e.id, e.seq, e.type, e.at, e.data,
         a.id AS attempt
    FROM live l JOIN attempt a ON a.webhook_id = l.id AND a.job_id = l.job_id
    LEFT JOIN event e ON l.from_log AND e.id = l.event_id
   ORDER BY l.job_id, l.id`;

/** A job as the start of its attempts needs it. */
type Starting = { job: QueuedDeliveryJob; jobId: string };

/**
 * The attempts' start of every job handed to it in one turn of the event loop — the jobs of one fetch,
 * whose handlers all begin at once — in one statement (DataLoader batches the calls of a turn), on the
 * maintenance pool, so a backlog of requests never holds it.
 */
function attemptStarts(sql: SqlDriver): DataLoader<Starting, Begun[]> {
  return new DataLoader<Starting, Begun[]>(
    async (starting) => {
      const rows = starting.flatMap(({ job, jobId }) =>
        webhooksOf(job).map((webhookId) => ({ jobId, eventId: job.eventId, webhookId, fromLog: !job.test })),
      );
      const begun = await sql.queryUnbounded<Begun & { job_id: string }>(
        BEGIN_SQL,
        [
          rows.map((r) => r.jobId),
          rows.map((r) => r.eventId),
          rows.map((r) => r.webhookId),
          rows.map((r) => r.fromLog),
        ],
        { prepare: true },
      );
      return starting.map(({ job, jobId }) => {
        const own = begun.filter((b) => b.job_id === jobId);
        if (!job.test) return own;
        const { id, seq, type, at, data } = job.test;
        return own.map((b) => ({ ...b, id, seq, type, at, data: JSON.stringify(data) }));
      });
    },
    { cache: false },
  );
}

/**
 * The outcomes of successful attempts ($1 ids, $2 statuses, $3 bodies, $4 durations), one statement,
 * and their webhooks' ($5) failing streaks ended (a webhook that was not failing is not written: most
 * attempts succeed).
 */
const SUCCEEDED_SQL = `
  WITH outcome AS (
    UPDATE webhook_deliveries d SET status = 'succeeded', response_status = o.status, response_body = o.body,
           duration_ms = o.duration_ms, next_attempt_at = NULL
      FROM unnest($1::int[], $2::int[], $3::text[], $4::int[]) AS o(id, status, body, duration_ms)
     WHERE d.id = o.id
  )
  UPDATE webhooks SET failing_since = NULL WHERE id = ANY ($5::int[]) AND failing_since IS NOT NULL`;

/**
 * The outcome of failed attempt $1 (`pending` with its next try at $6, or `failed`) and the start of
 * its webhook's ($7) failing streak if it was not running. Answers whether the streak has lasted
 * DISABLE_AFTER_DAYS ($8).
 */
const FAILED_SQL = `
  WITH outcome AS (
    UPDATE webhook_deliveries SET status = $2::"WebhookDeliveryStatus", response_status = $3, response_body = $4,
           duration_ms = $5, next_attempt_at = $6
     WHERE id = $1
  )
  UPDATE webhooks SET failing_since = COALESCE(failing_since, now()) WHERE id = $7
  RETURNING NOT disabled AND failing_since <= now() - make_interval(days => $8) AS disable`;

/** Outcomes that come in within this of the job's first are written in one statement. */
const OUTCOMES_TOGETHER_MS = 200;
/**
 * Successes of jobs made side by side that are ready within this of each other are written in one
 * statement (each job's completion waits for at most this more).
 */
const SUCCESSES_TOGETHER_MS = 10;

type Made = { begun: Begun; outcome: Outcome };

/** The successful attempts handed to it within SUCCESSES_TOGETHER_MS, written in one statement. */
function successWrites(sql: SqlDriver): DataLoader<Made[], void> {
  return new DataLoader<Made[], void>(
    async (groups) => {
      const ok = groups.flat();
      await sql.queryUnbounded(
        SUCCEEDED_SQL,
        [
          ok.map((m) => m.begun.attempt),
          ok.map((m) => m.outcome.status),
          ok.map((m) => m.outcome.body),
          ok.map((m) => m.outcome.durationMs),
          [...new Set(ok.map((m) => m.begun.webhook_id))],
        ],
        { prepare: true },
      );
      return groups.map(() => undefined);
    },
    { cache: false, batchScheduleFn: (run) => setTimeout(run, SUCCESSES_TOGETHER_MS) },
  );
}

export type Deliver = (job: QueuedDeliveryJob, jobId: string) => Promise<void>;

/**
 * A process's delivery: makes the attempts a job stands for (see the module's comment). The jobs it
 * runs side by side share their statements — their attempts' start (attemptStarts) and their
 * successes (successWrites): an attempt's share of the round trips is what it costs PostgreSQL and
 * the process (docs/performance.md, "The background process").
 */
export function createDelivery(deps: DeliveryDeps): Deliver {
  const starts = attemptStarts(deps.sql);
  const successes = successWrites(deps.sql);
  const { config, log } = deps;
  return async (job, jobId) => {
    const begun = await starts.load({ job, jobId });
    if (begun.length === 0) return;

    const made: Made[] = [];
    const sending = begun.map(async (b) => {
      log.debug({ webhook_id: b.webhook_id, event_id: job.eventId, pid: process.pid }, 'webhook attempt: sending');
      const body = bodyOf(b);
      const secrets = b.previous ? [b.secret, b.previous] : [b.secret];
      const outcome = await post(b.url, signedHeaders(b.id, new Date(), body, secrets), body, config.webhooks);
      made.push({ begun: b, outcome });
      log.debug(
        { webhook_id: b.webhook_id, event_id: job.eventId, status: outcome.status, ok: outcome.ok },
        'webhook attempt',
      );
    });
    // The answers in by OUTCOMES_TOGETHER_MS after the first (mostly all of them) are written together;
    // each later one when it comes, so a receiver that takes its 10 s holds no other's outcome.
    const all = Promise.all(sending);
    await Promise.race(sending);
    await Promise.race([all, sleep(OUTCOMES_TOGETHER_MS, undefined, { ref: false })]);
    const record = (outcomes: Made[]) => recordOutcomes(deps, successes, job, outcomes);
    const early = made.splice(0);
    await Promise.all([record(early), ...sending.map((s) => s.then(() => record(made.splice(0))))]);
  };
}

/** Writes outcomes: the successes with those of the jobs beside, each failure in a transaction of its own. */
async function recordOutcomes(
  deps: DeliveryDeps,
  successes: DataLoader<Made[], void>,
  job: QueuedDeliveryJob,
  made: Made[],
): Promise<void> {
  const { sql, config } = deps;
  const ok = made.filter((m) => m.outcome.ok);
  if (ok.length) await successes.load(ok);
  for (const { begun, outcome } of made.filter((m) => !m.outcome.ok)) {
    const wait = retryDelayMs(job.try + 1);
    const nextAt = wait === undefined ? null : new Date(Date.now() + wait);
    const params = [
      begun.attempt,
      nextAt ? 'pending' : 'failed',
      outcome.status,
      outcome.body,
      outcome.durationMs,
      nextAt,
      begun.webhook_id,
      DISABLE_AFTER_DAYS,
    ];
    // The outcome, the next try's job (one webhook's) and maybe the webhook disabled: one transaction.
    await sql.transaction(async (query) => {
      const [streak] = await query<{ disable: boolean }>(FAILED_SQL, params);
      if (nextAt)
        await queueDeliveries(query, deps.jobs, config, [
          {
            job: {
              webhookIds: [begun.webhook_id],
              eventId: job.eventId,
              try: job.try + 1,
              ...(job.test ? { test: job.test } : {}),
            },
            startAfter: nextAt,
          },
        ]);
      if (streak?.disable) await disable(query, begun.webhook_id);
    });
    // A near retry (the first is ~5 s on) is looked for when due, not at the next poll of the queue.
    if (wait !== undefined && wait < NEAR_RETRY_MS) setTimeout(() => deps.jobs.wake(DELIVERY_QUEUE), wait + 50).unref();
  }
}

/**
 * Runs of one delivery job that failed in a row (jobs/failure-streaks.ts) before it is put off to its
 * schedule's next try: each run sends its requests again, so a job whose outcome cannot be written
 * would send its event to the receiver every second, for a day (the queue's retries).
 */
export const DELIVERY_FAILURES_TOLERATED = 3;

/**
 * Puts off a job that failed DELIVERY_FAILURES_TOLERATED times in a row: its last run's unanswered
 * attempts end saying so (`pending` with the next try's time, or `failed` after the last try), and
 * the webhooks with no outcome of this job get the next try of the schedule (same `webhook-id`). One
 * transaction.
 */
export async function putOffStuck(deps: DeliveryDeps, job: QueuedDeliveryJob, jobId: string): Promise<void> {
  const wait = retryDelayMs(job.try + 1);
  const nextAt = wait === undefined ? null : new Date(Date.now() + wait);
  const message = `not recorded: the service failed ${DELIVERY_FAILURES_TOLERATED} times in a row to make or record this attempt (its log says why, under this event's id)`;
  await deps.sql.transaction(async (query) => {
    const done = await query<{ webhook_id: number }>(
      'SELECT webhook_id FROM webhook_deliveries WHERE job_id = $1 AND duration_ms IS NOT NULL',
      [jobId],
    );
    // The last run's attempts (an earlier run's are marked interrupted by the run after it).
    await query(
      `UPDATE webhook_deliveries SET status = $2::"WebhookDeliveryStatus", response_body = $3, duration_ms = 0, next_attempt_at = $4
        WHERE job_id = $1 AND duration_ms IS NULL AND response_body IS NULL`,
      [jobId, nextAt ? 'pending' : 'failed', message, nextAt],
    );
    const left = webhooksOf(job).filter((id) => !done.some((d) => d.webhook_id === id));
    if (nextAt && left.length) {
      const next = {
        webhookIds: left,
        eventId: job.eventId,
        try: job.try + 1,
        ...(job.test ? { test: job.test } : {}),
      };
      await queueDeliveries(query, deps.jobs, deps.config, [{ job: next, startAfter: nextAt }]);
    }
  });
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
