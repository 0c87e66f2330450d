/** Reading the event log (contract §14.1): a page after a `seq`, oldest first; and its retention. */
import type { RequestContext } from '../request-context.ts';
import type { EventFeedInput } from './events.schema.ts';

/** An event as read: its row, `actor` and `data` parsed. */
export interface EventRow {
  seq: number;
  id: string;
  type: string;
  at: Date;
  actor: { type: string; id: number | null; name: string | null } | null;
  data: unknown;
}

export interface EventPage {
  events: EventRow[];
  /**
   * Where to ask next: the page's last `seq` when it is full; otherwise the newest `seq` of the whole
   * log as the page was read, so a reader of a few types steps over the others' events at once.
   */
  nextAfter: number;
}

/**
 * The events after `after`, of `types` when given, and the log's newest `seq` — one statement, one
 * snapshot. Nothing is skipped by reading while writers commit: `seq` is given in commit order
 * (event-log.ts), so in any snapshot every event up to the newest one is there.
 */
export async function readEvents(ctx: RequestContext, input: EventFeedInput): Promise<EventPage> {
  const rows = await ctx.db.prisma.$queryRawUnsafe<Array<Partial<EventRow> & { newest: number }>>(
    `SELECT e.seq, e.id, e.type, e.at, e.actor, e.data, c.last AS newest
       FROM event_counter c
       LEFT JOIN LATERAL (
         SELECT * FROM events WHERE seq > $1 AND ($3::text[] IS NULL OR type = ANY($3::text[])) ORDER BY seq LIMIT $2
       ) e ON true
      WHERE c.id = 1`,
    input.after,
    input.limit,
    input.types ?? null,
  );
  const events = rows.filter((row) => row.seq != null) as EventRow[];
  const newest = rows[0]?.newest ?? input.after;
  const nextAfter = events.length === input.limit ? events.at(-1)!.seq : Math.max(input.after, newest);
  return { events, nextAfter };
}
