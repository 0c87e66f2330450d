/**
 * The `mixed_webhooks` scenario's receiver (bench/mixed-webhooks.ts starts it): a plain `node:http`
 * server on 127.0.0.1 in a worker thread of its own, so that the load generator's busy event loop
 * does not delay its clock. Webhook i is `POST /hook/<i>`; every request is answered 200 at once and
 * recorded — its arrival (wall clock, like the event's `at`: same machine, same clock), `webhook-id`,
 * the body's `seq` and `timestamp` (the event's `at`, contract §14.2).
 *
 * From `start` on, it samples the backlog every second: events committed since (the newest `seq` of
 * the log minus the `seq` at start; the log has no gaps) minus the events every webhook has received
 * at least once. On `finish` it takes one more sample at once, then samples every 250 ms until the
 * backlog is 0 and `settleMs` have passed (or `drainMs`), and posts its record.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';
import pg from 'pg';

export interface ReceiverJob {
  databaseUrl: string;
  hooks: number;
}

/** One webhook's first arrival of an event: [seq, event at (ms since the epoch), first arrival (ms), event id]. */
export type FirstArrival = [seq: number, atMs: number, arrivedMs: number, eventId: string];

export interface BacklogSample {
  /** ms since the epoch. */
  t: number;
  /** Events committed since `start`. */
  committed: number;
  /** Of them, not yet received by every webhook. */
  backlog: number;
}

export interface ReceiverRecord {
  /** The `seq` of the log's newest event at `start`: later events are the run's. */
  baseSeq: number;
  /** Per webhook: its requests (retries and redeliveries included), and each event's first arrival. */
  hooks: Array<{ requests: number; bad_requests: number; first: FirstArrival[] }>;
  samples: BacklogSample[];
  /** When `finish` came (the load over, its writes answered). */
  finishedAt: number;
}

export type ReceiverCommand = { cmd: 'start' } | { cmd: 'finish'; settleMs: number; drainMs: number };

const SAMPLE_MS = 1000;
const DRAIN_SAMPLE_MS = 250;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

async function run(job: ReceiverJob, port: NonNullable<typeof parentPort>): Promise<void> {
  const hooks = Array.from({ length: job.hooks }, () => ({
    requests: 0,
    bad_requests: 0,
    first: new Map<string, FirstArrival>(),
  }));
  const server = createServer((req, res) => {
    const arrived = Date.now();
    const hook = hooks[Number(/^\/hook\/(\d+)$/.exec(req.url ?? '')?.[1] ?? -1)];
    void readBody(req).then(
      (text) => {
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
        if (!hook) return;
        hook.requests++;
        const id = req.headers['webhook-id'];
        let body: { seq?: unknown; timestamp?: unknown } = {};
        try {
          body = JSON.parse(text);
        } catch {}
        const at = typeof body.timestamp === 'string' ? Date.parse(body.timestamp) : Number.NaN;
        if (typeof id !== 'string' || typeof body.seq !== 'number' || Number.isNaN(at)) {
          hook.bad_requests++;
          return;
        }
        if (!hook.first.has(id)) hook.first.set(id, [body.seq, at, arrived, id]);
      },
      () => res.writeHead(400).end(),
    );
  });
  // Keep-alive connections stay open between attempts (the service's agent keeps them).
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = new pg.Client({ connectionString: job.databaseUrl, application_name: 'bench-webhook-receiver' });
  await client.connect();
  const newestSeq = async () =>
    Number((await client.query<{ s: string | null }>('SELECT max(seq)::text AS s FROM events')).rows[0]!.s ?? 0);

  let baseSeq = 0;
  const samples: BacklogSample[] = [];
  const sample = async (): Promise<BacklogSample> => {
    const committed = (await newestSeq()) - baseSeq;
    // The events above the base every webhook has received (`seq` numbers the run's events 1..committed).
    const received = Math.min(
      ...hooks.map((h) => {
        let n = 0;
        for (const [seq] of h.first.values()) if (seq > baseSeq && seq <= baseSeq + committed) n++;
        return n;
      }),
    );
    const s = { t: Date.now(), committed, backlog: committed - received };
    samples.push(s);
    return s;
  };

  let timer: NodeJS.Timeout | undefined;
  port.on('message', (m: ReceiverCommand) => {
    void (async () => {
      if (m.cmd === 'start') {
        baseSeq = await newestSeq();
        timer = setInterval(() => void sample(), SAMPLE_MS);
        port.postMessage({ started: baseSeq });
        return;
      }
      clearInterval(timer);
      const finishedAt = Date.now();
      for (;;) {
        const s = await sample();
        const waited = Date.now() - finishedAt;
        if ((s.backlog === 0 && waited >= m.settleMs) || waited >= m.drainMs) break;
        await new Promise((r) => setTimeout(r, DRAIN_SAMPLE_MS));
      }
      await client.end();
      server.closeAllConnections();
      server.close();
      const record: ReceiverRecord = {
        baseSeq,
        hooks: hooks.map((h) => ({ requests: h.requests, bad_requests: h.bad_requests, first: [...h.first.values()] })),
        samples,
        finishedAt,
      };
      port.postMessage({ record });
    })().catch((err: Error) => port.postMessage({ error: err.stack ?? err.message }));
  });
  port.postMessage({ ready: (server.address() as AddressInfo).port });
}

if (parentPort && (workerData as { receiver?: ReceiverJob } | undefined)?.receiver) {
  const port = parentPort;
  run((workerData as { receiver: ReceiverJob }).receiver, port).catch((err: Error) =>
    port.postMessage({ error: err.stack ?? err.message }),
  );
}
