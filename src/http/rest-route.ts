/**
 * REST adapters as data. Each route names the GraphQL operation it runs (with snake_case aliases,
 * so the result already has the contract's REST shape); the operation is parsed and validated once
 * at start-up and executed directly with graphql-js, so REST and GraphQL share every resolver,
 * validation and auth rule without paying for an HTTP round trip through Yoga.
 */
import type { Request, Response } from 'express';
import {
  execute,
  getNamedType,
  isInputObjectType,
  isListType,
  isNonNullType,
  parse,
  typeFromAST,
  validate,
  type DocumentNode,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import type { z } from 'zod';
import { AppError, notFound, type ErrorCode, type Realm } from '../errors/app-error.ts';
import { toAppError } from '../errors/to-app-error.ts';
import type { Context } from '../graphql/context.ts';
import { camelCase, fieldPath, parseInput, snakeCase } from '../validation/parse-input.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** What a route sees of the request. */
export interface RestRequest {
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
  header(name: string): string | undefined;
}

export interface RestReply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface RestRoute {
  method: HttpMethod;
  /** Express path syntax (`/api/v1/items/:id`). */
  path: string;
  summary: string;
  tag: string;
  /** The token system the route requires, if any (documentation and `WWW-Authenticate`). */
  realm?: Realm;
  /** The GraphQL operation to run. */
  document: string;
  /**
   * Where the operation's input comes from and the zod schema its resolver validates it with. The
   * adapter runs that same schema first, so REST reports every problem at once with snake_case paths:
   * - `query`: query parameters (`category_id` → `categoryId`), spread into the variables;
   * - `body`: the JSON body, renamed to the GraphQL input type of `variable` and passed as that variable;
   *   without `variable`, its fields become the operation's variables (`login(username, password)`).
   */
  input?: { from: 'query'; schema: z.ZodType } | { from: 'body'; schema: z.ZodType; variable?: string };
  /** Extra variables from the request (path parameters); may throw an AppError. */
  variables?: (req: RestRequest) => Record<string, unknown>;
  /** The root field whose value is the response body (null → 404 NOT_FOUND); default: all the data. */
  result?: string;
  /** Success status (default 200). */
  status?: number;
  /** Response headers computed from the body (e.g. `Location`). */
  headers?: (body: any, req: RestRequest) => Record<string, string>;
  /** Error codes the route can answer besides the ones implied by its input and realm (documentation). */
  errors?: ErrorCode[];
  /** Escape hatch: shape the reply by hand (the OpenAPI document then assumes `result`/`status`). */
  respond?: (data: Record<string, unknown>, req: RestRequest) => RestReply;
}

export interface CompiledRoute extends RestRoute {
  compiled: DocumentNode;
  /** The GraphQL type of the body variable, for renaming snake_case keys. */
  bodyType?: GraphQLInputType;
}

/** Parses and validates every route's operation once; a broken one stops start-up. */
export function compileRoutes(schema: GraphQLSchema, routes: RestRoute[]): CompiledRoute[] {
  return routes.map((route) => {
    const compiled = parse(route.document);
    const errors = validate(schema, compiled);
    if (errors.length) {
      throw new Error(`REST route ${route.method} ${route.path}: ${errors.map((e) => e.message).join('; ')}`);
    }
    let bodyType: GraphQLInputType | undefined;
    if (route.input?.from === 'body' && route.input.variable) {
      const { variable } = route.input;
      const op = compiled.definitions.find((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition');
      const def = op?.variableDefinitions?.find((v) => v.variable.name.value === variable);
      bodyType = def && (typeFromAST(schema, def.type as never) as GraphQLInputType | undefined);
      if (!bodyType) throw new Error(`REST route ${route.method} ${route.path}: no variable $${variable}`);
    }
    return { ...route, compiled, bodyType };
  });
}

/**
 * Renames a REST body's snake_case keys to the camelCase fields of a GraphQL input type, walking the
 * type so that free-form JSON values (e.g. SKU `specs`) keep their keys. Unknown keys are dropped
 * (contract §1: ignored); values of the wrong shape pass through for the validator to name.
 */
export function restToGraphQLInput(type: GraphQLInputType, value: unknown): unknown {
  if (isNonNullType(type)) return restToGraphQLInput(type.ofType, value);
  if (isListType(type)) return Array.isArray(value) ? value.map((v) => restToGraphQLInput(type.ofType, v)) : value;
  const named = getNamedType(type);
  if (!isInputObjectType(named) || value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const field of Object.values(named.getFields())) {
    const restName = snakeCase(field.name);
    if (Object.hasOwn(source, restName)) out[field.name] = restToGraphQLInput(field.type, source[restName]);
  }
  return out;
}

/** The variables of a route's operation: validated input (REST naming in errors) plus extras. */
function variablesOf(route: CompiledRoute, req: RestRequest): Record<string, unknown> {
  const extra = route.variables?.(req) ?? {};
  const input = route.input;
  if (!input) return extra;
  if (input.from === 'query' || !input.variable) {
    const source = input.from === 'query' ? req.query : (req.body ?? {});
    const raw = isRecord(source) ? Object.fromEntries(Object.entries(source).map(([k, v]) => [camelCase(k), v])) : source;
    return { ...(parseInput(input.schema, raw, 'rest') as Record<string, unknown>), ...extra };
  }
  const body = restToGraphQLInput(route.bodyType!, req.body);
  return { [input.variable]: parseInput(input.schema, body, 'rest'), ...extra };
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function restRequestOf(req: Request): RestRequest {
  return {
    params: req.params as Record<string, string>,
    query: req.query as Record<string, unknown>,
    body: req.body,
    header: (name) => req.get(name),
  };
}

/** Runs a compiled route for one request; any error is thrown as an AppError for the problem writer. */
export async function runRoute(
  route: CompiledRoute,
  schema: GraphQLSchema,
  ctx: Context,
  req: Request,
  res: Response,
): Promise<void> {
  const restReq = restRequestOf(req);
  // Who is asking comes before what they sent, as in GraphQL (where the scope runs before the
  // resolver validates): a request without a valid token learns nothing about the body's rules.
  if (route.input && route.realm) await ctx.auth[route.realm]();
  const variableValues = variablesOf(route, restReq);
  const result = await execute({ schema, document: route.compiled, variableValues, contextValue: ctx });
  if (result.errors?.length) {
    const { error, unexpected } = toAppError(result.errors[0]);
    if (unexpected) ctx.log.error({ err: result.errors[0].originalError ?? result.errors[0] }, 'resolver failed');
    throw restNamed(error);
  }
  const data = (result.data ?? {}) as Record<string, unknown>;
  const reply = route.respond ? route.respond(data, restReq) : declaredReply(route, data, restReq);
  if (reply.headers) res.set(reply.headers);
  res.status(reply.status).json(reply.body);
}

function declaredReply(route: RestRoute, data: Record<string, unknown>, req: RestRequest): RestReply {
  const body = route.result ? data[route.result] : data;
  if (body === null || body === undefined) throw notFound();
  return { status: route.status ?? 200, body, headers: route.headers?.(body, req) };
}

/** A resolver's validation error re-labelled with REST (snake_case) field paths. */
function restNamed(error: AppError): AppError {
  if (!error.fieldErrors) return error;
  const errors = error.fieldErrors.map((e) => ({
    ...e,
    field: fieldPath(e.field.split(/\.|(?=\[)/).map((s) => (s.startsWith('[') ? Number(s.slice(1, -1)) : s)), 'rest'),
  }));
  return new AppError(error.code, error.message, { errors, realm: error.realm, retryAfter: error.retryAfter });
}
