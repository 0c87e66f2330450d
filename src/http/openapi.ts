/**
 * The OpenAPI 3.1 document, generated from the REST route table: paths and methods from the rows,
 * parameters and request bodies from the zod input schemas, response bodies from the GraphQL
 * selection each row runs (its snake_case aliases are the REST field names). It cannot drift from
 * the routes because it is made of them.
 */
import {
  getNamedType,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  Kind,
  type GraphQLOutputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type GraphQLObjectType,
} from 'graphql';
import { z } from 'zod';
import { HTTP_STATUS, type ErrorCode } from '../errors/app-error.ts';
import { snakeCase } from '../validation/parse-input.ts';
import { BODY_LIMIT_BYTES } from './json-body.ts';
import type { CompiledRoute } from './rest-route.ts';

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

function nullable(schema: JsonSchema): JsonSchema {
  return { anyOf: [schema, { type: 'null' }] };
}

/** JSON Schema of a GraphQL value as selected by `selection` (aliases become property names). */
function outputSchema(type: GraphQLOutputType, selection: SelectionSetNode | undefined): JsonSchema {
  const nonNull = isNonNullType(type);
  const base = nonNull ? type.ofType : type;
  const inner = (): JsonSchema => {
    if (isListType(base)) return { type: 'array', items: outputSchema(base.ofType, selection) };
    const named = getNamedType(base);
    if (isScalarType(named)) return SCALARS[named.name] ?? {};
    if (isEnumType(named)) return { type: 'string', enum: named.getValues().map((v) => v.name) };
    if (isObjectType(named) && selection) return objectSchema(named, selection);
    return {};
  };
  return nonNull ? inner() : nullable(inner());
}

function objectSchema(parent: GraphQLObjectType, selection: SelectionSetNode): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const sel of selection.selections) {
    if (sel.kind !== Kind.FIELD || sel.name.value === '__typename') continue;
    const field = parent.getFields()[sel.name.value];
    const key = sel.alias?.value ?? sel.name.value;
    properties[key] = outputSchema(field.type, sel.selectionSet);
    required.push(key);
  }
  return { type: 'object', properties, required, additionalProperties: false };
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

const problemRef = { $ref: '#/components/schemas/Problem' };

function errorCodesOf(route: CompiledRoute): ErrorCode[] {
  const codes = new Set<ErrorCode>(route.errors ?? []);
  if (route.input) codes.add('VALIDATION_FAILED');
  if (route.input?.from === 'body') ['MALFORMED_JSON', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'].forEach((c) => codes.add(c as ErrorCode));
  if (route.realm) ['UNAUTHENTICATED', 'TOKEN_INVALID', 'TOKEN_EXPIRED', 'ACCOUNT_DISABLED'].forEach((c) => codes.add(c as ErrorCode));
  if (route.result || route.path.includes(':')) codes.add('NOT_FOUND');
  codes.add('INTERNAL');
  codes.add('SERVICE_UNAVAILABLE');
  return [...codes];
}

function operationOf(route: CompiledRoute, schema: GraphQLSchema): JsonSchema {
  const op = route.compiled.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
  const root = (op.operation === 'mutation' ? schema.getMutationType() : schema.getQueryType())!;
  let body = objectSchema(root, op.selectionSet);
  if (route.result) {
    const props = body.properties as Record<string, JsonSchema>;
    const selected = props[route.result];
    body = (selected.anyOf as JsonSchema[] | undefined)?.[0] ?? selected;
  }
  const parameters: JsonSchema[] = [];
  for (const [, name] of route.path.matchAll(/:(\w+)/g)) {
    parameters.push({ name, in: 'path', required: true, schema: { type: 'integer', minimum: 1 } });
  }
  let requestBody: JsonSchema | undefined;
  if (route.input?.from === 'query') {
    const json = restInputSchema(route.input.schema);
    const required = new Set((json.required as string[] | undefined) ?? []);
    for (const [name, s] of Object.entries((json.properties ?? {}) as Record<string, JsonSchema>)) {
      parameters.push({ name, in: 'query', required: required.has(name), schema: s });
    }
  } else if (route.input?.from === 'body') {
    requestBody = {
      required: true,
      description: `JSON, at most ${BODY_LIMIT_BYTES} bytes. Unknown fields are ignored.`,
      content: { 'application/json': { schema: restInputSchema(route.input.schema) } },
    };
  }
  const responses: Record<string, JsonSchema> = {
    [String(route.status ?? 200)]: { description: 'Success', content: { 'application/json': { schema: body } } },
  };
  for (const code of errorCodesOf(route)) {
    const status = String(HTTP_STATUS[code]);
    const entry = (responses[status] ??= { description: '', content: { 'application/problem+json': { schema: problemRef } } }) as {
      description: string;
    };
    entry.description = entry.description ? `${entry.description}, ${code}` : code;
  }
  return {
    summary: route.summary,
    tags: [route.tag],
    operationId: op.name?.value,
    ...(route.realm ? { security: [{ [`${route.realm}Token`]: [] }] } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses,
  };
}

export function buildOpenApiDocument(schema: GraphQLSchema, routes: CompiledRoute[]): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    const path = route.path.replace(/:(\w+)/g, '{$1}');
    (paths[path] ??= {})[route.method.toLowerCase()] = operationOf(route, schema);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Shop API',
      version: '1.0.0',
      description:
        'REST adapters of the shop service. Every route runs the same GraphQL resolver as POST /graphql. ' +
        'Errors are RFC 9457 problem+json with a `code` (see the Problem schema); every response carries X-Request-Id.',
    },
    paths,
    components: {
      securitySchemes: {
        customerToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Customer access token (typ customer+jwt).' },
        adminToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Admin access token (typ admin+jwt).' },
      },
      schemas: {
        Problem: {
          type: 'object',
          required: ['type', 'title', 'status', 'code', 'detail', 'request_id'],
          properties: {
            type: { type: 'string', const: 'about:blank' },
            title: { type: 'string' },
            status: { type: 'integer' },
            code: { type: 'string', enum: Object.keys(HTTP_STATUS) },
            detail: { type: 'string' },
            errors: {
              type: 'array',
              description: 'Every invalid field, for VALIDATION_FAILED.',
              items: { type: 'object', required: ['field', 'message'], properties: { field: { type: 'string' }, message: { type: 'string' } } },
            },
            request_id: { type: 'string' },
          },
        },
      },
    },
  };
}
