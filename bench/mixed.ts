/**
 * The `mixed` scenario: two service instances (two processes, one database, cache on, one worker
 * each) share the `detail_hot` load, half the connections each, while an admin renames a random hot
 * item every 50 ms through GraphQL `updateItem` on the first — the writing instance. A worker thread
 * (bench/staleness.ts) writes and measures, per instance, how long each write took to show.
 */
import { randomBytes } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { MIXED_NAME_PREFIX, restoreRenamedItems } from './data.ts';
import { measure, type Timing } from './load.ts';
import type { LoadScenario } from './report.ts';
import type { Requests } from './requests.ts';
import { adminToken, type Server, startBenchService, stopAll } from './servers.ts';
import type { InstanceStaleness, StalenessJob, StalenessResult } from './staleness.ts';

/**
 * BENCH_MIXED_WRITE_EVERY_MS: another writer's pace, to see a figure with the writes below the
 * machine's write capacity (docs/performance.md, issue 38); the results record the pace used.
 */
export const WRITE_EVERY_MS = Number(process.env.BENCH_MIXED_WRITE_EVERY_MS ?? 50);
if (!(WRITE_EVERY_MS > 0)) throw new Error('BENCH_MIXED_WRITE_EVERY_MS: a number of milliseconds > 0');
const POLL_MS = 10;
const GIVE_UP_MS = 10_000;
/** Writes go to a random one of the hottest items (enough of them for the writes in flight: ~1 s each under load). */
const HOT_WRITTEN = 100;

/**
 * Runs bench/staleness.ts in a worker thread (tsx registered there too: workers do not inherit
 * `--import`); resolves once it is loaded. `start()` starts the writes, `stop()` ends them.
 */
async function startStalenessWorker(job: StalenessJob): Promise<{ start(): void; stop(): Promise<StalenessResult> }> {
  const entry = new URL('./staleness.ts', import.meta.url).href;
  const worker = new Worker(
    `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(entry)}); })`,
    {
      eval: true,
      workerData: { staleness: job },
    },
  );
  let ready!: () => void;
  const loaded = new Promise<void>((resolve) => (ready = resolve));
  const answer = new Promise<StalenessResult>((resolve, reject) => {
    worker.on('message', (m: { ready?: true; result?: StalenessResult; error?: string }) => {
      if (m.ready) ready();
      else if (m.result) resolve(m.result);
      else reject(new Error(`staleness worker: ${m.error}`));
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`staleness worker exited (${code}) without a result`)));
  });
  await Promise.race([loaded, answer]);
  return {
    start: () => worker.postMessage('start'),
    async stop() {
      worker.postMessage('stop');
      try {
        return await answer;
      } finally {
        await worker.terminate();
      }
    },
  };
}

/**
 * What a variant of `mixed` adds around it (bench/mixed-webhooks.ts): the instances' environment, and
 * once both are up, a setup whose `onMeasure` runs as the measured load starts and `finish` once the
 * load is over and its writes answered (before the instances stop); `close` runs in any case.
 */
export interface MixedVariant<T> {
  env: Record<string, string>;
  setup(writing: Server, token: string): Promise<{ onMeasure(): void; finish(): Promise<T>; close(): Promise<void> }>;
}

export async function mixedScenario(
  databaseUrl: string,
  detailHot: Requests,
  itemsByHeat: number[],
  timing: Timing,
): Promise<LoadScenario> {
  return (await mixedWith(databaseUrl, detailHot, itemsByHeat, timing)).scenario;
}

/** `mixed`, with a variant's additions (none: plain `mixed`); answers the variant's `finish` too. */
export async function mixedWith<T>(
  databaseUrl: string,
  detailHot: Requests,
  itemsByHeat: number[],
  timing: Timing,
  variant?: MixedVariant<T>,
): Promise<{ scenario: LoadScenario; extra?: T }> {
  let writing: Server | undefined;
  let other: Server | undefined;
  let staleness: Awaited<ReturnType<typeof startStalenessWorker>> | undefined;
  let added: Awaited<ReturnType<MixedVariant<T>['setup']>> | undefined;
  try {
    // One after the other: the first prepares the database (migrations, bootstrap admin).
    const opts = { cache: 'on' as const, workers: 1, env: variant?.env };
    writing = await startBenchService('service (writing)', databaseUrl, opts);
    other = await startBenchService('service (other)', databaseUrl, opts);
    const token = await adminToken(writing);
    added = await variant?.setup(writing, token);
    const job: StalenessJob = {
      writerUrl: writing.url,
      instances: [
        { name: 'writing', url: writing.url },
        { name: 'other', url: other.url },
      ],
      token,
      itemIds: itemsByHeat.slice(0, HOT_WRITTEN),
      namePrefix: `${MIXED_NAME_PREFIX}${randomBytes(3).toString('hex')} `,
      everyMs: WRITE_EVERY_MS,
      pollMs: POLL_MS,
      giveUpMs: GIVE_UP_MS,
      seed: 7,
    };
    staleness = await startStalenessWorker(job);
    const measured = await measure([writing, other], detailHot, timing, {
      onMeasure: () => {
        staleness!.start();
        added?.onMeasure();
      },
    });
    const result = await staleness.stop();
    staleness = undefined;
    const extra = await added?.finish();
    const [w, o] = result.instances as [InstanceStaleness, InstanceStaleness];
    const scenario: LoadScenario = {
      name: 'mixed',
      cache: 'on',
      service: measured.figures,
      floor: null,
      ratio: null,
      instances: 2,
      rss_peak_mb_each: measured.rssPeakMb,
      staleness_ms: { writing: w.max_ms, other: o.max_ms },
      staleness: { write_every_ms: WRITE_EVERY_MS, poll_ms: POLL_MS, give_up_ms: GIVE_UP_MS, writing: w, other: o },
      writes: result.writes,
    };
    return { scenario, extra };
  } finally {
    await staleness?.stop().catch(() => undefined);
    await added?.close().catch(() => undefined);
    await stopAll([writing, other]);
    // Put the renamed items back as filled, so every later run (and scenario) reads the same data.
    await restoreRenamedItems(databaseUrl);
  }
}
