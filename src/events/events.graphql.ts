/** The event feed in GraphQL (contract §14.1): `events(after, limit, types): EventPage!`. */
import { type ActorFields, AuditActorType } from '../audit/audit.graphql.ts';
import { builder } from '../graphql/builder.ts';
import { eventFeedInput } from './events.schema.ts';
import { type EventPage, type EventRow, readEvents } from './events.service.ts';

const actorFields = (actor: NonNullable<EventRow['actor']>): ActorFields => ({
  actorType: actor.type,
  actorId: actor.id,
  actorName: actor.name,
});

export const EventType = builder.objectRef<EventRow>('Event').implement({
  description: 'One change of the catalogue, as the event log keeps it (contract §14.1).',
  fields: (t) => ({
    id: t.exposeString('id', { description: '`evt_…`: unique; a webhook delivery’s `webhook-id`.' }),
    seq: t.exposeInt('seq', { description: 'Its place in commit order; the log has no gaps.' }),
    type: t.exposeString('type', { description: '`item.created`, `item.updated`, … (contract §14.1).' }),
    at: t.expose('at', { type: 'DateTime' }),
    actor: t.field({
      type: AuditActorType,
      nullable: true,
      description: 'Who made the change; null for the service itself (a schedule passing).',
      resolve: (event) => event.actor && actorFields(event.actor),
    }),
    data: t.field({
      type: 'JSON',
      description: '`{ item }` (the admin Item, REST names), `{ category }`, or `{ import }`.',
      resolve: (event) => event.data,
    }),
  }),
});

const EventPageType = builder.objectRef<EventPage>('EventPage').implement({
  description: 'Events after a `seq`, oldest first.',
  fields: (t) => ({
    events: t.field({ type: [EventType], resolve: (page) => page.events }),
    nextAfter: t.exposeInt('nextAfter', { description: 'Pass it as `after` to read on.' }),
  }),
});

builder.queryField('events', (t) =>
  t.field({
    type: EventPageType,
    description:
      'The event log after `after` (default 0), oldest first: `limit` 1..500 (default 100), `types` (default every one; `*` too). Kept EVENT_RETENTION_DAYS.',
    authScopes: { catalogRead: true },
    complexity: (args) => ({ field: 1, multiplier: Math.ceil((args.limit ?? 100) / 20) }),
    args: t.validate(
      {
        after: t.arg.int({ description: 'A `seq`: only later events. Default 0.' }),
        limit: t.arg.int({ description: '1..500, default 100.' }),
        types: t.arg.stringList({ description: 'Event types (`item.updated`, …) or `*`.' }),
      },
      eventFeedInput,
    ),
    resolve: (_root, args, ctx) => readEvents(ctx, args),
  }),
);
