/**
 * The drain of src/http/http-server.ts (contract §7.4) on a bare handler, answer by answer: an answer
 * that was being worked on when the drain began, a request that arrives on a kept-alive connection
 * during it, and a pipelined answer queued behind one whose head had gone before it — each leaves
 * its client told to go, or its connection closed once idle, and none holds the stop. (test/hardening/shutdown.test.ts drives the same through the real service under load.)
 */
import { once } from 'node:events';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpServer, type HttpServer } from '../../src/http/http-server.ts';

const GRACE_MS = 20_000;

/**
 * A server whose answers to `/held…` wait until `release()` (`/streaming…`: its head and a first part
 * go at once, the rest on release); `nextArrival` resolves as the next request comes in.
 */
function heldServer() {
  const waiting: Array<() => void> = [];
  let arrived: () => void = () => {};
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    res.setHeader('Content-Type', 'text/plain');
    const answer = () => void res.end(`answer to ${req.url}`);
    if (req.url?.startsWith('/held')) waiting.push(answer);
    else if (req.url?.startsWith('/streaming')) {
      res.write('first part; ');
      waiting.push(answer);
    } else answer();
    arrived();
  };
  const server = createHttpServer(handler, { keepAliveTimeoutMs: 60_000 });
  return {
    server,
    nextArrival: () => new Promise<void>((resolve) => (arrived = resolve)),
    release: () => {
      for (const answer of waiting.splice(0)) answer();
    },
  };
}

function get(agent: http.Agent, port: number, path: string) {
  return new Promise<{ status: number; connection: string | undefined; body: string }>((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, agent }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body }));
      })
      .on('error', reject);
  });
}

let open: HttpServer | undefined;
let agent: http.Agent | undefined;
afterEach(() => {
  agent?.destroy();
  open?.server.closeAllConnections();
  open?.stopAccepting();
  open = agent = undefined;
});

describe('the drain, answer by answer', () => {
  it('when an answer is being worked on as the drain begins, then it says `Connection: close` and the drain ends with it', async () => {
    const { server, nextArrival, release } = heldServer();
    open = server;
    const port = await server.listen(0, '127.0.0.1');
    agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const arrival = nextArrival();
    const answer = get(agent, port, '/held');
    await arrival;
    const drained = server.drain(GRACE_MS);
    release();
    expect(await answer).toEqual({ status: 200, connection: 'close', body: 'answer to /held' });
    const started = performance.now();
    await drained;
    expect(performance.now() - started).toBeLessThan(GRACE_MS / 2);
  });

  it('when a kept-alive connection sends a request during the drain, then its answer says `Connection: close`', async () => {
    const { server, nextArrival, release } = heldServer();
    open = server;
    const port = await server.listen(0, '127.0.0.1');
    agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    expect(await get(agent, port, '/first')).toMatchObject({ status: 200, connection: 'keep-alive' });
    // A second connection keeps the drain going while the first one is reused.
    const other = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const arrival = nextArrival();
    const held = get(other, port, '/held');
    await arrival;
    const drained = server.drain(GRACE_MS);
    expect(await get(agent, port, '/second')).toEqual({ status: 200, connection: 'close', body: 'answer to /second' });
    release();
    expect(await held).toMatchObject({ status: 200, connection: 'close' });
    await drained;
    other.destroy();
  });

  it('when a pipelined answer waits behind one whose head went out before the drain, then both arrive whole and its connection, idle after it, does not hold the stop', async () => {
    const { server, nextArrival, release } = heldServer();
    open = server;
    const port = await server.listen(0, '127.0.0.1');
    const socket = net.connect(port, '127.0.0.1');
    await once(socket, 'connect');
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    const arrival = nextArrival();
    // Two requests in one write: Node parses both at once and queues the second's answer behind the first.
    socket.write('GET /streaming HTTP/1.1\r\nHost: x\r\n\r\nGET /queued HTTP/1.1\r\nHost: x\r\n\r\n');
    await arrival;
    while (!received.includes('first part')) await new Promise((r) => setTimeout(r, 10));
    const drained = server.drain(GRACE_MS);
    // Past the first close of idle connections: the queued answer leaves keep-alive (its request came
    // before the drain, and it was no connection's answer in progress), so its connection goes idle later.
    await new Promise((r) => setTimeout(r, 1_500));
    const released = performance.now();
    release();
    await drained;
    expect(performance.now() - released).toBeLessThan(GRACE_MS / 2);
    if (!socket.closed) await once(socket, 'close');
    expect(received).toContain('answer to /streaming');
    expect(received).toContain('answer to /queued');
    expect(received.match(/HTTP\/1\.1 200 OK/g)).toHaveLength(2);
  });
});
