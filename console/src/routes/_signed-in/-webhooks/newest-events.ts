/**
 * The newest events of the log through `events(after, limit)`, which reads oldest first (contract
 * §14.1). A page that is not full answers `nextAfter` = the log's newest `seq`, and the log has no
 * gaps, so: read from the start; while pages come back full, gallop forward (doubling the step) and
 * then halve between an `after` known to have events beyond it and one known to have none, until a
 * page is not full. That takes one request for a log of fewer than `probe` events and about
 * 2·log2(events / probe) for a large one, each of `probe` rows at most; then the newest `count`.
 */

export interface EventsPage<E> {
  events: E[];
  nextAfter: number;
}

export type ReadEvents<E> = (after: number, limit: number) => Promise<EventsPage<E>>;

/** The largest `after` the service takes (a GraphQL Int). */
const MAX_AFTER = 2_147_483_647;
/** More probes than 2·31 cannot be needed; a bound keeps a log that changes under us from looping. */
const MAX_PROBES = 70;

/** The newest `count` events, newest first. */
export async function newestEvents<E extends { seq: number }>(
  read: ReadEvents<E>,
  count: number,
  probe = 100,
): Promise<E[]> {
  let newest: number | undefined;
  let lo = 0; // every `seq` up to lo exists
  let hi: number | undefined; // no event after hi
  for (let i = 0; i < MAX_PROBES && newest === undefined; i++) {
    // Gallop while no empty page was seen; then halve, and once the gap fits a page, read it whole.
    const after =
      hi === undefined
        ? Math.min(lo === 0 ? 0 : lo + probe * 2 ** i, MAX_AFTER)
        : hi - lo <= probe
          ? lo
          : lo + Math.floor((hi - lo) / 2);
    const page = await read(after, probe);
    const last = page.events.at(-1)?.seq;
    if (last === undefined) {
      // Nothing after `after`: the newest is at or before it (or the log is empty).
      if (after <= lo) newest = lo;
      else hi = after;
    } else if (page.events.length < probe) {
      newest = page.nextAfter;
    } else {
      lo = last;
      if (hi !== undefined && hi <= lo) newest = lo;
    }
  }
  if (!newest) return [];
  const { events } = await read(Math.max(newest - count, 0), count);
  return events.reverse();
}
