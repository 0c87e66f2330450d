/**
 * A process's background rounds over the database (the webhook dispatch, the facet counts' fold): a
 * round runs when kicked — a catalogue change heard — and every `pollMs` besides (a notification
 * missed, a write from elsewhere), but at most one per `gapMs` from one round's start to the next:
 * the kicks meanwhile share the next round instead of each paying for one. Never two at once; a kick
 * during a round runs one more after it (what it heard may have committed after the round's read).
 * A failing round is logged once, and once more when rounds work again; a stop waits `stopWaitMs` at
 * most for a round under way (with the database silent it would wait for ever; a round cut off
 * commits nothing, and the next process's round does its work).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../logger.ts';

export interface Rounds {
  /** Runs a round soon (calls within `gapMs` of a round's start share the next round). */
  kick(): void;
  stop(): Promise<void>;
}

export interface RoundsOptions {
  /** One round; `stopped()` says whether the process stops (a round of many steps ends early). */
  run: (stopped: () => boolean) => Promise<void>;
  gapMs: number;
  pollMs: number;
  stopWaitMs: number;
  log: Logger;
  /** What failed, for its log lines (`webhook dispatch`). */
  what: string;
  /** Runs the first round at once (otherwise at the first kick or poll). */
  now?: boolean;
}

export function startRounds({ run, gapMs, pollMs, stopWaitMs, log, what, now = false }: RoundsOptions): Rounds {
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  let failing = false;
  /** When the latest round started, and the timer of the next when one is waited for. */
  let startedAt = Number.NEGATIVE_INFINITY;
  let due: NodeJS.Timeout | undefined;

  async function round(): Promise<void> {
    try {
      await run(() => stopped);
      if (failing) log.info(`${what} running again`);
      failing = false;
    } catch (err) {
      if (stopped) return;
      if (!failing) log.warn({ err }, `${what} failed; trying again every ${pollMs / 1000} s`);
      failing = true;
    }
  }

  function kick(): void {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    const wait = startedAt + gapMs - Date.now();
    if (wait > 0) {
      // A round is due in a moment anyway: this kick waits for it.
      due ??= setTimeout(() => {
        due = undefined;
        kick();
      }, wait);
      return;
    }
    startedAt = Date.now();
    running = round().finally(() => {
      running = undefined;
      if (again) {
        again = false;
        kick();
      }
    });
  }

  const timer = setInterval(kick, pollMs);
  timer.unref();
  if (now) kick();
  return {
    kick,
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      clearTimeout(due);
      if (running) await Promise.race([running, sleep(stopWaitMs, undefined, { ref: false })]);
    },
  };
}
