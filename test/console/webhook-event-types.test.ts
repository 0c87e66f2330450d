/**
 * The console offers a webhook the event types the service's log appends (contract §14.1): its copy
 * (console/src/routes/_signed-in/-webhooks/event-types.ts) must equal src/events/event-log.ts, or a
 * new type could not be chosen, and a removed one would be refused under the field.
 */
import { describe, expect, it } from 'vitest';
import { EVENT_TYPES as CONSOLE_TYPES } from '../../console/src/routes/_signed-in/-webhooks/event-types.ts';
import { EVENT_TYPES } from '../../src/events/event-log.ts';

describe('the console’s webhook event types', () => {
  it('when compared with the service’s event log, then they are the same types in the same order', () => {
    expect(CONSOLE_TYPES).toEqual(EVENT_TYPES);
  });
});
