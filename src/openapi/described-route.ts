/**
 * Routes outside the route table — an Express handler of their own, such as a streamed file — as the
 * document describes them. What the generator reads off a row's GraphQL operation (the answer's shape,
 * the input's zod schema) such a route says itself; roles, security and the error responses come from
 * the same helpers as the generated operations', so the two read alike in /docs.
 */
import type { ErrorCode, FieldError, Realm } from '../errors/app-error.ts';
import type { CompiledRoute, HttpMethod, QueryParameterDoc } from '../rest/route.ts';
import { parametersOf, validationSchemaOf } from './inputs.ts';
import { problemResponses } from './problems.ts';

type JsonSchema = Record<string, unknown>;

export interface DescribedRoute {
  method: HttpMethod;
  /** Express path syntax, as a row's. */
  path: string;
  summary: string;
  tag: string;
  operationId: string;
  /** The token system it needs (its security scheme and 401s), if any. */
  realm?: Realm;
  /** Who may call it, as a row's description says it ("Roles: …", auth/scopes.ts `rolesSentence`). */
  roles?: string;
  /**
   * Query parameters it takes as a row of the table takes them (the admin list's filters), documented
   * as that row documents them — less `omit`, the ones it does not take.
   */
  sharesQueryOf?: { method: HttpMethod; path: string; omit: readonly string[] };
  /** Query parameters of its own. */
  queryParameters?: QueryParameterDoc[];
  /** The success answer: its status, headers, and a schema per media type it can come as. */
  success: {
    status: number;
    description: string;
    headers?: Record<string, { description: string; schema: object }>;
    content: Record<string, { schema: object }>;
  };
  /** Error codes besides those its realm and query imply. */
  errors?: ErrorCode[];
  /** The field errors its VALIDATION_FAILED example lists: what the route answers to a real bad request. */
  validationExample?: FieldError[];
  /** What "Try it out" sends: a value per query parameter (the request must succeed on the demo catalogue). */
  example?: { query: Record<string, string | number | boolean> };
}

/** The query parameters of `route`: the shared row's (its own examples left out), then its own. */
function describedParameters(route: DescribedRoute, table: CompiledRoute[]): JsonSchema[] {
  const parameters: JsonSchema[] = [];
  const shared = route.sharesQueryOf;
  if (shared) {
    const row = table.find((r) => r.method === shared.method && r.path === shared.path);
    if (!row)
      throw new Error(`${route.method} ${route.path}: no route ${shared.method} ${shared.path} to share a query with`);
    for (const { example: _, ...parameter } of parametersOf(row, validationSchemaOf(row))) {
      if (parameter.in === 'query' && !shared.omit.includes(parameter.name as string)) parameters.push(parameter);
    }
  }
  for (const { replaces: _, ...doc } of route.queryParameters ?? [])
    parameters.push({ in: 'query', required: false, ...doc });
  const example = route.example?.query ?? {};
  return parameters.map((p) =>
    example[p.name as string] !== undefined ? { ...p, example: example[p.name as string] } : p,
  );
}

/** The OpenAPI operation of a described route; `table` is the compiled route table it may share a query with. */
export function describedOperation(route: DescribedRoute, table: CompiledRoute[]): JsonSchema {
  const parameters = describedParameters(route, table);
  const source = {
    path: route.path,
    realm: route.realm,
    errors: route.errors,
    input: parameters.length ? ({ from: 'query' } as const) : undefined,
  };
  const { status, ...success } = route.success;
  return {
    summary: route.summary,
    ...(route.roles ? { description: route.roles } : {}),
    tags: [route.tag],
    operationId: route.operationId,
    ...(route.realm ? { security: [{ [`${route.realm}Token`]: [] }] } : {}),
    ...(parameters.length ? { parameters } : {}),
    responses: {
      [String(status)]: success,
      ...problemResponses(source, undefined, route.validationExample),
    },
  };
}
