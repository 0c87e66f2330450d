/**
 * From the event log to webhook deliveries (contract §14.2). One process of the deployment at a time
 * holds the dispatch cursor's row lock (`FOR UPDATE SKIP LOCKED`: the others skip the round) and, in
 * one transaction, queues a delivery job for each new event × webhook that wants its type and moves
 * the cursor past them — so each event is queued exactly once, whichever processes run and die. The
 * log has no gaps and is in commit order (event-log.ts), so a cursor is all the state there is.
 *
 * Every process dispatches when it hears a catalogue change (every event is appended in a transaction
 * that changes the catalogue, whose trigger notifies every instance), and once a second besides, for
 * a notification missed — but at most one round per ROUND_GAP_MS: the changes heard meanwhile share
 * the next round (one transaction, one insert of their jobs) instead of each paying for one. A round
 * first asks, in one statement, whether there is anything after the cursor: the other instances hear
 * every change too, and mostly find the work done. The same round drops events and attempts past
 * EVENT_RETENTION_DAYS, hourly.
 */
import type { Config } from '../config/config.ts';
import type { SqlDriver, SqlQuery } from '../db/database.ts';
import type { JobQueue } from '../jobs/job-queue.ts';
import type { Logger } from '../logger.ts';
import { type Rounds, startRounds } from '../process/rounds.ts';
import { DELIVERY_QUEUE, type DeliveryJob, queueDeliveries, WEBHOOKS_PER_JOB } from './webhook-delivery.ts';

/** Events queued per transaction. */
const BATCH = 500;
/** The round that runs without a notification. */
const POLL_MS = 1000;
/**
 * The least time from one round's start to the next: at a write every 50 ms, 5 rounds a second
 * instead of 20 (per instance), each first attempt at most this much later (contract §14.2 wants a
 * p99 of 1 s from commit to first attempt).
 */
export const ROUND_GAP_MS = 200;

/** Is there an event after the cursor? (No lock: a round that follows takes it and reads again.) */
const ANYTHING_NEW_SQL =
  'SELECT EXISTS (SELECT FROM events WHERE seq > (SELECT after FROM event_dispatch WHERE id = 1)) AS new';

/**
 * One statement of a round's transaction: the cursor's row locked (skipped when another process holds
 * it: then no rows), the next $1 events after it, the cursor moved past them, and each event with each
 * webhook that wants it — its type, and created before it: a webhook hears the changes made since it
 * exists (an event of before its creation, dispatched after it, is not delivered to it; redeliverEvent
 * can send one). An event no webhook wants is one row without a webhook.
 */
const ROUND_SQL = `
  WITH cursor AS (
    SELECT after FROM event_dispatch WHERE id = 1 FOR UPDATE SKIP LOCKED
  ), batch AS (
    SELECT seq, id, type, at FROM events WHERE seq > (SELECT after FROM cursor) ORDER BY seq LIMIT $1
  ), moved AS (
    UPDATE event_dispatch SET after = (SELECT max(seq) FROM batch) WHERE id = 1 AND EXISTS (SELECT FROM batch)
  )
  SELECT b.seq, b.id AS event_id, w.id AS webhook_id
    FROM batch b LEFT JOIN webhooks w
      ON NOT w.disabled AND b.at >= w.created_at AND ('*' = ANY (w.events) OR b.type = ANY (w.events))
   ORDER BY b.seq, w.id`;
const PRUNE_EVERY_MS = 60 * 60 * 1000;
/** How long a stop waits for a round under way (a few short statements; contract §7.4: bounded). */
const STOP_WAIT_MS = 1000;

/** Dispatches soon (calls within ROUND_GAP_MS of a round's start share the next round). */
export type EventDispatch = Rounds;

export function startEventDispatch(sql: SqlDriver, jobs: JobQueue, config: Config, log: Logger): EventDispatch {
  let prunedAt = 0;

  /** One transaction: the events after the cursor (a batch), their jobs, the cursor moved. Answers how many. */
  async function round(): Promise<number> {
    const pruning = Date.now() - prunedAt > PRUNE_EVERY_MS;
    if (!pruning) {
      const [check] = await sql.queryUnbounded<{ new: boolean }>(ANYTHING_NEW_SQL, [], { prepare: true });
      if (!check?.new) return 0;
    }
    const queued = await sql.transaction(async (query) => {
      if (pruning) {
        // Only the process holding the cursor prunes (no wait: another's round holds it for a moment).
        const [cursor] = await query('SELECT 1 FROM event_dispatch WHERE id = 1 FOR UPDATE SKIP LOCKED');
        if (!cursor) return 0;
        prunedAt = Date.now();
        await prune(query);
      }
      const rows = await query<{ seq: number; event_id: string; webhook_id: number | null }>(ROUND_SQL, [BATCH]);
      // One job an event for the webhooks that want it, up to WEBHOOKS_PER_JOB a job (its attempts side
      // by side: fewer job rows and statements an attempt); a failed attempt's retry is a job of its
      // webhook alone. The rows come in event order.
      const deliveries: Array<{ job: DeliveryJob }> = [];
      for (const { event_id, webhook_id } of rows) {
        if (webhook_id === null) continue;
        const last = deliveries.at(-1)?.job;
        if (last?.eventId === event_id && last.webhookIds.length < WEBHOOKS_PER_JOB) last.webhookIds.push(webhook_id);
        else deliveries.push({ job: { webhookIds: [webhook_id], eventId: event_id, try: 1 } });
      }
      await queueDeliveries(query, jobs, config, deliveries);
      return new Set(rows.map((r) => r.seq)).size;
    });
    if (queued > 0) jobs.wake(DELIVERY_QUEUE);
    return queued;
  }

  /** Events (and attempts) older than the retention; only what the cursor has passed. */
  async function prune(query: SqlQuery): Promise<void> {
    const days = config.events.retentionDays;
    await query(
      `DELETE FROM events WHERE at < now() - make_interval(days => $1)
          AND seq <= (SELECT after FROM event_dispatch WHERE id = 1)`,
      [days],
    );
    await query('DELETE FROM webhook_deliveries WHERE at < now() - make_interval(days => $1)', [days]);
  }

  return startRounds({
    // A round of a full batch may leave more: the next batch at once.
    run: async (stopped) => {
      while (!stopped() && (await round()) === BATCH) {}
    },
    gapMs: ROUND_GAP_MS,
    pollMs: POLL_MS,
    stopWaitMs: STOP_WAIT_MS,
    log,
    what: 'webhook dispatch',
    now: true,
  });
}
