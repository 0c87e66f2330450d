/**
 * The event types a webhook may ask for (contract §14.1), copied from the service's log
 * (src/events/event-log.ts `EVENT_TYPES`) because the console is a separate build;
 * test/console/webhook-event-types.test.ts holds the copy equal to it. `*` asks for every type,
 * those added later too.
 */
export const EVENT_TYPES = [
  'item.created',
  'item.updated',
  'item.deleted',
  'item.published',
  'item.unpublished',
  'category.created',
  'category.updated',
  'category.deleted',
  'import.finished',
] as const;

export const ALL_EVENTS = '*';
