/**
 * Runs a compiled REST route for one request, through Yoga's enveloped pipeline: scopes first, then
 * the arguments validated once (every problem named as REST names it), then — for a public read —
 * the answer cache, else the operation. The generic runner knows no domain: public reads keep their
 * answers in whatever `AnswerCache` it is given (the catalogue's).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, Response } from 'express';
import { AppError, FIELD_ERRORS_DETAIL, notFound } from '../errors/app-error.ts';
import { toAppError } from '../errors/to-app-error.ts';
import { requireFieldScopes } from '../graphql/field-guards.ts';
import type { Yoga } from '../graphql/yoga.ts';
import { type PreparedBody, prepareBody } from '../http/prepared-body.ts';
import { countOperation } from '../observability/graphql-operations.ts';
import type { RequestContext } from '../request-context.ts';
import { restFieldErrors } from '../validation/field-errors.ts';
import type { AnswerCache } from './answer-cache.ts';
import { restInputOf, restRequestOf, validatedInput } from './inputs.ts';
import { publicAnswer, sendPublicAnswer } from './public-answer.ts';
import { ReadFlights } from './read-flights.ts';
import type { CompiledRoute } from './route.ts';

/** A public read whose arguments are validated: what its answer is made from, and kept under. */
export interface ValidatedRead {
  route: CompiledRoute;
  /** The operation's variables, as read from the request. */
  variables: Record<string, unknown>;
  /** The root field's arguments, validated (defaults filled in, text trimmed). */
  args: unknown;
  /** Where its answer is kept (answerKey). */
  key: string;
}

type Enveloped = ReturnType<Yoga['getEnveloped']>;

/** The request's context, as Yoga's `context` option builds it (app.ts: one function for both). */
export type ContextFor = (req: IncomingMessage, res: ServerResponse, readFromPrimary: boolean) => RequestContext;

/**
 * Requests the front door began and handed to Express with the error their read ended in: the runner
 * answers with that error instead of running the read again (one execution, one operation counted).
 */
const handedOver = new WeakMap<IncomingMessage, unknown>();

/** A route runner over one Yoga instance; `answers` keeps the answers of public reads. */
export function routeRunner(yoga: Yoga, answers: AnswerCache, contextFor: ContextFor) {
  // One enveloped pipeline serves every route: its `execute` (with every plugin's hooks) keeps no state
  // of a request but the context it is given — the request's own, built once per request.
  const enveloped = yoga.getEnveloped({} as never);
  /** Misses being read now: a request for the same answer meanwhile waits for that read (read-flights.ts). */
  const flights = new ReadFlights<PreparedBody>(answers);

  function contextOf(route: CompiledRoute, req: IncomingMessage, res: ServerResponse): RequestContext {
    // An answer the cache will keep is read from the primary, so a lagging replica's old data is
    // never kept (request-context.ts).
    const ctx = contextFor(req, res, route.publicRead === true && answers.enabled);
    // Named in the log line also when the request is refused before the operation runs.
    ctx.observed.operationName = route.operationName;
    return ctx;
  }

  /**
   * A public read's answer: the kept one, else the operation's (shared with whoever asks for it while
   * it is read) — kept for the next request when no write came in between. Throws the read's coded
   * error (NOT_FOUND, …).
   */
  async function answerRead(read: ValidatedRead, ctx: () => RequestContext): Promise<PreparedBody> {
    const cached = answers.answer(read.key);
    if (cached) return cached;
    return flights.share(read.key, async () => {
      const generation = answers.generation;
      const answer = await readAnswer(read, ctx());
      answers.storeAnswer(read.key, answer, generation);
      return answer;
    });
  }

  /**
   * A public read's answer made now: written by PostgreSQL where the route renders it (the same
   * service read, the answer in the document's shape: catalog/catalog-json.ts), else the operation's.
   */
  async function readAnswer(read: ValidatedRead, ctx: RequestContext): Promise<PreparedBody> {
    const { route } = read;
    const text = await route.renderer?.(ctx, read.args, read.variables);
    if (text === undefined) return publicAnswer(await executeRoute(route, read.variables, read.args, enveloped, ctx));
    // Counted as the pipeline counts an operation it executes.
    countOperation(ctx.services.metrics, route.operation, route.compiled);
    if (text === null) throw notFound();
    // The body as executeRoute makes it: the field's value, or the whole `data` holding it.
    return prepareBody(route.bodyIsData ? `{${JSON.stringify(route.result)}:${text}}` : text);
  }

  /** Sends a public read's answer (200 or 304) with the cache's `Cache-Control`. */
  const sendAnswer = (req: IncomingMessage, res: ServerResponse, answer: PreparedBody) =>
    sendPublicAnswer(req, res, answer, answers.maxAgeSeconds);

  async function runRoute(route: CompiledRoute, req: Request, res: Response): Promise<void> {
    // An answer that may carry a token or personal data is never stored by a cache (§7.5): every
    // route but a public read says so, errors included; a route may still set its own.
    if (!route.publicRead) res.set('Cache-Control', 'no-store');
    const ctx = contextOf(route, req, res);
    try {
      if (handedOver.has(req)) throw handedOver.get(req);
      // Who is asking comes before what they sent, as in GraphQL: a request without a valid token
      // learns nothing about the body's rules.
      await requireFieldScopes(route.field, ctx);
      const input = restInputOf(req);
      // Before GraphQL coerces the variables: coercion would stop at the first missing or mistyped
      // field and word it its own way, where the contract lists every problem with its REST name.
      const { variables, args } = await validatedInput(route, input, ctx);
      if (route.publicRead) {
        const answer = await answerRead({ route, variables, args, key: answerKey(route, args, variables) }, () => ctx);
        return void (await sendAnswer(req, res, answer));
      }
      const body = await executeRoute(route, variables, args, enveloped, ctx);
      res.set(route.headers?.(body, restRequestOf(input)) ?? {});
      // 204 No Content: the operation's value (`true`) only says it succeeded.
      if (route.status === 204) return void res.status(204).end();
      res.status(route.status ?? 200).json(body);
    } catch (err) {
      throw restNamed(err);
    }
  }

  return {
    runRoute,
    /**
     * The front door's read (rest/front-door.ts): the answer of a validated public read, for a
     * request whose scope it opened. Throws the read's coded error, which `handOver` passes on.
     */
    answerRead: (read: ValidatedRead, req: IncomingMessage, res: ServerResponse) =>
      answerRead(read, () => contextOf(read.route, req, res)),
    sendAnswer,
    /** Leaves a request whose read failed to Express, which answers `error` as the runner's own. */
    handOver(req: IncomingMessage, error: unknown): void {
      handedOver.set(req, error);
    },
  };
}

export type RouteRunner = ReturnType<typeof routeRunner>;

/** Runs the route's operation with arguments checked and validated already; its body, or the coded error. */
async function executeRoute(
  route: CompiledRoute,
  variableValues: Record<string, unknown>,
  args: unknown,
  enveloped: Enveloped,
  ctx: RequestContext,
): Promise<{ id?: number }> {
  // Checked and validated: the execution takes both as done (graphql/field-guards.ts).
  ctx.guarded = { field: route.fieldNode.name.value, args };
  const result = await enveloped.execute({
    schema: enveloped.schema,
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
  return (route.bodyIsData ? data : value) as { id?: number };
}

/**
 * Where a public read's answer is kept: everything its bytes are made from — the route, its root
 * field's arguments as validated (defaults filled in, text trimmed, so every spelling of one request
 * shares one answer), and the operation's other variables, which shape the selection rather than the
 * read (`$facets` in `facets @include(if: $facets)`), with their declared defaults. The front door
 * (front-door.ts) finds answers under the same key.
 */
export function answerKey(route: CompiledRoute, args: unknown, variables: Record<string, unknown>): string {
  const key = `${route.operationName}:${JSON.stringify(args)}`;
  if (route.selectionVariables.length === 0) return key;
  const shaping = route.selectionVariables.map(({ name, defaultValue }) => variables[name] ?? defaultValue ?? null);
  return `${key}:${JSON.stringify(shaping)}`;
}

/** A validation error re-labelled with REST (snake_case) field paths and wording; anything else as it is. */
export function restNamed(err: unknown): unknown {
  if (!(err instanceof AppError) || !err.fieldErrors) return err;
  const detail = err.message === FIELD_ERRORS_DETAIL.graphql ? FIELD_ERRORS_DETAIL.rest : err.message;
  return new AppError(err.code, detail, {
    errors: restFieldErrors(err.fieldErrors),
    realm: err.realm,
    retryAfter: err.retryAfter,
  });
}
