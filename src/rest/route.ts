/**
 * REST adapters as data. Each route names the GraphQL operation it runs (with snake_case aliases, so
 * the result already has the contract's REST shape). Operations are parsed and validated once at
 * start-up (here) and executed through Yoga's enveloped pipeline (run.ts) — the same context, plugins,
 * masking and logging as POST /graphql — so REST and GraphQL share every resolver, rule and answer.
 * A public read may instead be rendered (`render`): the same service read, its answer written by
 * PostgreSQL in the shape of the same selection.
 */
import {
  type DocumentNode,
  type FieldNode,
  type GraphQLField,
  type GraphQLInputType,
  Kind,
  type OperationDefinitionNode,
  parse,
  typeFromAST,
  valueFromASTUntyped,
} from 'graphql';
import type { ErrorCode, Realm } from '../errors/app-error.ts';
import { executeCompiled } from '../graphql/compiled-documents.ts';
import { realmOf, rolesOf } from '../graphql/field-guards.ts';
import type { Yoga } from '../graphql/yoga.ts';
import type { RequestContext } from '../request-context.ts';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** What a route sees of the request. */
export interface RestRequest {
  params: Record<string, string>;
  header(name: string): string | undefined;
  /** Every value of a query parameter, in order (`spec=a:1&spec=b:2`); none: an empty list. */
  queryAll(name: string): string[];
  /** The body as read (JSON), or a file route's file. */
  body?: unknown;
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
  /**
   * The body is a file, not JSON (an import): sent as one of `types`, streamed to the operation as
   * the `File` variable `variable` (never parsed, never held whole), up to `maxBytes` of the config.
   */
  fileBody?: { types: string[]; variable: string };
  /** Extra variables from the request (path parameters, headers); may throw an AppError. */
  variables?: (req: RestRequest) => Record<string, unknown>;
  /** The root field (by its alias, if it has one) whose value is the response body (null → 404 NOT_FOUND). */
  result: string;
  /** The body is the operation's whole `data` (`{ "categories": [...] }`) rather than the field's value. */
  bodyIsData?: true;
  /**
   * A public read (contract §7.6): a strong ETag and 304, `Cache-Control` from the answer cache, its
   * answers kept by that cache. Every other route answers `Cache-Control: no-store` — it may carry a
   * token or personal data (§7.5) — unless it sets its own in `headers`.
   */
  publicRead?: true;
  /**
   * A public read whose answer PostgreSQL can write itself (catalog/catalog-json.ts): given the root
   * field's selection once at start-up, it returns the reader of a request's answer — the root field's
   * value as JSON text (the runner puts it in `data` for `bodyIsData`), null when there is none (404
   * NOT_FOUND), or undefined where the operation must run instead.
   */
  render?: (selection: FieldNode) => Renderer;
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
  /** The path parameters (documentation), when they are not positive integer ids. */
  pathParameter?: { description: string; schema: object };
  /** Request headers the route reads (documentation), e.g. `Idempotency-Key`. */
  requestHeaders?: HeaderDoc[];
  /**
   * Query parameters read by `variables` rather than straight from the input (documentation): each
   * stands for the input field it `replaces` (REST's repeatable `spec` for GraphQL's `specs`), which
   * is then not listed under its own name.
   */
  queryParameters?: Array<QueryParameterDoc>;
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
  /**
   * The example names something that cannot exist before the reader makes it (a session id): as it
   * stands it answers this code, and /docs says where to take a real value from (`description`).
   */
  answers?: ErrorCode;
}

/** An OpenAPI header parameter. */
export interface QueryParameterDoc {
  name: string;
  description: string;
  schema: object;
  style?: 'form';
  explode?: boolean;
  /** The input field (REST name) this parameter is read into. */
  replaces?: string;
}

export interface HeaderDoc {
  name: string;
  description: string;
  schema: object;
  /** The request is refused without it (default: optional). */
  required?: boolean;
  /**
   * The argument (REST name) the header is read into, e.g. `idempotency_key`: the body does not list
   * it, and its validation errors name the header (validation/field-errors.ts).
   */
  replaces?: string;
  /** What "Try it out" sends (OpenAPI `example`). */
  example?: string;
}

/** A rendered read's answer for a request (validated arguments and variables): see RestRoute.render. */
export type Renderer = (
  ctx: RequestContext,
  args: unknown,
  variables: Record<string, unknown>,
) => Promise<string | null | undefined>;

export interface CompiledRoute extends RestRoute {
  compiled: DocumentNode;
  /** RestRoute.render's reader, made for this route's selection. */
  renderer?: Renderer;
  /** The document's operation (`operationName` is its name). */
  operation: OperationDefinitionNode;
  operationName: string;
  /** The root field the operation runs, and its node (arguments → variables). */
  field: GraphQLField<unknown, unknown>;
  fieldNode: FieldNode;
  /** The `WWW-Authenticate` realm of the field's scope, if it has one (checked first: run.ts). */
  realm?: Realm;
  /** Who may call it, for the docs ("Roles: owner, catalog_manager (…)."), if it is an admin route. */
  roles?: string;
  /** The GraphQL type of each variable, for reading REST names and query-string values. */
  variableTypes: Map<string, GraphQLInputType>;
  /**
   * The variables that are no argument of the root field — they shape the selection (`$facets` in
   * `facets @include(if: $facets)`) — with their declared defaults: part of a public read's answer key.
   */
  selectionVariables: Array<{ name: string; defaultValue: unknown }>;
}

/** Parses and validates every route's operation once (through the enveloped pipeline); a broken one stops start-up. */
export function compileRoutes(yoga: Yoga, routes: RestRoute[]): CompiledRoute[] {
  const { schema, validate } = yoga.getEnveloped({} as never);
  return routes.map((route) => {
    const where = `REST route ${route.method} ${route.path}`;
    const compiled = parse(route.document);
    const errors = validate(schema, compiled);
    if (errors.length) throw new Error(`${where}: ${errors.map((e: Error) => e.message).join('; ')}`);
    executeCompiled(compiled);
    const op = compiled.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
    const fieldNode = op?.selectionSet.selections.find(
      (s): s is FieldNode => s.kind === Kind.FIELD && (s.alias?.value ?? s.name.value) === route.result,
    );
    const root = op?.operation === 'mutation' ? schema.getMutationType() : schema.getQueryType();
    const field = fieldNode && root?.getFields()[fieldNode.name.value];
    if (!op?.name || !fieldNode || !field)
      throw new Error(`${where}: a named operation selecting \`${route.result}\` is needed`);
    const variableTypes = new Map<string, GraphQLInputType>();
    for (const def of op.variableDefinitions ?? []) {
      variableTypes.set(def.variable.name.value, typeFromAST(schema, def.type as never) as GraphQLInputType);
    }
    const argumentVariables = new Set(
      (fieldNode.arguments ?? []).flatMap((a) => (a.value.kind === Kind.VARIABLE ? [a.value.name.value] : [])),
    );
    const selectionVariables = (op.variableDefinitions ?? [])
      .filter((def) => !argumentVariables.has(def.variable.name.value))
      .map((def) => ({
        name: def.variable.name.value,
        defaultValue: def.defaultValue ? valueFromASTUntyped(def.defaultValue) : undefined,
      }));
    if (route.input?.from === 'body' && route.input.variable && !variableTypes.has(route.input.variable)) {
      throw new Error(`${where}: no variable $${route.input.variable}`);
    }
    return {
      ...route,
      compiled,
      operation: op,
      operationName: op.name.value,
      field,
      fieldNode,
      realm: realmOf(field),
      roles: rolesOf(field),
      variableTypes,
      selectionVariables,
      renderer: route.render?.(fieldNode),
    };
  });
}
