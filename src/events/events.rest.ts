/** `GET /admin/api/events` (contract §14.1): the event feed, the GraphQL `events` field in REST names. */
import type { RestRoute } from '../rest/route.ts';
import { EVENT_TYPES } from './event-log.ts';

/** `types=a,b` (or repeated): REST's spelling of the list argument. */
const TYPES_PARAMETER = {
  name: 'types',
  description: `Comma-separated event types to keep (\`item.updated,item.deleted\`), of *, ${EVENT_TYPES.join(', ')}; default every type.`,
  schema: { type: 'string' },
  replaces: 'types',
} as const;

export const eventRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/admin/api/events',
    summary: 'The event log after a `seq`, oldest first, in commit order without gaps (admin)',
    tag: 'Events and webhooks',
    document: /* GraphQL */ `
      query RestEvents($after: Int, $limit: Int, $types: [String!]) {
        events(after: $after, limit: $limit, types: $types) {
          events { id seq type at actor { type id name } data }
          next_after: nextAfter
        }
      }`,
    input: { from: 'query' },
    variables: (req) => {
      const types = req
        .queryAll('types')
        .flatMap((value) => value.split(','))
        .map((type) => type.trim())
        .filter(Boolean);
      return types.length ? { types } : {};
    },
    queryParameters: [TYPES_PARAMETER],
    result: 'events',
    example: { query: { after: 0, limit: 10 } },
  },
];
