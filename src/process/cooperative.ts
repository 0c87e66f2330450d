/**
 * Long CPU work in a serving process — an import's batch plans, builds the search documents and
 * postings of hundreds of items, ~0.5 ms each — gives the event loop back every few milliseconds, so
 * a request that arrives meanwhile is answered between its steps instead of after all of them (the
 * `detail` p99 during an import, docs/performance.md).
 */
import { setImmediate as nextTurn } from 'node:timers/promises';

/** How long a stretch of work holds the event loop before it lets waiting callbacks run. */
const STRETCH_MS = 8;

/**
 * A checkpoint for a loop of CPU work: awaited once per step, it lets the event loop run (I/O
 * callbacks: requests, their statements' answers) when the steps since the last pause took STRETCH_MS.
 */
export function cooperative(): () => Promise<void> | undefined {
  let since = performance.now();
  return () => {
    if (performance.now() - since < STRETCH_MS) return undefined;
    return nextTurn().then(() => {
      since = performance.now();
    });
  };
}
