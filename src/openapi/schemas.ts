/**
 * Response schemas of the OpenAPI document from the GraphQL selections the REST routes run: every
 * selected object becomes a named component (`Item`, `Category`, `User` …) referenced with `$ref`.
 * A type selected with different fields in different places gets one name per shape: the shape a
 * route answers with at its top level keeps the type's name (`Category`), the others are named
 * after where they appear (`ItemCategory`, the category inside an item).
 */
import {
  type GraphQLObjectType,
  type GraphQLOutputType,
  getNamedType,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  Kind,
  type SelectionSetNode,
} from 'graphql';

type JsonSchema = Record<string, unknown>;

const SCALARS: Record<string, JsonSchema> = {
  Int: { type: 'integer' },
  Float: { type: 'number' },
  String: { type: 'string' },
  Boolean: { type: 'boolean' },
  ID: { type: 'string' },
  // No `multipleOf: 0.01`: validators test it in binary floating point and reject 19.9.
  Money: { type: 'number', minimum: 0, maximum: 99999999.99, description: 'At most 2 fractional digits.' },
  DateTime: { type: 'string', format: 'date-time' },
  JSONObject: { type: 'object' },
};

/** REST names of GraphQL types whose REST field says otherwise (`user`, not `customer`). */
const REST_NAMES: Record<string, string> = { Customer: 'User' };

const PLACEHOLDER = '#/components/schemas/\u0000';

interface Variant {
  schema: JsonSchema;
  /** Seen as a route's whole body (a candidate for the type's own name). */
  atTop: boolean;
  /** The name to use when another shape of the type keeps the type's name. */
  fallback: string;
}

/** Collects object schemas while routes are described, then names them (see `finish`). */
export class SchemaNamer {
  readonly #variants = new Map<string, Variant[]>();

  /**
   * The JSON Schema of a value as `selection` selects it; objects become references. `atTop`: the
   * value is what a route answers with (its shape may take the type's own name).
   */
  output(type: GraphQLOutputType, selection: SelectionSetNode | undefined, where: string, atTop = false): JsonSchema {
    const nonNull = isNonNullType(type);
    const base = nonNull ? type.ofType : type;
    let schema: JsonSchema;
    if (isListType(base)) schema = { type: 'array', items: this.output(base.ofType, selection, where, atTop) };
    else {
      const named = getNamedType(base);
      if (isScalarType(named)) schema = SCALARS[named.name] ?? {};
      else if (isEnumType(named)) schema = { type: 'string', enum: named.getValues().map((v) => v.name) };
      else if (isObjectType(named) && selection) schema = this.object(named, selection, { where, atTop });
      else schema = {};
    }
    return nonNull ? schema : { anyOf: [schema, { type: 'null' }] };
  }

  /**
   * A reference to the object schema of `selection` on `parent`. `where` names the place for a shape
   * that does not get the type's own name; a root operation type is always named after the route.
   */
  object(parent: GraphQLObjectType, selection: SelectionSetNode, at: { where: string; atTop: boolean }): JsonSchema {
    const typeName = REST_NAMES[parent.name] ?? parent.name;
    const isRoot = parent.name === 'Query' || parent.name === 'Mutation';
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const sel of selection.selections) {
      if (sel.kind !== Kind.FIELD || sel.name.value === '__typename') continue;
      const field = parent.getFields()[sel.name.value];
      if (!field) continue; // cannot happen: the document was validated against this schema
      const key = sel.alias?.value ?? sel.name.value;
      properties[key] = this.output(field.type, sel.selectionSet, isRoot ? at.where : typeName, isRoot);
      // A field under @include/@skip is there only when the request asks for it (`facets=true`).
      if (!sel.directives?.some((d) => d.name.value === 'include' || d.name.value === 'skip')) required.push(key);
    }
    const schema = { type: 'object', properties, required, additionalProperties: false };
    const key = isRoot ? at.where : typeName;
    const variants = this.#variants.get(key) ?? [];
    this.#variants.set(key, variants);
    let index = variants.findIndex((v) => JSON.stringify(v.schema) === JSON.stringify(schema));
    if (index < 0) index = variants.push({ schema, atTop: false, fallback: `${at.where}${typeName}` }) - 1;
    if (at.atTop) variants[index]!.atTop = true;
    return { $ref: `${PLACEHOLDER}${key}\u0000${index}` };
  }

  /** Names every collected schema and returns `{ schemas, resolve }`: `resolve` rewrites references in a value. */
  finish(): { schemas: Record<string, JsonSchema>; resolve: <T>(value: T) => T } {
    const names = new Map<string, string>();
    const schemas: Record<string, JsonSchema> = {};
    for (const [key, variants] of this.#variants) {
      const own = Math.max(
        variants.findIndex((v) => v.atTop),
        0,
      );
      variants.forEach((variant, i) => {
        let name = i === own ? key : variant.fallback;
        for (let n = 2; schemas[name]; n++) name = `${variant.fallback}${n}`;
        names.set(`${key}\u0000${i}`, name);
        schemas[name] = variant.schema;
      });
    }
    const resolve = <T>(value: T): T =>
      JSON.parse(
        JSON.stringify(value, (_k, v) =>
          typeof v === 'string' && v.startsWith(PLACEHOLDER)
            ? `#/components/schemas/${names.get(v.slice(PLACEHOLDER.length))}`
            : v,
        ),
      ) as T;
    for (const name of Object.keys(schemas)) schemas[name] = resolve(schemas[name]!);
    return { schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))), resolve };
  }
}
