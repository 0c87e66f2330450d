/**
 * Schedules are cache boundaries (contract §12.1): the moment an item's `publish_at` or `unpublish_at`
 * passes, every instance answers accordingly within 1 s, with no write to set it off. Each serving
 * process knows when the catalogue's next schedule time is (the database's `item_visibility_due()`,
 * looked up again after every catalogue change notification and after each boundary) and keeps one
 * timer for it. When it fires, the process asks the database to flip the flags of the items whose time
 * has come (`item_visibility_flip()`: their rows locked, then the catalogue lock, then one UPDATE — run
 * by every process, it changes the rows once, and appends their `item.published` / `item.unpublished` events in its transaction, §14.1)
 * and empties its own cache; the UPDATE's catalogue trigger notifies every instance, which empty
 * theirs. The rule and the flags: prisma/migrations/20261203000000_item_visibility, search/visibility.ts.
 */
import type { SqlDriver } from '../db/database.ts';
import { appendEvents } from '../events/event-log.ts';
import type { Logger } from '../logger.ts';

/** The longest wait armed at once (setTimeout holds at most ~24.8 days); a longer one is re-armed. */
const MAX_WAIT_MS = 60 * 60 * 1000;
/** After a failed look-up (the database away), or a flip that left something overdue, the next try. */
const RETRY_MS = 1000;

export interface VisibilitySchedule {
  /** Looks up the next schedule time again (after a catalogue change; concurrent calls share one look-up). */
  refresh(): void;
  /** Stops the timer; a look-up under way ends quietly (a shutdown never waits for it). */
  stop(): void;
}

/**
 * Watches the catalogue's schedule over `sql` (the primary: the flip writes); `onBoundary` runs after
 * each boundary's flip (the process's cache is emptied there, before any notification arrives).
 */
export function watchVisibilitySchedule(
  sql: Pick<SqlDriver, 'query' | 'transaction'>,
  onBoundary: () => void,
  log: Logger,
): VisibilitySchedule {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  let failing = false;

  const arm = (ms: number) => {
    clearTimeout(timer);
    timer = undefined;
    if (stopped) return;
    timer = setTimeout(refresh, Math.max(0, Math.min(ms, MAX_WAIT_MS)));
    // A timer for the caches: it never keeps a process (the CLI, a test) alive by itself.
    timer.unref();
  };

  /** Milliseconds until the next schedule time by the database's clock (≤ 0: overdue), or null: none. */
  async function untilDue(): Promise<number | null> {
    const [row] = await sql.query<{ wait: number | null }>(
      'SELECT (EXTRACT(EPOCH FROM item_visibility_due() - clock_timestamp()) * 1000)::float8 AS wait',
    );
    return row?.wait ?? null;
  }

  async function lookAndFlip(): Promise<void> {
    let wait = await untilDue();
    if (stopped) return;
    if (wait !== null && wait <= 0) {
      const flipped = await sql.transaction(async (query) => {
        const rows = await query<{ id: number; visible: boolean }>('SELECT id, visible FROM item_visibility_flip()');
        const events = rows.map(
          (row) => ({ type: row.visible ? 'item.published' : 'item.unpublished', item: row.id }) as const,
        );
        await appendEvents(query, null, events);
        return rows.length;
      });
      onBoundary();
      if (flipped) log.info({ items: flipped }, 'a schedule passed: items shown or hidden');
      wait = await untilDue();
      // Still overdue (another process's flip not yet committed): look again shortly, not in a loop.
      if (wait !== null && wait <= 0) wait = RETRY_MS;
    }
    if (wait === null) {
      clearTimeout(timer);
      timer = undefined;
    } else {
      arm(Math.ceil(wait));
    }
  }

  async function cycle(): Promise<void> {
    do {
      again = false;
      if (stopped) return;
      try {
        await lookAndFlip();
        if (failing) log.info('catalogue schedule watched again');
        failing = false;
      } catch (err) {
        // Stopped meanwhile: the database may be closing under the look-up.
        if (stopped) return;
        if (!failing) log.warn({ err }, 'catalogue schedule not readable; trying again every second');
        failing = true;
        arm(RETRY_MS);
      }
    } while (again);
  }

  function refresh(): void {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = cycle().finally(() => {
      running = undefined;
    });
  }

  return {
    refresh,
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
