/**
 * Hands database results to their callers one per event-loop turn.
 *
 * libuv (since 1.45, Node 20) accepts one new connection per event-loop turn. When the process is
 * saturated, a turn lasts as long as the work of every result that arrived during the previous one
 * — with ten pooled connections, ten pages to turn into JSON, ~30 ms — so new connections are
 * accepted at ~30 per second and a burst of a few hundred (a login wave, a load balancer's probes)
 * waits in the kernel's queue for many seconds while the process is busy with keep-alive traffic.
 * Releasing one result per turn keeps turns at about one request's work, so accepts (and every
 * other event) keep their pace; throughput is unchanged, as the work is the same, only interleaved.
 * Measured with 256 keep-alive connections on the list and 300 new connections at once: the last of
 * the 300 answered after 9 s before, 2.5 s with a pool of two connections (fewer results per turn).
 */
const waiting: Array<() => void> = [];
let scheduled = false;

function releaseOne(): void {
  const next = waiting.shift();
  // An immediate queued from inside an immediate runs in the next turn: one release per turn.
  if (waiting.length) setImmediate(releaseOne);
  else scheduled = false;
  next?.();
}

/** Runs `deliver` (which hands a result to its caller) in the next free turn. */
export function paced(deliver: () => void): void {
  waiting.push(deliver);
  if (!scheduled) {
    scheduled = true;
    setImmediate(releaseOne);
  }
}
