/**
 * The `mixed_webhooks` scenario (contract §14.2 "Measured", issue 38): `mixed` again, right after the
 * plain `mixed` of the same sitting, with N webhooks (`events: ["*"]`, created through GraphQL
 * `createWebhook` as the bench's owner before the load) on a local receiver (bench/webhook-receiver.ts),
 * both instances started with WEBHOOK_ALLOW_HTTP and WEBHOOK_ALLOW_PRIVATE so that they may deliver to
 * it. Every write of the run appends one event, so every webhook gets every event of the run.
 *
 * - commit → first attempt: per event and webhook, the event's `at` (the body's `timestamp`, written
 *   by PostgreSQL in the change's transaction) to the receiver's first request with its `webhook-id`;
 * - backlog: each second, the events committed since the load started that some webhook has not yet
 *   received; at the load's end, 2 s later, and how long until it is 0;
 * - write latency: the `updateItem` writes' p99 (and p50) with webhooks ÷ the plain `mixed`'s.
 */
import { Worker } from 'node:worker_threads';
import pg from 'pg';
import type { Timing } from './load.ts';
import { mixedWith } from './mixed.ts';
import type { LoadScenario, StageFigures, WebhookStages, WebhooksFigures } from './report.ts';
import type { Requests } from './requests.ts';
import type { Server } from './servers.ts';
import { pct, round1 } from './staleness-checker.ts';
import type { BacklogSample, ReceiverCommand, ReceiverJob, ReceiverRecord } from './webhook-receiver.ts';

/** Webhooks the bench creates are described so, and any left by a run that died are deleted. */
const DESCRIPTION = 'bench mixed_webhooks';
/** After the load: wait at least this long (the backlog 2 s later), at most DRAIN_MS for it to reach 0. */
const SETTLE_MS = 2000;
const DRAIN_MS = 15_000;

/** The receiver in a worker thread (tsx registered there too); resolves with its port once it listens. */
async function startReceiver(job: ReceiverJob) {
  const entry = new URL('./webhook-receiver.ts', import.meta.url).href;
  const worker = new Worker(
    `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(entry)}); })`,
    { eval: true, workerData: { receiver: job } },
  );
  type Message = { ready?: number; started?: number; record?: ReceiverRecord; error?: string };
  const next = <K extends keyof Message>(key: K) =>
    new Promise<NonNullable<Message[K]>>((resolve, reject) => {
      const onMessage = (m: Message) => {
        if (m.error) reject(new Error(`webhook receiver: ${m.error}`));
        else if (m[key] !== undefined) resolve(m[key] as NonNullable<Message[K]>);
        else return;
        worker.off('message', onMessage);
      };
      worker.on('message', onMessage);
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`webhook receiver exited (${code})`)));
    });
  const port = await next('ready');
  const send = (m: ReceiverCommand) => worker.postMessage(m);
  return {
    port,
    start: () => {
      const started = next('started');
      send({ cmd: 'start' });
      return started;
    },
    finish: () => {
      const record = next('record');
      send({ cmd: 'finish', settleMs: SETTLE_MS, drainMs: DRAIN_MS });
      return record;
    },
    close: () => worker.terminate().then(() => undefined),
  };
}

async function graphql<T>(server: Server, token: string, query: string, variables: object = {}): Promise<T> {
  const res = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as { data?: T; errors?: unknown };
  if (res.status !== 200 || body.errors || !body.data)
    throw new Error(`${query.slice(0, 60)}…: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
  return body.data;
}

/** Deletes the webhooks this bench created (a run that died leaves them, pointing at a closed port). */
async function deleteBenchWebhooks(server: Server, token: string): Promise<void> {
  const { webhooks } = await graphql<{ webhooks: Array<{ id: number; description: string | null }> }>(
    server,
    token,
    '{ webhooks { id description } }',
  );
  for (const w of webhooks.filter((w) => w.description === DESCRIPTION))
    await graphql(server, token, 'mutation($id:Int!){deleteWebhook(id:$id)}', { id: w.id });
}

/** Least-squares slope of the backlog over the load, events per second: > 0 is a backlog that grows. */
function slopePerSecond(samples: BacklogSample[]): number {
  if (samples.length < 2) return 0;
  const t0 = samples[0]!.t;
  const xs = samples.map((s) => (s.t - t0) / 1000);
  const ys = samples.map((s) => s.backlog);
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  let num = 0;
  let den = 0;
  for (const [i, x] of xs.entries()) {
    num += (x - mx) * (ys[i]! - my);
    den += (x - mx) ** 2;
  }
  return den === 0 ? 0 : Math.round((num / den) * 100) / 100;
}

/** The figures from the receiver's record (see the module's comment). */
export function webhookFigures(record: ReceiverRecord, hooks: number): WebhooksFigures {
  const during = record.samples.filter((s) => s.t < record.finishedAt);
  const after = record.samples.filter((s) => s.t >= record.finishedAt);
  const committed = Math.max(0, ...record.samples.map((s) => s.committed));
  const last = record.baseSeq + committed;
  const latencies: number[] = [];
  for (const hook of record.hooks)
    for (const [seq, at, arrived] of hook.first) if (seq > record.baseSeq && seq <= last) latencies.push(arrived - at);
  latencies.sort((a, b) => a - b);
  const drained = after.find((s) => s.backlog === 0);
  return {
    webhooks: hooks,
    events: committed,
    attempts_expected: committed * hooks,
    first_attempts: latencies.length,
    requests: record.hooks.reduce((n, h) => n + h.requests, 0),
    bad_requests: record.hooks.reduce((n, h) => n + h.bad_requests, 0),
    commit_to_attempt_p50_ms: round1(pct(latencies, 50)),
    commit_to_attempt_p99_ms: round1(pct(latencies, 99)),
    commit_to_attempt_max_ms: round1(latencies.at(-1) ?? 0),
    backlog_max: Math.max(0, ...record.samples.map((s) => s.backlog)),
    backlog_end: after[0]?.backlog ?? 0,
    backlog_after_2s: after.find((s) => s.t >= record.finishedAt + SETTLE_MS)?.backlog ?? after.at(-1)?.backlog ?? 0,
    backlog_slope_per_s: slopePerSecond(during),
    drained_ms: drained ? drained.t - record.finishedAt : null,
    backlog_samples: during.map((s) => s.backlog),
  };
}

const stage = (values: number[]): StageFigures => {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: round1(pct(sorted, 50)), p99: round1(pct(sorted, 99)), max: round1(sorted.at(-1) ?? 0) };
};

/**
 * Where each first attempt's time went, from pg-boss's job rows (kept after completion; a row per
 * webhook the job names): the event's `at` → its job queued (`created_on`: the dispatch round's
 * transaction), → taken by a worker (`started_on`), → at the receiver (the attempt's own statements
 * and the request). `hookIds[i]` is the id of the receiver's webhook i.
 */
export async function webhookStages(databaseUrl: string, record: ReceiverRecord, hookIds: number[]) {
  const committed = Math.max(0, ...record.samples.map((s) => s.committed));
  const arrivals = new Map<string, { at: number; arrived: number }>();
  for (const [i, hook] of record.hooks.entries())
    for (const [seq, at, arrived, id] of hook.first)
      if (seq > record.baseSeq && seq <= record.baseSeq + committed)
        arrivals.set(`${hookIds[i]}:${id}`, { at, arrived });
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ key: string; created: number; started: number | null; retries: number }>(
      `SELECT hook.id || ':' || (data->>'eventId') AS key, extract(epoch FROM created_on) * 1000 AS created,
              extract(epoch FROM started_on) * 1000 AS started, retry_count AS retries
         FROM pgboss.job, jsonb_array_elements_text(COALESCE(data->'webhookIds', jsonb_build_array(data->'webhookId'))) AS hook(id)
        WHERE name = 'webhook-deliveries' AND (data->>'try')::int = 1 AND data->>'eventId' = ANY($1::text[])`,
      [[...new Set([...arrivals.keys()].map((k) => k.slice(k.indexOf(':') + 1)))]],
    );
    const dispatch: number[] = [];
    const queued: number[] = [];
    const attempt: number[] = [];
    for (const row of rows) {
      const a = arrivals.get(row.key);
      if (!a || row.started === null) continue;
      dispatch.push(row.created - a.at);
      queued.push(row.started - row.created);
      attempt.push(a.arrived - row.started);
    }
    const stages: WebhookStages = {
      jobs: rows.length,
      jobs_retried: rows.filter((r) => r.retries > 0).length,
      dispatch_ms: stage(dispatch),
      queued_ms: stage(queued),
      attempt_ms: stage(attempt),
    };
    return stages;
  } finally {
    await client.end();
  }
}

/**
 * `mixed` with `hooks` webhooks; `without` is the plain `mixed` just before it (same sitting), whose
 * writes' latency is the reference.
 */
export async function mixedWebhooksScenario(
  databaseUrl: string,
  detailHot: Requests,
  itemsByHeat: number[],
  timing: Timing,
  hooks: number,
  without: LoadScenario,
): Promise<LoadScenario> {
  const { scenario, extra } = await mixedWith(databaseUrl, detailHot, itemsByHeat, timing, {
    env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' },
    async setup(writing, token) {
      await deleteBenchWebhooks(writing, token);
      const receiver = await startReceiver({ databaseUrl, hooks });
      const hookIds: number[] = [];
      try {
        for (let i = 0; i < hooks; i++) {
          const { createWebhook } = await graphql<{ createWebhook: { webhook: { id: number } } }>(
            writing,
            token,
            'mutation($input:CreateWebhookInput!){createWebhook(input:$input){webhook{id} secret}}',
            {
              input: { url: `http://127.0.0.1:${receiver.port}/hook/${i}`, events: ['*'], description: DESCRIPTION },
            },
          );
          hookIds.push(createWebhook.webhook.id);
        }
      } catch (err) {
        await receiver.close();
        throw err;
      }
      let started: Promise<number> | undefined;
      return {
        onMeasure: () => void (started = receiver.start()),
        async finish() {
          await started;
          const record = await receiver.finish();
          return { ...webhookFigures(record, hooks), stages: await webhookStages(databaseUrl, record, hookIds) };
        },
        async close() {
          await receiver.close();
          await deleteBenchWebhooks(writing, token);
        },
      };
    },
  });
  const figures = extra!;
  const ratio3 = (a: number, b: number) => Math.round((a / Math.max(0.1, b)) * 1000) / 1000;
  return {
    ...scenario,
    name: 'mixed_webhooks',
    ...figures,
    write_p50_ms_without: without.writes!.p50_ms,
    write_p50_ms_with: scenario.writes!.p50_ms,
    write_p99_ms_without: without.writes!.p99_ms,
    write_p99_ms_with: scenario.writes!.p99_ms,
    write_latency_ratio: ratio3(scenario.writes!.p99_ms, without.writes!.p99_ms),
    write_p50_ratio: ratio3(scenario.writes!.p50_ms, without.writes!.p50_ms),
  };
}
