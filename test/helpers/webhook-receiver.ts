/**
 * A local webhook receiver on 127.0.0.1 for the delivery tests (contract §14.2): it records every
 * request (headers and body as received) and answers as scripted — by default 200, or the answers
 * queued for a path with `answerNext` (a status, a body, a delay), one per request to it, in order.
 */
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface Answer {
  status: number;
  body?: string;
  headers?: Record<string, string>;
  delayMs?: number;
}

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>` (add a path to tell webhooks apart). */
  url: string;
  received: Received[];
  /** Requests received on `path`. */
  on(path: string): Received[];
  /** Queues the answers to the next requests on `path` (after them: 200). */
  answerNext(path: string, ...answers: Answer[]): void;
  /** Answers every later request so (until changed). */
  answerAlways(answer: Answer | undefined): void;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: Received[] = [];
  const queued = new Map<string, Answer[]>();
  let always: Answer | undefined;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      });
      const answer = queued.get(req.url ?? '/')?.shift() ?? always ?? { status: 200, body: 'ok' };
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
        res.end(answer.body ?? '');
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs).unref();
      else send();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    on: (path) => received.filter((r) => r.path === path),
    answerNext: (path, ...answers) => void queued.set(path, [...(queued.get(path) ?? []), ...answers]),
    answerAlways: (answer) => {
      always = answer;
    },
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
