/**
 * The request side of the OpenAPI document: path, query and header parameters and the JSON body of
 * a REST route, from the zod schema its GraphQL field validates with (REST names: snake_case).
 */
import { type GraphQLInputType, getNamedType, isInputObjectType } from 'graphql';
import { z } from 'zod';
import { argsSchemaOf, inputSchemaOf } from '../graphql/field-guards.ts';
import { BODY_LIMIT_BYTES } from '../http/json-body.ts';
import type { CompiledRoute } from '../rest/route.ts';
import { snakeCase } from '../validation/field-errors.ts';

type JsonSchema = Record<string, unknown>;

/**
 * Where an input type may be sent as one field's value (`restShorthand`: an image as its URL string),
 * the body schema says so; zod's schema only knows the object (the string is preprocessed into it).
 */
function withShorthands(json: JsonSchema, type: GraphQLInputType | undefined): JsonSchema {
  if (!type) return json;
  const named = getNamedType(type);
  if (!isInputObjectType(named)) return json;
  if (json.type === 'array' && json.items) {
    return { ...json, items: withShorthands(json.items as JsonSchema, named) };
  }
  const properties = json.properties as Record<string, JsonSchema> | undefined;
  const shorthand = (named.extensions as { restShorthand?: string }).restShorthand;
  const out: JsonSchema = { ...json };
  if (properties) {
    const fields = named.getFields();
    out.properties = Object.fromEntries(
      Object.entries(properties).map(([name, s]) => {
        const field = Object.values(fields).find((f) => snakeCase(f.name) === name);
        return [name, withShorthands(s, field?.type)];
      }),
    );
  }
  if (shorthand && properties?.[snakeCase(shorthand)]) {
    const alone = { ...properties[snakeCase(shorthand)], description: `Shorthand for {"${snakeCase(shorthand)}": …}.` };
    return { anyOf: [alone, out] };
  }
  return out;
}

/** The JSON Schema of a zod input with property names in REST (snake_case) form. */
function restInputSchema(schema: z.ZodType): JsonSchema {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  const rename = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rename);
    if (!node || typeof node !== 'object') return node;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) {
      if (k === 'properties' && v && typeof v === 'object') {
        out[k] = Object.fromEntries(Object.entries(v).map(([p, s]) => [snakeCase(p), rename(s)]));
      } else if (k === 'required' && Array.isArray(v)) {
        out[k] = v.map((p) => snakeCase(String(p)));
      } else if (k !== '$schema') {
        out[k] = rename(v);
      }
    }
    return out;
  };
  return rename(json) as JsonSchema;
}

/**
 * The zod schema a route's input is validated with, where the GraphQL schema keeps it: on the input
 * type the body becomes, or (for `t.validate` on all of a field's arguments) on the first argument.
 */
export function validationSchemaOf(route: CompiledRoute): z.ZodType | undefined {
  if (!route.input) return undefined;
  if (route.input.from === 'body' && route.input.variable) {
    return inputSchemaOf(route.variableTypes.get(route.input.variable)!);
  }
  return argsSchemaOf(route.field);
}

/**
 * A query parameter's schema. A query string carries text, and GraphQL's optional arguments arrive
 * from zod as `T | null`: the null is dropped, and a value that may be a number or a decimal string
 * (money) is documented as the string.
 */
function queryParameterSchema(json: JsonSchema): JsonSchema {
  const { anyOf, type, ...rest } = json as JsonSchema & { anyOf?: JsonSchema[]; type?: unknown };
  if (Array.isArray(type)) {
    const types = type.filter((t) => t !== 'null');
    return { ...rest, type: types.length === 1 ? types[0] : types };
  }
  if (!anyOf) return json;
  const options = anyOf.filter((s) => s.type !== 'null');
  const chosen = options.length === 1 ? options[0]! : options.find((s) => s.type === 'string');
  // The chosen member may itself be a union (money inside `T | null`).
  return chosen ? queryParameterSchema({ ...rest, ...chosen }) : json;
}

/**
 * A GraphQL description worded for a REST page: the names it quotes (`maxPrice`) in their REST
 * spelling (`max_price`), so a REST reader never meets a parameter name the route does not take.
 */
export const restWording = (text: string) =>
  text.replace(/`([a-z][a-z0-9]*[A-Z][A-Za-z0-9]*)`/g, (_m, name: string) => `\`${snakeCase(name)}\``);

/** What a query parameter is for: its GraphQL argument's description, else its bounds in words. */
function describeParameter(route: CompiledRoute, name: string, schema: JsonSchema): string {
  const described = route.field.args.find((a) => snakeCase(a.name) === name)?.description;
  if (described) return restWording(described);
  if (schema.type === 'integer') return `An integer from ${schema.minimum ?? '…'} to ${schema.maximum ?? '…'}.`;
  if (schema.type === 'string' && schema.maxLength !== undefined) return `At most ${schema.maxLength} characters.`;
  return `Optional ${String(schema.type ?? 'value')}.`;
}

/** The value a parameter takes when it is left out (what the validation fills in), if any. */
function defaultOf(input: z.ZodType, name: string): unknown {
  // An object schema, or one whose output is transformed as a whole (`.transform` wraps it in a pipe).
  type Shaped = { shape?: Record<string, z.ZodType>; in?: Shaped };
  const shaped = input as unknown as Shaped;
  const shape = shaped.shape ?? shaped.in?.shape ?? {};
  const field = Object.entries(shape).find(([k]) => snakeCase(k) === name)?.[1];
  const parsed = field?.safeParse(undefined);
  return parsed?.success ? parsed.data : undefined;
}

export function parametersOf(route: CompiledRoute, input: z.ZodType | undefined): JsonSchema[] {
  const example = route.example ?? {};
  const parameters: JsonSchema[] = [];
  for (const [, name] of route.path.matchAll(/:(\w+)/g)) {
    parameters.push({
      name,
      in: 'path',
      required: true,
      description: route.pathParameter?.description ?? 'A positive integer id (anything else is 404 NOT_FOUND).',
      schema: route.pathParameter?.schema ?? { type: 'integer', minimum: 1 },
      ...(example.params?.[name!] !== undefined ? { example: example.params[name!] } : {}),
    });
  }
  if (route.input?.from === 'query' && input) {
    const json = restInputSchema(input);
    const required = new Set((json.required as string[] | undefined) ?? []);
    const replaced = new Set((route.queryParameters ?? []).map((q) => q.replaces));
    // A file route's file is its body, not a parameter.
    if (route.fileBody) replaced.add(snakeCase(route.fileBody.variable));
    for (const [name, raw] of Object.entries((json.properties ?? {}) as Record<string, JsonSchema>)) {
      if (replaced.has(name)) continue;
      const fallback = defaultOf(input, name);
      const schema = { ...queryParameterSchema(raw), ...(fallback !== undefined ? { default: fallback } : {}) };
      parameters.push({
        name,
        in: 'query',
        required: required.has(name),
        description: describeParameter(route, name, schema),
        schema,
        ...(example.query?.[name] !== undefined ? { example: example.query[name] } : {}),
      });
    }
  }
  for (const { replaces: _, ...doc } of route.queryParameters ?? [])
    parameters.push({ in: 'query', required: false, ...doc });
  for (const { replaces: _, ...header } of route.requestHeaders ?? [])
    parameters.push({ in: 'header', required: false, ...header });
  return parameters;
}

/** The GraphQL input type the whole body becomes, if the route has one. */
function bodyType(route: CompiledRoute): GraphQLInputType | undefined {
  return route.input?.from === 'body' && route.input.variable
    ? route.variableTypes.get(route.input.variable)
    : undefined;
}

/** A body schema without the arguments the route reads from request headers (`Idempotency-Key`). */
function withoutHeaders(json: JsonSchema, route: CompiledRoute): JsonSchema {
  const fromHeaders = new Set((route.requestHeaders ?? []).flatMap((h) => (h.replaces ? [h.replaces] : [])));
  if (fromHeaders.size === 0) return json;
  const properties = Object.entries((json.properties ?? {}) as Record<string, JsonSchema>);
  return {
    ...json,
    properties: Object.fromEntries(properties.filter(([name]) => !fromHeaders.has(name))),
    required: ((json.required as string[] | undefined) ?? []).filter((name) => !fromHeaders.has(name)),
  };
}

/** The request body of a route that reads its input from JSON, with the row's example. */
export function requestBodyOf(route: CompiledRoute, input: z.ZodType | undefined): JsonSchema | undefined {
  if (route.fileBody) {
    return {
      required: true,
      description: 'The file itself (not JSON, not multipart), streamed; at most IMPORT_MAX_BYTES (default 200 MiB).',
      // The example (a file's text) under the first type, which is what "Try it out" sends.
      content: Object.fromEntries(
        route.fileBody.types.map((type, i) => [
          type,
          {
            schema: { type: 'string', format: 'binary' },
            ...(i === 0 && route.example?.body !== undefined ? { example: route.example.body } : {}),
          },
        ]),
      ),
    };
  }
  if (route.input?.from !== 'body' || !input) return undefined;
  return {
    required: true,
    description: `JSON, at most ${BODY_LIMIT_BYTES} bytes. Unknown fields are ignored.`,
    content: {
      'application/json': {
        schema: withShorthands(withoutHeaders(restInputSchema(input), route), bodyType(route)),
        ...(route.example?.body !== undefined ? { example: route.example.body } : {}),
      },
    },
  };
}
