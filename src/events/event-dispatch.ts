/**
 * From the event log to webhook deliveries (contract §14.2). One process of the deployment at a time
 * holds the dispatch cursor's row lock (`FOR UPDATE SKIP LOCKED`: the others skip the round) and, in
 * one transaction, queues a delivery job for each new event × webhook that wants its type and moves
 * the cursor past them — so each event is queued exactly once, whichever processes run and die. The
 * log has no gaps and is in commit order (event-log.ts), so a cursor is all the state there is.
 *
 * Every process dispatches when it hears a catalogue change (every event is appended in a transaction
 * that changes the catalogue, whose trigger notifies every instance), and once a second besides, for
 * a notification missed. The same round drops events and attempts past EVENT_RETENTION_DAYS, hourly.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '../config/config.ts';
import type { SqlDriver, SqlQuery } from '../db/database.ts';
import type { JobQueue } from '../jobs/job-queue.ts';
import type { Logger } from '../logger.ts';
import { DELIVERY_QUEUE, type DeliveryJob, queueDeliveries } from './webhook-delivery.ts';

/** Events queued per transaction. */
const BATCH = 500;
/** The round that runs without a notification. */
const POLL_MS = 1000;
const PRUNE_EVERY_MS = 60 * 60 * 1000;
/**
 * How long a stop waits for a round under way: a round is a few short statements, but with the
 * database silent it would wait for ever — and a shutdown must not (contract §7.4). A round cut off
 * commits nothing; the next process's round does its work.
 */
const STOP_WAIT_MS = 1000;

export interface EventDispatch {
  /** Dispatches now (concurrent calls share one round, and one more after it). */
  kick(): void;
  stop(): Promise<void>;
}

export function startEventDispatch(sql: SqlDriver, jobs: JobQueue, config: Config, log: Logger): EventDispatch {
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  let failing = false;
  let prunedAt = 0;

  /** One transaction: the events after the cursor (a batch), their jobs, the cursor moved. Answers how many. */
  async function round(): Promise<number> {
    const queued = await sql.transaction(async (query) => {
      const [cursor] = await query<{ after: number }>(
        'SELECT after FROM event_dispatch WHERE id = 1 FOR UPDATE SKIP LOCKED',
      );
      if (!cursor) return 0;
      if (Date.now() - prunedAt > PRUNE_EVERY_MS) {
        prunedAt = Date.now();
        await prune(query);
      }
      const events = await query<{ seq: number; id: string; type: string; at: Date }>(
        'SELECT seq, id, type, at FROM events WHERE seq > $1 ORDER BY seq LIMIT $2',
        [cursor.after, BATCH],
      );
      if (events.length === 0) return 0;
      const webhooks = await query<{ id: number; events: string[]; created_at: Date }>(
        'SELECT id, events, created_at FROM webhooks WHERE NOT disabled ORDER BY id',
      );
      // A webhook hears the changes made since it exists: an event of before its creation, dispatched
      // after it (the round came later), is not delivered to it (redeliverEvent can send one).
      const wants = (webhook: (typeof webhooks)[number], event: (typeof events)[number]) =>
        new Date(event.at) >= new Date(webhook.created_at) &&
        (webhook.events.includes('*') || webhook.events.includes(event.type));
      const deliveries = events.flatMap((event) =>
        webhooks
          .filter((webhook) => wants(webhook, event))
          .map((webhook) => ({ job: { webhookId: webhook.id, eventId: event.id, try: 1 } satisfies DeliveryJob })),
      );
      await queueDeliveries(query, jobs, config, deliveries);
      await query('UPDATE event_dispatch SET after = $1 WHERE id = 1', [events.at(-1)!.seq]);
      return events.length;
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

  async function cycle(): Promise<void> {
    do {
      again = false;
      try {
        while (!stopped && (await round()) === BATCH) {}
        if (failing) log.info('webhook dispatch running again');
        failing = false;
      } catch (err) {
        if (stopped) return;
        if (!failing) log.warn({ err }, 'webhook dispatch failed; trying again every second');
        failing = true;
      }
    } while (again && !stopped);
  }

  function kick(): void {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = cycle().finally(() => {
      running = undefined;
    });
  }

  const timer = setInterval(kick, POLL_MS);
  timer.unref();
  kick();
  return {
    kick,
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      if (running) await Promise.race([running, sleep(STOP_WAIT_MS, undefined, { ref: false })]);
    },
  };
}
