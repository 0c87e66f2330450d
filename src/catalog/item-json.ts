/**
 * What an item is in SQL: each field of the Item, Category, Sku and Image types (item.graphql.ts
 * exposes the row's keys as fields of the same names) as an expression over the statement's `i` (the
 * item) and `c` (its category). Both JSON forms of an item are built from this one table:
 *
 * - the row (`ITEM_ROW_JSON`): every field under its own name, money as exact decimal text — the
 *   objects GraphQL's resolvers hand to the schema;
 * - a selection's answer (`selectionJson`): the fields a REST route's document selects, under their
 *   aliases, money as the JSON number the Money scalar makes of that text (`float8`'s shortest form
 *   is JavaScript's `Number` of the decimal), so PostgreSQL writes the REST answer itself and Node
 *   passes it through (rest/run.ts: rendered reads). test/catalog/rendered-reads.test.ts holds the
 *   rendered answers equal to the same document executed by GraphQL.
 */
import { type FieldNode, Kind, type SelectionSetNode } from 'graphql';

/** A timestamp column as ISO 8601 UTC text with milliseconds, as the contract writes them. */
export const iso = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

type Scalar = { sql: string; money?: true };
/** An object on the same row (`from` absent), or a list of rows `from` a subquery, in `order`. */
type Nested = { fields: Fields; from?: string; order?: string };
type Fields = Record<string, Scalar | Nested>;

const column = (sql: string): Scalar => ({ sql });
const money = (sql: string): Scalar => ({ sql, money: true });

const CATEGORY: Fields = {
  id: column('c.id'),
  name: column('c.name'),
  parentId: column('c.parent_id'),
  sortOrder: column('c.sort_order'),
};

const SKU: Fields = {
  id: column('s.id'),
  skuCode: column('s.sku_code'),
  specs: column('s.specs'),
  price: money('s.price'),
  stock: column('s.stock'),
};

const IMAGE: Fields = { id: column('m.id'), url: column('m.url'), sortOrder: column('m.sort_order') };

const ITEM: Fields = {
  id: column('i.id'),
  name: column('i.name'),
  description: column('i.description'),
  categoryId: column('i.category_id'),
  category: { fields: CATEGORY },
  price: money('i.price'),
  stock: column('i.stock'),
  skus: { fields: SKU, from: 'skus s WHERE s.item_id = i.id', order: 's.id' },
  images: { fields: IMAGE, from: 'item_images m WHERE m.item_id = i.id', order: 'm.sort_order, m.id' },
  createdAt: column(iso('i.created_at')),
  updatedAt: column(iso('i.updated_at')),
};

/** Which fields, under which keys (`[key, field, its own picks]`). */
type Picks = Array<[key: string, field: string, picks?: Picks]>;

/**
 * The JSON of `picks` over `fields`. `compact`: as `JSON.stringify` writes it (`row_to_json` over
 * named columns — json_build_object writes `"key" : value`), for an answer sent as PostgreSQL wrote it;
 * otherwise json_build_object's, cheaper, for rows that are parsed anyway.
 */
function render(fields: Fields, picks: Picks, moneyAs: 'text' | 'float8', compact: boolean): string {
  const columns = picks.map(([key, name, sub]): [string, string] => {
    const field = fields[name];
    if (!field) throw new Error(`no SQL for the field \`${name}\``);
    if ('sql' in field) return [key, field.money ? `${field.sql}::${moneyAs}` : field.sql];
    const object = render(field.fields, sub ?? [], moneyAs, compact);
    if (!field.from) return [key, object];
    const order = field.order!.split(',').map((o, k) => [o.trim(), `o${k}`] as const);
    const list = compact
      ? `(SELECT array_to_json(array_agg(r.j ORDER BY ${order.map(([, as]) => `r.${as}`).join(', ')}))
            FROM (SELECT ${object} AS j, ${order.map(([o, as]) => `${o} AS ${as}`).join(', ')} FROM ${field.from}) r)`
      : `(SELECT json_agg(${object} ORDER BY ${field.order}) FROM ${field.from})`;
    return [key, `COALESCE(${list}, '[]')`];
  });
  return compact
    ? `(SELECT row_to_json(x) FROM (SELECT ${columns.map(([key, sql]) => `${sql} AS "${key}"`).join(', ')}) x)`
    : `json_build_object(${columns.map(([key, sql]) => `'${key}', ${sql}`).join(', ')})`;
}

/** Every field under its own name. */
const everything = (fields: Fields): Picks =>
  Object.entries(fields).map(([name, field]) => [name, name, 'fields' in field ? everything(field.fields) : undefined]);

/** An item (`i`, joined with its category `c`) as the row GraphQL resolves (item.repository.ts ItemRow). */
export const ITEM_ROW_JSON = render(ITEM, everything(ITEM), 'text', false);

/** A selection's fields under their keys; anything but plain fields is refused (a REST document has none). */
function picksOf(selectionSet: SelectionSetNode): Picks {
  return selectionSet.selections.map((s) => {
    if (s.kind !== Kind.FIELD || s.directives?.length) throw new Error('only plain fields can be rendered');
    return [s.alias?.value ?? s.name.value, s.name.value, s.selectionSet && picksOf(s.selectionSet)];
  });
}

/** An item as the selection `field` (of type Item) answers it, over `i` and `c`. */
export const selectionJson = (field: FieldNode): string => {
  if (!field.selectionSet) throw new Error('an item selection has fields');
  return render(ITEM, picksOf(field.selectionSet), 'float8', true);
};
