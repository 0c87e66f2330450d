/**
 * REST adapters as data. Each route names the GraphQL operation it runs (with snake_case aliases, so
 * the result already has the contract's REST shape). Operations are parsed and validated once at
 * start-up and executed through Yoga's enveloped pipeline — the same context, plugins, masking and
 * logging as POST /graphql — so REST and GraphQL share every resolver, rule and answer.
 */
import type { Request, Response } from 'express';
import {
  type DocumentNode,
  type FieldNode,
  type GraphQLField,
  type GraphQLInputType,
  getNamedType,
  isInputObjectType,
  isListType,
  isNonNullType,
  Kind,
  type OperationDefinitionNode,
  parse,
  typeFromAST,
  valueFromASTUntyped,
} from 'graphql';
import type { YogaServerInstance } from 'graphql-yoga';
import { REALM_OF, type Scope } from '../auth/scopes.ts';
import type { CatalogCache } from '../catalog/catalog-cache.ts';
import {
  AppError,
  type ErrorCode,
  FIELD_ERRORS_DETAIL,
  notFound,
  type Realm,
  validationFailed,
} from '../errors/app-error.ts';
import { toAppError } from '../errors/to-app-error.ts';
import { requireFieldScopes, scopesOf, validateFieldArgs } from '../graphql/field-guards.ts';
import type { RequestContext } from '../request-context.ts';
import { restFieldErrors, snakeCase } from '../validation/field-errors.ts';
import { noteOperation } from './access-log.ts';
import { catalogAnswer, sendCatalogAnswer } from './catalog-answer.ts';

export type HttpMethod = 'GET' | 'POST' | 'PATCH';

/** What a route sees of the request. */
export interface RestRequest {
  params: Record<string, string>;
  header(name: string): string | undefined;
}

export interface RestRoute {
  method: HttpMethod;
  /** Express path syntax (`/api/v1/items/:id`). */
  path: string;
  summary: string;
  tag: string;
  /** The GraphQL operation to run; its root field's declared scope is the route's (REST checks it first). */
  document: string;
  /**
   * Where the operation's variables come from, under their snake_case names:
   * - `query`: query parameters (`category_id` → `$categoryId`);
   * - `body`: the JSON body — as the input-object `variable` when given, else field by field.
   */
  input?: { from: 'query' } | { from: 'body'; variable?: string };
  /** Extra variables from the request (path parameters, headers); may throw an AppError. */
  variables?: (req: RestRequest) => Record<string, unknown>;
  /** The root field whose value is the response body (null → 404 NOT_FOUND). */
  result: string;
  /** The body is the operation's whole `data` (`{ "categories": [...] }`) rather than the field's value. */
  bodyIsData?: true;
  /** A public catalogue answer: ETag and 304, Cache-Control, compression, the catalogue cache (§7.6). */
  catalog?: true;
  /** Success status (default 200; 204 answers without a body). */
  status?: number;
  /** Response headers computed from the body (e.g. `Location`). */
  headers?: (body: { id?: number }, req: RestRequest) => Record<string, string>;
  /** Error codes the route can answer besides the ones implied by its input and scope (documentation). */
  errors?: ErrorCode[];
  /**
   * The request shown in /docs (OpenAPI examples): it must succeed as it stands on a development
   * server with the demo catalogue — test/http/openapi-examples.test.ts sends it.
   */
  example?: RestExample;
  /** Optional request headers the route reads (documentation), e.g. `Idempotency-Key`. */
  requestHeaders?: HeaderDoc[];
  /**
   * Server settings the route needs to succeed (documentation): without them it answers its
   * `*_NOT_CONFIGURED` problem, and /docs says so on the route and its example.
   */
  needsConfiguration?: string[];
  /** Response headers of the success answer (documentation), e.g. `Location`. */
  successHeaders?: Record<string, { description: string; schema: object }>;
}

/** A documented request: body, query and path values under their REST names. */
export interface RestExample {
  body?: unknown;
  query?: Record<string, string | number | boolean>;
  params?: Record<string, string | number>;
  /** What the success answer is, in words (default "Success"). */
  description?: string;
}

/** An OpenAPI header parameter. */
export interface HeaderDoc {
  name: string;
  description: string;
  schema: object;
  /** What "Try it out" sends (OpenAPI `example`). */
  example?: string;
}

export interface CompiledRoute extends RestRoute {
  compiled: DocumentNode;
  operationName: string;
  /** The root field the operation runs, and its node (arguments → variables). */
  field: GraphQLField<unknown, unknown>;
  fieldNode: FieldNode;
  /** The field's declared scope(s), checked before anything else, and the `WWW-Authenticate` realm. */
  scopes: Scope[];
  realm?: Realm;
  /** The GraphQL type of each variable, for reading REST names and query-string values. */
  variableTypes: Map<string, GraphQLInputType>;
}

type Yoga = YogaServerInstance<{ req: Request; res: Response }, RequestContext>;

/** Parses and validates every route's operation once (through the enveloped pipeline); a broken one stops start-up. */
export function compileRoutes(yoga: Yoga, routes: RestRoute[]): CompiledRoute[] {
  const { schema, validate } = yoga.getEnveloped({} as never);
  return routes.map((route) => {
    const where = `REST route ${route.method} ${route.path}`;
    const compiled = parse(route.document);
    const errors = validate(schema, compiled);
    if (errors.length) throw new Error(`${where}: ${errors.map((e: Error) => e.message).join('; ')}`);
    const op = compiled.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
    const fieldNode = op?.selectionSet.selections.find(
      (s): s is FieldNode => s.kind === Kind.FIELD && s.name.value === route.result,
    );
    const root = op?.operation === 'mutation' ? schema.getMutationType() : schema.getQueryType();
    const field = fieldNode && root?.getFields()[fieldNode.name.value];
    if (!op?.name || !fieldNode || !field)
      throw new Error(`${where}: a named operation selecting \`${route.result}\` is needed`);
    const variableTypes = new Map<string, GraphQLInputType>();
    for (const def of op.variableDefinitions ?? []) {
      variableTypes.set(def.variable.name.value, typeFromAST(schema, def.type as never) as GraphQLInputType);
    }
    if (route.input?.from === 'body' && route.input.variable && !variableTypes.has(route.input.variable)) {
      throw new Error(`${where}: no variable $${route.input.variable}`);
    }
    const scopes = scopesOf(field);
    const realm = scopes[0] && REALM_OF[scopes[0]];
    return { ...route, compiled, operationName: op.name.value, field, fieldNode, scopes, realm, variableTypes };
  });
}

/**
 * Renames a REST body's snake_case keys to the camelCase fields of a GraphQL input type, walking the
 * type so that free-form JSON values (SKU `specs`) keep their keys. Unknown keys are dropped
 * (contract §1: ignored); values of the wrong shape pass through for the validation to name. An
 * input type with a `restShorthand` extension may arrive as that one field's value (an image as its URL).
 */
export function restToGraphQLInput(type: GraphQLInputType, value: unknown): unknown {
  if (isNonNullType(type)) return restToGraphQLInput(type.ofType, value);
  if (isListType(type)) return Array.isArray(value) ? value.map((v) => restToGraphQLInput(type.ofType, v)) : value;
  const named = getNamedType(type);
  if (!isInputObjectType(named)) return value;
  const shorthand = (named.extensions as { restShorthand?: string }).restShorthand;
  if (shorthand && typeof value === 'string') return { [shorthand]: value };
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const field of Object.values(named.getFields())) {
    const restName = snakeCase(field.name);
    if (Object.hasOwn(value, restName)) out[field.name] = restToGraphQLInput(field.type, value[restName]);
  }
  return out;
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

// A query string carries text; an Int or Boolean variable is read from its usual spelling, and
// anything else is left as text for the validation to name (`page=abc`, `page=`, a repeated `page`).
const INTEGER = /^[+-]?\d{1,16}$/;
function fromQueryString(type: GraphQLInputType, value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const name = getNamedType(type).name;
  if (name === 'Int' && INTEGER.test(value)) return Number(value);
  if (name === 'Boolean' && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

/** The operation's variables from the request, under their GraphQL names (unchecked). */
function variablesOf(route: CompiledRoute, req: Request): Record<string, unknown> {
  const extra = route.variables?.({ params: req.params as Record<string, string>, header: (n) => req.get(n) }) ?? {};
  const input = route.input;
  if (!input) return extra;
  if (input.from === 'body' && input.variable) {
    if (!isRecord(req.body)) throw validationFailed([{ field: '(body)', message: 'must be a JSON object' }]);
    return { [input.variable]: restToGraphQLInput(route.variableTypes.get(input.variable)!, req.body), ...extra };
  }
  const source: Record<string, unknown> =
    input.from === 'query' ? (req.query as Record<string, unknown>) : isRecord(req.body) ? req.body : {};
  const vars: Record<string, unknown> = {};
  for (const [name, type] of route.variableTypes) {
    if (name in extra) continue;
    const restName = snakeCase(name);
    if (!Object.hasOwn(source, restName)) continue;
    vars[name] = input.from === 'query' ? fromQueryString(type, source[restName]) : source[restName];
  }
  return { ...vars, ...extra };
}

/**
 * Runs the root field's own argument validation (declared on its GraphQL inputs) on the request's
 * values before GraphQL coerces them: coercion would stop at the first missing or mistyped field
 * and word it its own way, where the contract lists every problem with the field's REST name.
 */
function validateArguments(
  route: CompiledRoute,
  ctx: RequestContext,
  variables: Record<string, unknown>,
): Promise<unknown> {
  const args: Record<string, unknown> = {};
  for (const arg of route.fieldNode.arguments ?? []) {
    args[arg.name.value] =
      arg.value.kind === Kind.VARIABLE ? variables[arg.value.name.value] : valueFromASTUntyped(arg.value);
  }
  return validateFieldArgs(route.field, args, ctx);
}

/** Runs a compiled route for one request; any error is thrown as an AppError for the problem writer. */
export async function runRoute(
  route: CompiledRoute,
  yoga: Yoga,
  req: Request,
  res: Response,
  cache: CatalogCache,
): Promise<void> {
  // A catalogue answer the cache will keep is read from the primary (request-context.ts says why).
  res.locals.fillsCache = route.catalog === true && cache.enabled;
  // Named in the log line also when the request is refused before the operation runs (validation).
  noteOperation(res, route.operationName);
  const { contextFactory, execute, schema } = yoga.getEnveloped({ req, res });
  const ctx = (await contextFactory()) as unknown as RequestContext;
  try {
    // Who is asking comes before what they sent, as in GraphQL: a request without a valid token
    // learns nothing about the body's rules.
    await requireFieldScopes(route.field, ctx);
    const variableValues = variablesOf(route, req);
    const args = await validateArguments(route, ctx, variableValues);
    // Checked and validated: the execution takes both as done (graphql/field-guards.ts).
    ctx.guarded = { field: route.fieldNode.name.value, args };
    // Keyed by the route and its parameters as validated (defaults filled in, text trimmed).
    const key = route.catalog && `${route.operationName}:${JSON.stringify(args)}`;
    const cached = key ? cache.answer(key) : undefined;
    if (cached) return await sendCatalogAnswer(req, res, cached, ctx.services.config.catalog.maxAgeSeconds);
    const generation = cache.generation;
    const result = await execute({
      schema,
      document: route.compiled,
      variableValues,
      contextValue: ctx,
      operationName: route.operationName,
    });
    // Errors arrive masked and logged by the pipeline (graphql/yoga.ts), with their contract code.
    const [first] = result.errors ?? [];
    if (first) throw toAppError(first).error;
    const data = result.data as Record<string, unknown> | null | undefined;
    const value = data?.[route.result];
    if (value === null || value === undefined) throw notFound();
    const body = (route.bodyIsData ? data : value) as { id?: number };
    if (key) {
      const answer = catalogAnswer(body);
      cache.storeAnswer(key, answer, generation);
      return await sendCatalogAnswer(req, res, answer, ctx.services.config.catalog.maxAgeSeconds);
    }
    res.set(route.headers?.(body, { params: req.params as Record<string, string>, header: (n) => req.get(n) }) ?? {});
    // 204 No Content: the operation's value (`true`) only says it succeeded.
    if (route.status === 204) return void res.status(204).end();
    res.status(route.status ?? 200).json(body);
  } catch (err) {
    throw restNamed(err);
  }
}

/** A validation error re-labelled with REST (snake_case) field paths and wording; anything else as it is. */
function restNamed(err: unknown): unknown {
  if (!(err instanceof AppError) || !err.fieldErrors) return err;
  const detail = err.message === FIELD_ERRORS_DETAIL.graphql ? FIELD_ERRORS_DETAIL.rest : err.message;
  return new AppError(err.code, detail, {
    errors: restFieldErrors(err.fieldErrors),
    realm: err.realm,
    retryAfter: err.retryAfter,
  });
}
