/**
 * What every answer carries (contract §1, §7.5, §7.7), as plain functions over Node's request and
 * response: the request id, the security headers and the log line with the HTTP metrics (CORS: cors.ts). Express's middleware (app.ts) calls them for every request, and so does the front
 * door (front-door.ts) for the public reads it answers before Express is entered — one rule, two
 * callers, and test/http/front-door.test.ts holds both to the same headers, log line and metrics.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../logger.ts';
import { memoBy } from '../memo.ts';
import {
  type CounterSeries,
  counterSeries,
  type HistogramSeries,
  histogramSeries,
} from '../observability/metric-series.ts';
import type { Metrics } from '../observability/metrics.ts';
import { securityHeaders } from './security-headers.ts';

// Ids we echo: short, printable, no separators that could forge log lines or headers.
const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request's id — the client's when sane, else a new one — sent back as `X-Request-Id` (§1). */
export function beginAnswer(req: IncomingMessage, res: ServerResponse): string {
  const incoming = req.headers['x-request-id'];
  const requestId = typeof incoming === 'string' && SANE_ID.test(incoming) ? incoming : randomUUID();
  res.setHeader('X-Request-Id', requestId);
  return requestId;
}

/**
 * helmet's headers, read once from its middleware (it sets the same ones on every answer and reads
 * nothing of the request), so each answer costs a loop of setHeader, not helmet's chain.
 */
const SECURITY_HEADERS: ReadonlyArray<[string, string]> = (() => {
  const headers: Array<[string, string]> = [];
  const recorder = {
    setHeader: (name: string, value: unknown) => void headers.push([name, String(value)]),
    removeHeader: () => {},
  };
  securityHeaders({} as never, recorder as never, () => {});
  return headers;
})();

export function setSecurityHeaders(res: ServerResponse): void {
  for (const [name, value] of SECURITY_HEADERS) res.setHeader(name, value);
}

/** The route label of a request no route matched: unknown paths must not each become a series. */
export const UNMATCHED_ROUTE = '(unmatched)';

const MAX_QUERY_LENGTH = 512;

/**
 * What the request line reports beyond the HTTP facts, read when the answer has gone: the request's
 * scope (http/request-scope.ts: its logger, the client's address, and the context once built).
 */
export interface ObservedScope {
  readonly log: Logger;
  /** Whether a line at `level` would be written (its logger need not be made to know). */
  logs(level: 'info' | 'warn' | 'error'): boolean;
  readonly clientIp: string;
  readonly context?: {
    /** `customer:7` / `admin:1`: whoever the request's token was verified to be, if anyone. */
    readonly auth: { readonly principal: string | undefined };
    readonly observed: { operationName?: string };
  };
  /** Set once the answer is observed: a request is counted and logged once. */
  observed?: object;
}

/** How the route (`/api/v1/items/:id`, or UNMATCHED_ROUTE) and the GraphQL operation are known. */
export interface AnswerFacts<R extends IncomingMessage = IncomingMessage> {
  /** The route pattern, or how to read it off the request when the answer has gone (Express's router). */
  route: string | ((req: R) => string);
  /** The GraphQL operation the request ran (a REST route's, or the document's), or how to read it. */
  operation: string | undefined | ((scope: ObservedScope) => string | undefined);
}

type Write = (this: ServerResponse, chunk: unknown, encoding?: unknown, cb?: unknown) => unknown;

const OBSERVATION = Symbol('observation');
type Observed = ServerResponse & { [OBSERVATION]: Observation };
/** The response's `write` and `end`, as the hooks below replace and call them. */
type Writes = { write: Write; end: Write };

/** The bytes of a chunk given to `write`/`end`. */
const sizeOf = (chunk: unknown, encoding: unknown) =>
  typeof chunk === 'string'
    ? Buffer.byteLength(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
    : chunk instanceof Uint8Array
      ? chunk.byteLength
      : 0;

/**
 * One request's observation: its start, the bytes of the body as they leave (after compression, when
 * this runs before it), and the facts of its line. The response's `write`, `end` and `finish` hooks
 * are the shared functions below, which find it on the response: nothing is made per request but this.
 */
class Observation {
  readonly started = performance.now();
  bytes = 0;
  readonly write: Write;
  readonly end: Write;

  constructor(
    readonly req: IncomingMessage,
    res: ServerResponse,
    readonly metrics: HttpMetrics,
    readonly graphqlEndpoint: string,
    readonly scope: ObservedScope,
    readonly facts: AnswerFacts<never>,
  ) {
    this.write = (res as unknown as Writes).write;
    this.end = (res as unknown as Writes).end;
  }
}

function countedWrite(this: Observed, chunk: unknown, encoding?: unknown, cb?: unknown): unknown {
  const observation = this[OBSERVATION];
  observation.bytes += sizeOf(chunk, encoding);
  return observation.write.call(this, chunk, encoding, cb);
}

function countedEnd(this: Observed, chunk: unknown, encoding?: unknown, cb?: unknown): unknown {
  const observation = this[OBSERVATION];
  if (typeof chunk !== 'function') observation.bytes += sizeOf(chunk, encoding);
  return observation.end.call(this, chunk, encoding, cb);
}

type HttpMetrics = Pick<Metrics, 'httpRequests' | 'httpDuration'>;
type HttpSeries = { requests: CounterSeries; duration: HistogramSeries };

/**
 * The request counter's and latency histogram's series of a method, route and status, found once
 * (observability/metric-series.ts). Routes are patterns (or UNMATCHED_ROUTE), so the series are
 * few; they are looked up by the strings as they are, never by a key made per request.
 */
const seriesByMetrics = new WeakMap<
  HttpMetrics,
  (method: string) => (route: string) => (status: number) => HttpSeries
>();
function httpSeries(metrics: HttpMetrics, method: string, route: string, status: number): HttpSeries {
  let byMethod = seriesByMetrics.get(metrics);
  if (!byMethod) {
    byMethod = memoBy((method: string) =>
      memoBy((route: string) =>
        memoBy((status: number) => {
          const labels = { method, route, status: String(status) };
          return {
            requests: counterSeries(metrics.httpRequests, labels),
            duration: histogramSeries(metrics.httpDuration, labels),
          };
        }),
      ),
    );
    seriesByMetrics.set(metrics, byMethod);
  }
  return byMethod(method)(route)(status);
}

/**
 * What each answered request leaves behind (contract §7.7): one log line and the HTTP metrics, made
 * from the same facts. Never a credential: the line holds no headers, no body, and no query string on
 * the GraphQL endpoint (a GET there carries documents and variables, which may hold a password).
 * Call it before anything writes the body.
 */
export function observeAnswer<R extends IncomingMessage>(
  req: R,
  res: ServerResponse,
  metrics: HttpMetrics,
  graphqlEndpoint: string,
  scope: ObservedScope,
  facts: AnswerFacts<R>,
): void {
  const observation = new Observation(req, res, metrics, graphqlEndpoint, scope, facts as AnswerFacts<never>);
  scope.observed = observation;
  (res as Observed)[OBSERVATION] = observation;
  (res as unknown as Writes).write = countedWrite as Write;
  (res as unknown as Writes).end = countedEnd as Write;
  res.on('finish', answered);
}

/** The request line and metrics of an answer that has gone (`this`: the response). */
function answered(this: Observed): void {
  const { req, scope, facts, metrics, graphqlEndpoint, started, bytes } = this[OBSERVATION];
  const seconds = (performance.now() - started) / 1000;
  const route = typeof facts.route === 'string' ? facts.route : facts.route(req as never);
  const method = req.method ?? 'GET';
  const status = this.statusCode;
  const series = httpSeries(metrics, method, route, status);
  series.requests.inc();
  series.duration.observe(seconds);
  // Error level is for what needs fixing here (a 500); a 503 is an expected state the service
  // answers as designed — a database or WeChat away, mini-program login not configured.
  const level = status === 500 ? 'error' : status >= 500 ? 'warn' : 'info';
  // The line is made only when it is written (LOG_LEVEL may leave it out).
  if (!scope.logs(level)) return;
  // Express may rewrite `url` on its way through routers; `originalUrl` is what arrived.
  const url = (req as { originalUrl?: string }).originalUrl ?? req.url ?? '/';
  const queryAt = url.indexOf('?');
  const path = queryAt >= 0 ? url.slice(0, queryAt) : url;
  const line = {
    method: req.method,
    route,
    path,
    ...(queryAt >= 0 && path !== graphqlEndpoint
      ? { query: url.slice(queryAt + 1, queryAt + 1 + MAX_QUERY_LENGTH) }
      : {}),
    status,
    duration_ms: Math.round(seconds * 10_000) / 10,
    bytes,
    client_ip: scope.clientIp,
    principal: scope.context?.auth.principal,
    graphql_operation: typeof facts.operation === 'function' ? facts.operation(scope) : facts.operation,
  };
  scope.log[level](line, status === 500 ? 'request failed' : status >= 500 ? 'request not served' : 'request');
}
