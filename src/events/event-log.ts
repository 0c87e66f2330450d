/**
 * The event log (contract §14.1): every change of the catalogue appends its events in the change's
 * own transaction, as that transaction's last statement. One statement takes the next `seq` values
 * from the counter row (whose lock it then holds until commit) and inserts the events, so `seq` order
 * is commit order and a rolled-back change leaves no gap (prisma/migrations/20261206000000_events).
 * An item event's `data.item` is the admin Item in REST names, written by PostgreSQL from the same
 * field table as the REST answers (catalog-json.ts), as the item stands at the end of the change.
 */
import { randomBytes } from 'node:crypto';
import { type FieldNode, Kind, type OperationDefinitionNode, parse } from 'graphql';
import { categorySelectionJson, itemSelectionJson } from '../catalog/catalog-json.ts';
import { REST_ITEM_FIELDS } from '../catalog/item-rest-fields.ts';

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
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * One event of a change: an item's or a category's (its data read at the end of the change), or one
 * whose data is given (a deleted item's `{ id, handle }`, an import).
 */
export type PendingEvent =
  | { type: EventType; item: number }
  | { type: EventType; category: number }
  | { type: EventType; data: unknown };

/** `{ type, id, name }` as the audit log shows an actor; null: the service itself (a schedule). */
export type EventActor = { type: string; id: number | null; name: string | null } | null;

/** Runs one parameterised statement in the change's transaction (Prisma's or plain SQL). */
export type TxStatement = (text: string, params: unknown[]) => Promise<unknown>;

function selectionOf(document: string): FieldNode {
  const operation = parse(document).definitions[0] as OperationDefinitionNode;
  const field = operation.selectionSet.selections[0];
  if (field?.kind !== Kind.FIELD) throw new Error('an event document selects one field');
  return field;
}

/** `data.item` and `data.category` in the REST answers' names (§14.1: "admin Item, REST names"). */
const ITEM_JSON = itemSelectionJson(selectionOf(`{ item { ${REST_ITEM_FIELDS} } }`));
const CATEGORY_JSON = categorySelectionJson(
  selectionOf('{ category { id name parent_id: parentId sort_order: sortOrder } }'),
);

/** `WITH` the statement's own part (a data-modifying one: the change's audit entries), then the events'. */
const append = (also?: string) => `
WITH ${also ? `also AS (${also}), ` : ''}e AS (
  SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::int[], $5::text[]) WITH ORDINALITY
    AS e(id, type, item_id, category_id, data, n)
), counter AS (
  UPDATE event_counter SET last = last + (SELECT count(*) FROM e) WHERE id = 1 RETURNING last
)
INSERT INTO events (seq, id, type, at, actor, data)
SELECT counter.last - (SELECT count(*) FROM e) + e.n, e.id, e.type, clock_timestamp(), $6::json,
  COALESCE(
    e.data,
    (SELECT '{"item":' || ${ITEM_JSON} || '}' FROM items i JOIN categories c ON c.id = i.category_id WHERE i.id = e.item_id),
    (SELECT '{"category":' || ${CATEGORY_JSON} || '}' FROM categories c WHERE c.id = e.category_id)
  )::json
FROM e, counter
ORDER BY e.n`;
const APPEND = append();

/** An event's id: `evt_` and 16 random bytes in hex, unique without asking the database. */
export const newEventId = () => `evt_${randomBytes(16).toString('hex')}`;

/**
 * Appends `events` in the running transaction: call it LAST before commit (its counter lock is held
 * until then; anything after it lengthens the time other writers queue behind this one). `also`: a
 * data-modifying statement of the change run in the same statement (its audit entries), its one
 * parameter `$7`.
 */
export async function appendEvents(
  run: TxStatement,
  actor: EventActor,
  events: PendingEvent[],
  also?: { sql: string; param: unknown },
): Promise<void> {
  if (events.length === 0) return;
  const column = <T>(pick: (event: PendingEvent) => T | undefined) => events.map((event) => pick(event) ?? null);
  await run(also ? append(also.sql) : APPEND, [
    events.map(newEventId),
    column((event) => event.type),
    column((event) => ('item' in event ? event.item : undefined)),
    column((event) => ('category' in event ? event.category : undefined)),
    column((event) => ('data' in event ? JSON.stringify(event.data) : undefined)),
    actor && JSON.stringify({ type: actor.type, id: actor.id, name: actor.name }),
    ...(also ? [also.param] : []),
  ]);
}
