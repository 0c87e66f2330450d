/**
 * The HTTP server around the app (contract §7.1, §7.4): request timeouts, problem+json answers for
 * what Node rejects before the app sees it (headers too large, broken framing, timeouts), and a
 * drain that lets keep-alive clients finish without a single reset.
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import http, { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import net, { type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { type ErrorCode, HTTP_STATUS } from '../errors/app-error.ts';

/** Headers must arrive within this time, else the connection is closed (§7.4). */
export const HEADERS_TIMEOUT_MS = 10_000;
/** A whole request (headers and body) must arrive within this time (§7.4). */
export const REQUEST_TIMEOUT_MS = 30_000;

export interface HttpServerOptions {
  /** How long an idle keep-alive connection stays open (HTTP_KEEP_ALIVE_TIMEOUT, contract §11). */
  keepAliveTimeoutMs: number;
}

export interface HttpServer {
  readonly server: http.Server;
  /** Listens on `host:port`, binding it itself. */
  listen(port: number, host: string): Promise<number>;
  /**
   * Listens on handles of one bound socket (process/shared-listener.ts): the first is this server's
   * own, each other one accepts too and hands its connections to this server.
   */
  listenOnHandles(handles: object[]): Promise<number>;
  /**
   * Closes every listening handle at once; open connections keep being served as before. The first
   * step of a stop: with workers, the primary has every worker do this before any of them drains.
   */
  stopAccepting(): void;
  /**
   * Stops accepting (if not done yet) and waits for the open connections to finish; each answers its
   * next request with `Connection: close`, so keep-alive clients leave without a reset. After
   * `graceMs` whatever is still open is closed.
   */
  drain(graceMs: number): Promise<void>;
}

/**
 * An idle keep-alive connection is closed this long after a drain begins: a client that was about to
 * reuse it still gets its answer (with `Connection: close`), and one that went quiet does not hold
 * the stop for the whole grace (HTTP_KEEP_ALIVE_TIMEOUT is a minute). Every answer of a drain closes
 * its connection — save a pipelined answer queued, before the drain began, behind one whose head had
 * gone out already (it is no connection's answer in progress yet, so closeInProgress misses it, and
 * it leaves keep-alive): idle connections are closed again every so long while the drain lasts, so
 * such a connection does not hold it (test/unit/http-drain.test.ts).
 */
const IDLE_AFTER_DRAIN_MS = 1_000;

export function createHttpServer(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  opts: HttpServerOptions,
): HttpServer {
  let draining = false;
  const acceptors: net.Server[] = [];
  /** Open connections, so that a drain can reach the answers in progress on them (closeInProgress). */
  const connections = new Set<Socket>();
  const server = http.createServer(
    {
      headersTimeout: HEADERS_TIMEOUT_MS,
      requestTimeout: REQUEST_TIMEOUT_MS,
      // Node checks the two timeouts on this interval (default 30 s, which would double them).
      connectionsCheckingInterval: 1_000,
      // Node would answer a missing Host itself, with a bare 400; the app answers it as problem+json.
      requireHostHeader: false,
    },
    (req, res) => {
      // A request that arrives during a drain is answered with `Connection: close` (Node writes it
      // for an answer that is not to keep its connection alive, and closes the connection after it).
      if (draining) res.shouldKeepAlive = false;
      handler(req, res);
    },
  );
  // Per connection, not per request: every request would otherwise pay for a hook on its head.
  server.on('connection', (socket: Socket) => {
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
  });
  /**
   * The answers that were still being worked on when the drain began, and whose head has not gone
   * yet, are told to close their connection too: each connection's answer in progress is Node's
   * `_httpMessage` of its socket (as answerClientError reads it).
   */
  const closeInProgress = () => {
    for (const socket of connections) {
      const res = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
      if (res && !res.headersSent) res.shouldKeepAlive = false;
    }
  };
  // Node's default (5 s) closes an idle connection just as a client or a load balancer (60 s idle
  // timeout) sends its next request on it: an intermittent reset. Longer than theirs, they close first.
  server.keepAliveTimeout = opts.keepAliveTimeoutMs;
  server.on('clientError', answerClientError);
  // CONNECT (a request to tunnel, as to a proxy) never reaches 'request'; Node would close the
  // connection without a word. This is no proxy: a problem+json like every other answer (§7.1).
  server.on('connect', (_req: IncomingMessage, socket: Duplex) =>
    writeProblem(socket, 'METHOD_NOT_ALLOWED', 'CONNECT is not supported: this service is not a proxy.', {
      Allow: SERVICE_METHODS,
    }),
  );
  // An `Expect` other than 100-continue: Node would answer a bare 417; RFC 9110 lets a server ignore
  // expectations it does not know, so the request is simply served.
  server.on('checkExpectation', (req, res) => server.emit('request', req, res));

  let closed: Promise<unknown> | undefined;
  const stopAccepting = () => {
    if (closed) return;
    // Waited for by the drain: each emits 'close' once it stopped listening and its connections ended.
    closed = Promise.all([server, ...acceptors].map((s) => once(s, 'close')));
    // net.Server's close, not http.Server's: the latter also closes idle keep-alive connections at
    // once, racing clients that are just sending their next request on them (a reset). All handles
    // close in this one turn, so the socket stops listening at once instead of handle by handle.
    net.Server.prototype.close.call(server);
    for (const acceptor of acceptors) acceptor.close();
  };

  return {
    server,
    async listen(port, host) {
      server.listen(port, host);
      await once(server, 'listening');
      return (server.address() as net.AddressInfo).port;
    },
    async listenOnHandles([own, ...others]) {
      server.listen(own);
      await once(server, 'listening');
      for (const handle of others) {
        // Sockets accepted here join the HTTP server as its own: timeouts, drain, closeAllConnections.
        const acceptor = net.createServer({ noDelay: true }, (socket) => server.emit('connection', socket));
        acceptor.listen(handle);
        await once(acceptor, 'listening');
        acceptors.push(acceptor);
      }
      return (server.address() as net.AddressInfo).port;
    },
    stopAccepting,
    async drain(graceMs) {
      draining = true;
      closeInProgress();
      stopAccepting();
      const idle = setInterval(() => server.closeIdleConnections(), IDLE_AFTER_DRAIN_MS);
      const force = setTimeout(() => server.closeAllConnections(), graceMs);
      idle.unref();
      force.unref();
      await closed;
      clearInterval(idle);
      clearTimeout(force);
    },
  };
}

/** What a client error becomes: a contract code and a sentence. */
function describe(err: NodeJS.ErrnoException): { code: ErrorCode; detail: string } {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return { code: 'HEADERS_TOO_LARGE', detail: 'The request headers are too large.' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { code: 'REQUEST_TIMEOUT', detail: 'The request did not arrive in time.' };
    default:
      return { code: 'MALFORMED_REQUEST', detail: 'The request is not valid HTTP/1.1.' };
  }
}

/** Every method some route of the service answers (the `Allow` of a CONNECT refusal). */
const SERVICE_METHODS = 'GET, HEAD, POST, PATCH, DELETE, OPTIONS';

/**
 * Node's `clientError` hook: the request never reached the app (it could not be parsed, or took too
 * long), so the answer is written here, still as problem+json with a request id (§7.1).
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  const pending = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
  if (err.code === 'ECONNRESET' || !socket.writable || pending?.headersSent) {
    socket.destroy();
    return;
  }
  const { code, detail } = describe(err);
  writeProblem(socket, code, detail);
}

/** Writes a problem+json answer straight onto a connection the app never saw, and closes it. */
function writeProblem(socket: Duplex, code: ErrorCode, detail: string, headers: Record<string, string> = {}): void {
  const status = HTTP_STATUS[code];
  const requestId = randomUUID();
  const body = JSON.stringify({
    type: 'about:blank',
    title: STATUS_CODES[status],
    status,
    code,
    detail,
    request_id: requestId,
  });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      'Content-Type: application/problem+json\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${requestId}\r\n` +
      Object.entries(headers)
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('') +
      'X-Content-Type-Options: nosniff\r\n' +
      'Connection: close\r\n\r\n' +
      body,
  );
}
