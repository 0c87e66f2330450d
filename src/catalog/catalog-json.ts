/**
 * What the catalogue's objects are in SQL: each field of the Item, Category, Sku and Image types
 * (item.graphql.ts and category.graphql.ts expose the row's keys as fields of the same names) as an
 * expression over the statement's `i` (the item) and `c` (its category, or the category listed).
 * Both JSON forms of an object are built from this one table:
 *
 * - the row (`ITEM_ROW_JSON`, `CATEGORY_ROW_JSON`): every field under its own name, money as exact
 *   decimal text — the objects GraphQL's resolvers hand to the schema;
 * - a selection's answer (`itemSelectionJson`, `categorySelectionJson`): the fields a REST route's
 *   document selects, under their aliases, money as the JSON number the Money scalar makes of that
 *   text (`float8`'s shortest form is JavaScript's `Number` of the decimal), so PostgreSQL writes the
 *   REST answer itself and Node passes it through (rest/run.ts: rendered reads).
 *   test/catalog/rendered-reads.test.ts holds the rendered answers equal to the same documents
 *   executed by GraphQL.
 *
 * The JSON is written as text — `concat` of the keys as literals and each value's JSON — compact, as
 * `JSON.stringify` writes it. Measured over 20,000 items (bench data): 15 µs per item, against 21 µs
 * for `json_build_object` (which writes `"key" : value`) and 23 µs for `row_to_json` over named
 * columns (compact, but a sub-select per object).
 */
import { type FieldNode, Kind, type SelectionSetNode } from 'graphql';

/** A timestamp column as ISO 8601 UTC text with milliseconds, as the contract writes them (every SQL that writes one). */
export const isoSql = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** How a column's value is written as JSON. */
type JsonAs = 'number' | 'text' | 'json' | 'money' | 'time';
type Scalar = { sql: string; as: JsonAs; nullable?: true };
/** An object on the same row (`from` absent), or a list of rows `from` a subquery, in `order`. */
type Nested = { fields: Fields; from?: string; order?: string };
type Fields = Record<string, Scalar | Nested>;

const scalar =
  (as: JsonAs) =>
  (sql: string, nullable?: 'nullable'): Scalar =>
    nullable ? { sql, as, nullable: true } : { sql, as };
const number = scalar('number');
const text = scalar('text');
const json = scalar('json');
const money = scalar('money');
const time = scalar('time');

const CATEGORY: Fields = {
  id: number('c.id'),
  name: text('c.name'),
  parentId: number('c.parent_id', 'nullable'),
  sortOrder: number('c.sort_order'),
};

const SKU: Fields = {
  id: number('s.id'),
  skuCode: text('s.sku_code', 'nullable'),
  specs: json('s.specs'),
  price: money('s.price'),
  stock: number('s.stock'),
};

const IMAGE: Fields = { id: number('m.id'), url: text('m.url'), sortOrder: number('m.sort_order') };

const ITEM: Fields = {
  id: number('i.id'),
  name: text('i.name'),
  description: text('i.description'),
  categoryId: number('i.category_id'),
  category: { fields: CATEGORY },
  price: money('i.price'),
  stock: number('i.stock'),
  skus: { fields: SKU, from: 'skus s WHERE s.item_id = i.id', order: 's.id' },
  images: { fields: IMAGE, from: 'item_images m WHERE m.item_id = i.id', order: 'm.sort_order, m.id' },
  status: text('i.status::text'),
  publishAt: time(isoSql('i.publish_at'), 'nullable'),
  unpublishAt: time(isoSql('i.unpublish_at'), 'nullable'),
  handle: text('i.handle'),
  version: number('i.version'),
  createdAt: time(isoSql('i.created_at')),
  updatedAt: time(isoSql('i.updated_at')),
};

/** Which fields, under which keys (`[key, field, its own picks]`). */
type Picks = Array<[key: string, field: string, picks?: Picks]>;

/** A piece of the JSON text: a literal, or an SQL expression whose text is JSON. */
type Part = { literal: string } | { sql: string };

type MoneyAs = 'text' | 'float8';

/** The JSON of one value; a NULL is `null` (concat would leave it out). */
function valueParts(field: Scalar, moneyAs: MoneyAs): Part[] {
  const { sql, as, nullable } = field;
  // to_char's digits need no escaping; a NULL time is `null`.
  if (as === 'time')
    return nullable
      ? [{ sql: `COALESCE('"' || ${sql} || '"', 'null')` }]
      : [{ literal: '"' }, { sql }, { literal: '"' }];
  const value =
    as === 'text'
      ? `to_json(${sql})`
      : as === 'money'
        ? moneyAs === 'float8'
          ? `${sql}::float8`
          : `to_json(${sql}::text)`
        : sql;
  return [{ sql: nullable ? `COALESCE(${value}::text, 'null')` : value }];
}

function objectParts(fields: Fields, picks: Picks, moneyAs: MoneyAs): Part[] {
  const parts: Part[] = [{ literal: '{' }];
  picks.forEach(([key, name, sub], n) => {
    const field = fields[name];
    if (!field) throw new Error(`no SQL for the field \`${name}\``);
    parts.push({ literal: `${n ? ',' : ''}${JSON.stringify(key)}:` });
    if ('sql' in field) parts.push(...valueParts(field, moneyAs));
    else if (!field.from) parts.push(...objectParts(field.fields, sub ?? [], moneyAs));
    else {
      const list = jsonArray(concatOf(objectParts(field.fields, sub ?? [], moneyAs)), field.order!);
      parts.push({ sql: `(SELECT ${list} FROM ${field.from})` });
    }
  });
  parts.push({ literal: '}' });
  return parts;
}

const quote = (literal: string) => `'${literal.replaceAll("'", "''")}'`;

/** PostgreSQL takes at most 100 arguments per call: longer lists are concatenated in groups. */
const CONCAT_ARGS = 100;

/** One text expression of the parts, adjacent literals merged. */
function concatOf(parts: Part[]): string {
  const args: string[] = [];
  let literal = '';
  for (const part of parts) {
    if ('literal' in part) literal += part.literal;
    else {
      if (literal) args.push(quote(literal));
      literal = '';
      args.push(part.sql);
    }
  }
  if (literal) args.push(quote(literal));
  const group = (list: string[]): string =>
    list.length <= CONCAT_ARGS
      ? `concat(${list.join(', ')})`
      : group(
          Array.from({ length: Math.ceil(list.length / CONCAT_ARGS) }, (_, k) =>
            group(list.slice(k * CONCAT_ARGS, (k + 1) * CONCAT_ARGS)),
          ),
        );
  return group(args);
}

/**
 * The JSON array text of `element` (a JSON text or `json` expression) over the rows of the enclosing
 * `FROM`, in `order`; `[]` for none. Every list of objects the catalogue answers is written by this.
 */
export const jsonArray = (element: string, order: string) =>
  `COALESCE('[' || string_agg((${element})::text, ',' ORDER BY ${order}) || ']', '[]')`;

/** Every field under its own name. */
const everything = (fields: Fields): Picks =>
  Object.entries(fields).map(([name, field]) => [name, name, 'fields' in field ? everything(field.fields) : undefined]);

/** An item (`i`, joined with its category `c`) as the row GraphQL resolves (item.repository.ts ItemRow). */
export const ITEM_ROW_JSON = concatOf(objectParts(ITEM, everything(ITEM), 'text'));

/** A category (`c`) as the row GraphQL resolves (item.repository.ts CategoryRow). */
export const CATEGORY_ROW_JSON = concatOf(objectParts(CATEGORY, everything(CATEGORY), 'text'));

/** A selection's fields under their keys; anything but plain fields is refused (a REST document has none). */
function picksOf(selectionSet: SelectionSetNode): Picks {
  return selectionSet.selections.map((s) => {
    if (s.kind !== Kind.FIELD || s.directives?.length) throw new Error('only plain fields can be rendered');
    return [s.alias?.value ?? s.name.value, s.name.value, s.selectionSet && picksOf(s.selectionSet)];
  });
}

const selectionJson = (fields: Fields) => (field: FieldNode) => {
  if (!field.selectionSet) throw new Error(`\`${field.name.value}\` is rendered from its fields`);
  return concatOf(objectParts(fields, picksOf(field.selectionSet), 'float8'));
};

/** An item as the selection `field` (of type Item) answers it, over `i` and `c`. */
export const itemSelectionJson = selectionJson(ITEM);

/** A category as the selection `field` (of type Category) answers it, over `c`. */
export const categorySelectionJson = selectionJson(CATEGORY);
