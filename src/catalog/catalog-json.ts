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
 * The REST item selection (REST_ITEM_FIELDS) is not built per read but kept per item (`item_rest_json`,
 * written by triggers from the text below: see `itemSelectionJson` and KEPT_ITEM_JSON_FUNCTION).
 *
 * The JSON is written as text — `concat` of the keys as literals and each value's JSON — compact, as
 * `JSON.stringify` writes it. Measured over 20,000 items (bench data): 15 µs per item, against 21 µs
 * for `json_build_object` (which writes `"key" : value`) and 23 µs for `row_to_json` over named
 * columns (compact, but a sub-select per object).
 */
import { type FieldNode, Kind, type OperationDefinitionNode, parse, type SelectionSetNode } from 'graphql';
import { REST_ITEM_FIELDS } from './item-rest-fields.ts';

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
/** Where the value of the top-level key `hole` goes, left out (the kept item JSON's category). */
type Hole = { hole: true };

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

function objectParts(fields: Fields, picks: Picks, moneyAs: MoneyAs): Part[];
function objectParts(fields: Fields, picks: Picks, moneyAs: MoneyAs, hole: string): Array<Part | Hole>;
function objectParts(fields: Fields, picks: Picks, moneyAs: MoneyAs, hole?: string): Array<Part | Hole> {
  const parts: Array<Part | Hole> = [{ literal: '{' }];
  picks.forEach(([key, name, sub], n) => {
    const field = fields[name];
    if (!field) throw new Error(`no SQL for the field \`${name}\``);
    parts.push({ literal: `${n ? ',' : ''}${JSON.stringify(key)}:` });
    if (key === hole) parts.push({ hole: true });
    else if ('sql' in field) parts.push(...valueParts(field, moneyAs));
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

/** An item as the selection `field` (of type Item) answers it, built from its row, SKUs and images. */
const builtItemSelectionJson = selectionJson(ITEM);

/**
 * Kept item JSON (prisma/migrations/20261211000000_kept_item_json; issue 35): the REST item selection
 * (REST_ITEM_FIELDS: every REST item answer and the events' `data.item`) is written by PostgreSQL when
 * the item, its SKUs or its images change, into `item_rest_json`, as the text before the category's
 * value (`head`) and after it (`tail`); a read splices in the joined category (so a category rename
 * touches no item) instead of building the item and its two subqueries (~15 µs of PostgreSQL a
 * item, plus the subqueries). This is the one place that says which selection is kept.
 */
const restItemPicks = (): Picks => {
  const operation = parse(`{ item { ${REST_ITEM_FIELDS} } }`).definitions[0] as OperationDefinitionNode;
  return picksOf((operation.selectionSet.selections[0] as FieldNode).selectionSet!);
};
const REST_ITEM_PICKS = restItemPicks();
const KEPT_HOLE = 'category';

/** The REST item's JSON text before (`head`) and after (`tail`) its category's value, over `i` alone. */
function keptParts(): { head: string; tail: string; category: string } {
  const parts = objectParts(ITEM, REST_ITEM_PICKS, 'float8', KEPT_HOLE);
  const at = parts.findIndex((p) => 'hole' in p);
  const pick = REST_ITEM_PICKS.find(([key]) => key === KEPT_HOLE);
  if (at < 0 || !pick || parts.findIndex((p, n) => n > at && 'hole' in p) >= 0)
    throw new Error('the kept item JSON has one category');
  return {
    head: concatOf(parts.slice(0, at) as Part[]),
    tail: concatOf(parts.slice(at + 1) as Part[]),
    category: concatOf(objectParts(CATEGORY, pick[2] ?? [], 'float8')),
  };
}
const KEPT = keptParts();

/** The upsert of the kept JSON of the items `FROM "items" i` (and what follows it) selects. */
const keptUpsert = (from: string) => `INSERT INTO "item_rest_json" AS j (item_id, head, tail)
    SELECT i.id,
           ${KEPT.head},
           ${KEPT.tail}
      ${from}
    ON CONFLICT (item_id) DO UPDATE SET head = EXCLUDED.head, tail = EXCLUDED.tail
     WHERE (j.head, j.tail) IS DISTINCT FROM (EXCLUDED.head, EXCLUDED.tail);`;

/**
 * The migration's functions that keep `item_rest_json` (prisma/migrations/20261211000000_kept_item_json
 * holds this text exactly: test/db/kept-item-json-migration.test.ts). A change of REST_ITEM_FIELDS or of the
 * field table changes it, and needs a new migration that replaces the function and refreshes all rows.
 *
 * `item_rest_json_refresh(ids)`: writes the kept JSON of those items (NULL: of every item), returns
 * how many rows it wrote. Their rows are locked first, in id order, and the JSON built after the wait,
 * so two transactions changing one item's parts (different SKUs) cannot leave the one that committed
 * first out. An unchanged text is not written again.
 */
export const KEPT_ITEM_JSON_FUNCTION = `CREATE FUNCTION "item_rest_json_refresh"(ids INTEGER[]) RETURNS integer LANGUAGE plpgsql
  SET enable_seqscan = off AS $$
DECLARE
  written INTEGER;
BEGIN
  IF ids IS NULL THEN
    -- Every item: a scan, not ~1,000,000 look-ups.
    PERFORM set_config('enable_seqscan', 'on', true);
    ${keptUpsert('FROM "items" i')}
  ELSE
    PERFORM 1 FROM "item_rest_json" WHERE item_id = ANY(ids) ORDER BY item_id FOR UPDATE;
    ${keptUpsert('FROM "items" i WHERE i.id = ANY(ids) ORDER BY i.id')}
  END IF;
  GET DIAGNOSTICS written = ROW_COUNT;
  RETURN written;
END
$$;`;

/** The REST item built from the row, SKUs and images, over `i` and `c`: what the kept JSON must equal (tests). */
export const REST_ITEM_BUILT_JSON = concatOf(objectParts(ITEM, REST_ITEM_PICKS, 'float8'));

/** The REST item from its kept row `j` (item_rest_json) and its category `c`. */
export const restItemKeptJson = (j: string) => `concat(${j}.head, ${KEPT.category}, ${j}.tail)`;

/**
 * The REST item over `i` and `c` as read: its kept text with the category spliced in — or, for an
 * item without a kept row (none should be; a guard, never wrong), built.
 */
const KEPT_ITEM_READ = `COALESCE((SELECT ${restItemKeptJson('j')} FROM item_rest_json j WHERE j.item_id = i.id), ${REST_ITEM_BUILT_JSON})`;

const samePicks = (a: Picks, b: Picks): boolean =>
  a.length === b.length &&
  a.every(
    ([key, name, sub], n) =>
      key === b[n]![0] && name === b[n]![1] && (sub && b[n]![2] ? samePicks(sub, b[n]![2]!) : sub === b[n]![2]),
  );

/**
 * An item as the selection `field` (of type Item) answers it, over `i` and `c`: for the REST item
 * selection, its kept JSON; for any other, built.
 */
export const itemSelectionJson = (field: FieldNode): string =>
  field.selectionSet && samePicks(picksOf(field.selectionSet), REST_ITEM_PICKS)
    ? KEPT_ITEM_READ
    : builtItemSelectionJson(field);

/** A category as the selection `field` (of type Category) answers it, over `c`. */
export const categorySelectionJson = selectionJson(CATEGORY);
