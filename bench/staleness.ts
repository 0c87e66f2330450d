/**
 * The `mixed` scenario's writer and staleness checker, in a worker thread of its own (bench/mixed.ts
 * starts it), so the load generator's busy event loop does not delay its clocks.
 *
 * Writer: every `everyMs`, on a fixed schedule whatever the answers' latency, an admin renames a
 * random hot item through GraphQL `updateItem` on the writing instance, to a unique name
 * `<prefix><run> <n>`; an item with a write in flight is not drawn, so later writes of an item are
 * always the newer name.
 * Checker (bench/staleness-checker.ts): after each write's answer, every instance is read until it
 * shows the write.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { rng } from './random.ts';
import { Checker, type InstanceStaleness, pct, round1, sleep } from './staleness-checker.ts';

export type { InstanceStaleness };

export interface StalenessJob {
  writerUrl: string;
  instances: { name: string; url: string }[];
  token: string;
  itemIds: number[];
  /** Names written are `${namePrefix}${n}`. */
  namePrefix: string;
  everyMs: number;
  pollMs: number;
  giveUpMs: number;
  seed: number;
}

export interface StalenessResult {
  /** Writes sent; failed; ticks skipped because the items drawn all had a write in flight. */
  writes: { count: number; errors: number; skipped: number; p50_ms: number; p99_ms: number; first_error?: string };
  instances: InstanceStaleness[];
}

const UPDATE = 'mutation($id:Int!,$name:String!){updateItem(id:$id,input:{name:$name}){id name}}';

async function run(job: StalenessJob, started: Promise<void>, stopped: Promise<void>): Promise<StalenessResult> {
  const checkers = job.instances.map((i) => new Checker(i.name, i.url, job));
  const r = rng(job.seed);
  let stopping = false;
  void stopped.then(() => (stopping = true));
  const latencies: number[] = [];
  let errors = 0;
  let skipped = 0;
  let firstError: string | undefined;
  /** Items with a write in flight: never written twice at once, so a later write is always the newer name. */
  const busy = new Set<number>();
  const inflight = new Set<Promise<void>>();

  const write = async (id: number, n: number) => {
    const name = `${job.namePrefix}${n}`;
    const sent = performance.now();
    try {
      const res = await fetch(`${job.writerUrl}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${job.token}` },
        body: JSON.stringify({ query: UPDATE, variables: { id, name } }),
      });
      const body = (await res.json()) as { data?: { updateItem?: { name?: string } }; errors?: unknown };
      const answeredAt = performance.now();
      if (res.status !== 200 || body.errors || body.data?.updateItem?.name !== name)
        throw new Error(`${res.status} ${JSON.stringify(body).slice(0, 300)}`);
      latencies.push(answeredAt - sent);
      for (const c of checkers) c.add(id, n, answeredAt);
    } catch (err) {
      errors++;
      firstError ??= (err as Error).message;
    }
  };
  const freeItem = () => {
    for (let tries = 0; tries < 20; tries++) {
      const id = job.itemIds[Math.floor(r() * job.itemIds.length)]!;
      if (!busy.has(id)) return id;
    }
    return undefined;
  };

  await started;
  const t0 = performance.now();
  // On a schedule, not one after the other: a write slowed by the load does not delay the next.
  for (let k = 0, n = 0; ; k++) {
    const wait = t0 + k * job.everyMs - performance.now();
    if (wait > 0) await Promise.race([sleep(wait), stopped]);
    if (stopping) break;
    k = Math.max(k, Math.floor((performance.now() - t0) / job.everyMs)); // late: skip the missed ticks, never bunch
    const id = freeItem();
    if (id === undefined) {
      skipped++;
      continue;
    }
    busy.add(id);
    const done: Promise<void> = write(id, ++n).finally(() => {
      busy.delete(id);
      inflight.delete(done);
    });
    inflight.add(done);
  }
  await Promise.all([...inflight]);
  latencies.sort((a, b) => a - b);
  return {
    writes: {
      count: latencies.length + errors,
      errors,
      skipped,
      p50_ms: round1(pct(latencies, 50)),
      p99_ms: round1(pct(latencies, 99)),
      first_error: firstError,
    },
    instances: await Promise.all(checkers.map((c) => c.result())),
  };
}

// Started by bench/mixed.ts: says 'ready' once loaded, writes from 'start' until 'stop', then waits
// for the checks and posts the result.
if (parentPort && (workerData as { staleness?: StalenessJob } | undefined)?.staleness) {
  const port = parentPort;
  const message = (what: string) => new Promise<void>((resolve) => port.on('message', (m) => m === what && resolve()));
  void run((workerData as { staleness: StalenessJob }).staleness, message('start'), message('stop')).then(
    (result) => port.postMessage({ result }),
    (err: Error) => port.postMessage({ error: err.stack ?? err.message }),
  );
  port.postMessage({ ready: true });
}
