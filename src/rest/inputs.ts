/**
 * A REST request's values as the variables of its route's GraphQL operation: query strings read as
 * the variables' types, bodies renamed from snake_case to the input types' camelCase fields.
 */
import type { Request } from 'express';
import {
  type GraphQLInputType,
  getNamedType,
  isInputObjectType,
  isListType,
  isNonNullType,
  Kind,
  valueFromASTUntyped,
} from 'graphql';
import { AppError, type FieldError, validationFailed } from '../errors/app-error.ts';
import { validateFieldArgs } from '../graphql/field-guards.ts';
import { memoBy } from '../memo.ts';
import type { RequestContext } from '../request-context.ts';
import { snakeCase } from '../validation/field-errors.ts';
import type { CompiledRoute, RestRequest } from './route.ts';

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
    const restName = restNameOf(field.name);
    if (Object.hasOwn(value, restName)) out[field.name] = restToGraphQLInput(field.type, value[restName]);
  }
  return out;
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

// A query string carries text; an Int or Boolean variable is read from its usual spelling, and
// anything else is left as text for the validation to name (`page=abc`, `page=`, a repeated `page`).
const INTEGER = /^[+-]?\d{1,16}$/;

/**
 * A query parameter's value as a value of the scalar `typeName` (`Int`, `Boolean`; any other as it
 * is): the one reading of query strings, for the route table and the routes outside it (an export).
 */
export function fromQueryText(typeName: string, value: unknown): unknown {
  if (typeof value !== 'string') return value;
  if (typeName === 'Int' && INTEGER.test(value)) return Number(value);
  if (typeName === 'Boolean' && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

const fromQueryString = (type: GraphQLInputType, value: unknown): unknown =>
  fromQueryText(getNamedType(type).name, value);

/** What a route reads of a request: its parsed query string, body, path parameters and headers. */
export interface RestInput {
  query: Record<string, unknown>;
  body?: unknown;
  params: Record<string, string>;
  header(name: string): string | undefined;
}

/** An Express request as a route reads it. */
export const restInputOf = (req: Request): RestInput => ({
  query: req.query as Record<string, unknown>,
  body: req.body,
  params: req.params as Record<string, string>,
  header: (name) => req.get(name),
});

/** What a route's own hooks may read of a request. */
export function restRequestOf(input: RestInput): RestRequest {
  return {
    params: input.params,
    header: input.header,
    body: input.body,
    queryAll: (n) => {
      const value = input.query[n];
      const list = Array.isArray(value) ? value : value === undefined ? [] : [value];
      return list.filter((v): v is string => typeof v === 'string');
    },
  };
}

/** A GraphQL name's REST name, worked out once per name (a route reads its variables on every request). */
const restNameOf = memoBy(snakeCase);

/**
 * The operation's variables from the request, under their GraphQL names (unchecked), and the problems
 * a route's own reading of the request found (REST's `spec` strings): those are named with every other
 * problem of the request (contract §2), not alone — see validatedInput.
 */
export function variablesOf(
  route: CompiledRoute,
  req: RestInput,
): { variables: Record<string, unknown>; problems: FieldError[] } {
  let extra: Record<string, unknown> | undefined;
  let problems: FieldError[] = [];
  try {
    extra = route.variables?.(restRequestOf(req));
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== 'VALIDATION_FAILED' || !err.fieldErrors) throw err;
    problems = err.fieldErrors;
  }
  return { variables: requestVariables(route, req, extra), problems };
}

function requestVariables(route: CompiledRoute, req: RestInput, extra: Record<string, unknown> | undefined) {
  const input = route.input;
  if (!input) return extra ?? {};
  if (input.from === 'body' && input.variable) {
    if (!isRecord(req.body)) throw validationFailed([{ field: '(body)', message: 'must be a JSON object' }]);
    return { [input.variable]: restToGraphQLInput(route.variableTypes.get(input.variable)!, req.body), ...extra };
  }
  const source: Record<string, unknown> = input.from === 'query' ? req.query : isRecord(req.body) ? req.body : {};
  const vars: Record<string, unknown> = {};
  for (const [name, type] of route.variableTypes) {
    if (extra && name in extra) continue;
    const restName = restNameOf(name);
    if (!Object.hasOwn(source, restName)) continue;
    vars[name] =
      input.from === 'query' ? fromQueryString(type, source[restName]) : restToGraphQLInput(type, source[restName]);
  }
  return extra ? { ...vars, ...extra } : vars;
}

/** The root field's arguments from the operation's variables (literal arguments as written). */
export function argumentsOf(route: CompiledRoute, variables: Record<string, unknown>): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const arg of route.fieldNode.arguments ?? []) {
    args[arg.name.value] =
      arg.value.kind === Kind.VARIABLE ? variables[arg.value.name.value] : valueFromASTUntyped(arg.value);
  }
  return args;
}

/**
 * A route's variables and its root field's arguments, validated (defaults filled in, text trimmed) —
 * one step for the runner and the front door. Every problem of the request is named at once: the
 * route's own reading (`spec`) and the arguments' rules together (`spec=color&page=0` names both).
 */
export async function validatedInput(
  route: CompiledRoute,
  input: RestInput,
  ctx: RequestContext,
): Promise<{ variables: Record<string, unknown>; args: unknown }> {
  const { variables, problems } = variablesOf(route, input);
  let args: unknown;
  try {
    args = await validateFieldArgs(route.field, argumentsOf(route, variables), ctx);
  } catch (err) {
    if (problems.length === 0 || !(err instanceof AppError) || !err.fieldErrors) throw err;
    throw validationFailed([...problems, ...err.fieldErrors]);
  }
  if (problems.length) throw validationFailed(problems);
  return { variables, args };
}
