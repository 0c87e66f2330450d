/**
 * In production a serving process warms up before it accepts its first connection (process/serve.ts). A cold worker — V8 has compiled
 * nothing yet, Prisma's query compiler is not loaded (~0.4 s of CPU on its first query), the catalogue
 * cache is empty — that is handed full load at once stalls its event loop for most of a second, and a
 * load balancer's health probe waits behind it (`npm run soak` saw fresh `/healthz` probes take over
 * a second in the first two seconds). So each process first sends a few representative requests
 * through its own app, over a private loopback port, and only then takes traffic.
 */
import { once } from 'node:events';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Database } from '../db/database.ts';

/** Rounds of the requests below: enough for V8 to optimise the hot paths. */
const ROUNDS = 3;
/** The warm-up never holds a start for longer than this. */
const TIME_LIMIT_MS = 5_000;

const ITEMS_QUERY = JSON.stringify({ query: '{ items(limit: 5) { total items { id name price skus { id } } } }' });

/** Runs the warm-up; failures are ignored (a warm-up that fails only leaves the process cold). */
export async function warmUp(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  db: Database,
): Promise<{ requests: number; ms: number }> {
  const started = performance.now();
  // Loads Prisma's query compiler now rather than under the first login.
  await db.prisma.admin.findFirst({ select: { id: true } }).catch(() => {});
  const server = http.createServer(handler).listen(0, '127.0.0.1');
  await once(server, 'listening');
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  let requests = 0;
  const send = (path: string, body?: string) =>
    new Promise<string>((resolve) => {
      requests++;
      const req = http.request(
        base + path,
        {
          agent,
          method: body ? 'POST' : 'GET',
          headers: {
            'x-request-id': `warm-up-${requests}`,
            'accept-encoding': 'br, gzip',
            ...(body ? { 'content-type': 'application/json' } : {}),
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('latin1');
          res.on('data', (c: string) => (text += c));
          res.on('end', () => resolve(text));
        },
      );
      req.on('error', () => resolve(''));
      req.end(body);
    });
  try {
    for (let round = 0; round < ROUNDS && performance.now() - started < TIME_LIMIT_MS; round++) {
      await Promise.all([
        send('/api/v1/items'),
        send(`/api/v1/items?page=${round + 2}&limit=10`),
        send('/api/v1/items/1'),
        // A keyword search: loads the Chinese dictionary (~0.2 s) before the first shopper needs it.
        send(`/api/v1/items?keyword=${encodeURIComponent('跑鞋 air')}&limit=5`),
        send('/api/v1/categories'),
        send('/graphql', ITEMS_QUERY),
        send('/healthz'),
      ]);
    }
  } finally {
    agent.destroy();
    server.closeAllConnections();
    server.close();
  }
  return { requests, ms: Math.round(performance.now() - started) };
}
