/**
 * What every answer carries (contract §1, §7.5, §7.7), as plain functions over Node's request and
 * response: the request id, the security headers and the log line with the HTTP metrics (CORS: cors.ts). Express's middleware (app.ts) calls them for every request, and so does the front
 * door (front-door.ts) for the public reads it answers before Express is entered — one rule, two
 * callers, and test/http/front-door.test.ts holds both to the same headers, log line and metrics.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../logger.ts';
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

/** What the log line reports beyond the HTTP facts, read when the answer has gone. */
export interface AnswerFacts {
  log: Logger;
  /** The route pattern (`/api/v1/items/:id`), or UNMATCHED_ROUTE. */
  route(): string;
  clientIp: string;
  /** `customer:7` / `admin:1`: whoever the request's token was verified to be, if anyone. */
  principal(): string | undefined;
  /** The GraphQL operation the request ran (a REST route's, or the document's). */
  operation(): string | undefined;
}

/**
 * Counts the bytes of the body as they leave (after compression, when this runs before it). Plain
 * functions of fixed arity over the response's own methods: this runs on every request.
 */
function countBytes(res: ServerResponse): { bytes: number } {
  const counted = { bytes: 0 };
  const size = (chunk: unknown, encoding: unknown) =>
    typeof chunk === 'string'
      ? Buffer.byteLength(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
      : chunk instanceof Uint8Array
        ? chunk.byteLength
        : 0;
  type Write = (this: ServerResponse, chunk: unknown, encoding?: unknown, cb?: unknown) => unknown;
  const patched = res as unknown as { write: Write; end: Write };
  const { write, end } = patched;
  patched.write = function (chunk, encoding, cb) {
    counted.bytes += size(chunk, encoding);
    return write.call(this, chunk, encoding, cb);
  };
  patched.end = function (chunk, encoding, cb) {
    if (typeof chunk !== 'function') counted.bytes += size(chunk, encoding);
    return end.call(this, chunk, encoding, cb);
  };
  return counted;
}

type HttpMetrics = Pick<Metrics, 'httpRequests' | 'httpDuration'>;
type HttpSeries = {
  requests: ReturnType<HttpMetrics['httpRequests']['labels']>;
  duration: ReturnType<HttpMetrics['httpDuration']['labels']>;
};

/**
 * The request counter's and latency histogram's series of a method, route and status, found once:
 * prom-client would validate and hash the label object on every request. Routes are patterns (or
 * UNMATCHED_ROUTE), so the series are few.
 */
const seriesByMetrics = new WeakMap<HttpMetrics, Map<string, HttpSeries>>();
function httpSeries(metrics: HttpMetrics, method: string, route: string, status: number): HttpSeries {
  let series = seriesByMetrics.get(metrics);
  if (!series) seriesByMetrics.set(metrics, (series = new Map()));
  const key = `${method} ${status} ${route}`;
  let found = series.get(key);
  if (!found) {
    const labels = { method, route, status: String(status) };
    found = { requests: metrics.httpRequests.labels(labels), duration: metrics.httpDuration.labels(labels) };
    series.set(key, found);
  }
  return found;
}

/**
 * What each answered request leaves behind (contract §7.7): one log line and the HTTP metrics, made
 * from the same facts. Never a credential: the line holds no headers, no body, and no query string on
 * the GraphQL endpoint (a GET there carries documents and variables, which may hold a password).
 * Call it before anything writes the body.
 */
export function observeAnswer(
  req: IncomingMessage,
  res: ServerResponse,
  metrics: HttpMetrics,
  graphqlEndpoint: string,
  facts: AnswerFacts,
): void {
  const started = performance.now();
  const counted = countBytes(res);
  res.on('finish', () => {
    const seconds = (performance.now() - started) / 1000;
    const route = facts.route();
    const method = req.method ?? 'GET';
    const status = res.statusCode;
    const series = httpSeries(metrics, method, route, status);
    series.requests.inc();
    series.duration.observe(seconds);
    // Error level is for what needs fixing here (a 500); a 503 is an expected state the service
    // answers as designed — a database or WeChat away, mini-program login not configured.
    const level = status === 500 ? 'error' : status >= 500 ? 'warn' : 'info';
    // The line is made only when it is written (LOG_LEVEL may leave it out).
    if (!facts.log.isLevelEnabled(level)) return;
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
      bytes: counted.bytes,
      client_ip: facts.clientIp,
      principal: facts.principal(),
      graphql_operation: facts.operation(),
    };
    facts.log[level](line, status === 500 ? 'request failed' : status >= 500 ? 'request not served' : 'request');
  });
}
