/** The arguments of the event feed (contract §14.1): `after`, `limit` 1..500 (default 100), `types`. */
import { z } from 'zod';
import { INT32_MAX, int } from '../validation/rules.ts';
import { EVENT_TYPES } from './event-log.ts';

export const MAX_EVENTS_PAGE = 500;
export const DEFAULT_EVENTS_PAGE = 100;

/** Every type a reader or a webhook may ask for: the log's, and `*` (any). */
export const eventTypeFilter = z
  .array(z.string())
  .max(EVENT_TYPES.length + 1, `lists at most ${EVENT_TYPES.length + 1} types`)
  .superRefine((types, issue) => {
    for (const type of types) {
      if (type !== '*' && !(EVENT_TYPES as readonly string[]).includes(type))
        issue.addIssue({
          code: 'custom',
          message: `has an unknown type \`${type.slice(0, 40)}\`; known: *, ${EVENT_TYPES.join(', ')}`,
        });
    }
  });

export const eventFeedInput = z.object({
  after: int(0, INT32_MAX, 'must be an integer >= 0')
    .nullish()
    .transform((v) => v ?? 0),
  limit: int(1, MAX_EVENTS_PAGE, `must be an integer between 1 and ${MAX_EVENTS_PAGE}`)
    .nullish()
    .transform((v) => v ?? DEFAULT_EVENTS_PAGE),
  // No filter, or `*` among them: every type.
  types: eventTypeFilter.nullish().transform((v) => (!v?.length || v.includes('*') ? undefined : v)),
});
/** The parsed arguments (GraphQL's typing lets an omitted filter arrive as null). */
export type EventFeedInput = Omit<z.output<typeof eventFeedInput>, 'types'> & { types?: string[] | null };
