/**
 * Load: autocannon drives one or more servers with a request sequence (bench/requests.ts) — a
 * warm-up, then the measured run, during which the servers' CPU and RSS are sampled.
 */
import autocannon from 'autocannon';
import type { Requests, Sequence } from './requests.ts';
import { type Server, usageMeter } from './servers.ts';

export const CONNECTIONS = 64;
export const LOGIN_CONNECTIONS = 8;
/** Seeds of the warm-up's and the measured run's sequences: the same for every server. */
const WARMUP_SEED = 42;
const MEASURE_SEED = 4242;

export interface Figures {
  rps: number;
  /** Answers per second that were 2xx (a ratio compares these: a fast 503 is not a served request). */
  ok_rps: number;
  p50_ms: number;
  p99_ms: number;
  errors: number;
  non_2xx: number;
  cpu_us_per_req: number;
  pg_cpu_us_per_req: number;
  /** Peak RSS of the serving process (the worker, with a cluster), MB. */
  rss_peak_mb: number;
  /** Peak RSS of the cluster primary, MB, when there is one (it serves nothing). */
  rss_primary_mb?: number;
  /** The background process's peak RSS (imports, deliveries; src/process/background.ts), MB. */
  rss_background_mb?: number;
}

export interface Timing {
  warmup: number;
  duration: number;
}

/** `connections` keep-alive connections for `seconds`; with several URLs the connections are dealt out in turn. */
export async function load(
  urls: string[],
  next: Sequence,
  seconds: number,
  connections: number,
): Promise<autocannon.Result> {
  return autocannon(loadOptions(urls, next, seconds, connections));
}

/** What load() gives autocannon; `overallRate` caps the requests per second of all connections together. */
function loadOptions(
  urls: string[],
  next: Sequence,
  seconds: number,
  connections: number,
  overallRate?: number,
): autocannon.Options {
  return {
    // autocannon takes an array too (its types say string): client i connects to urls[i % urls.length].
    url: (urls.length === 1 ? urls[0] : urls) as string,
    connections,
    ...(overallRate ? { overallRate } : {}),
    duration: seconds,
    // Raw counts and the encoded latency histogram: several stretches are added up (figuresOf).
    skipAggregateResult: true,
    requests: [
      {
        setupRequest: (req: autocannon.Request) => {
          const spec = next();
          return {
            ...req,
            method: (spec.method ?? 'GET') as autocannon.Request['method'],
            path: spec.path,
            body: spec.body,
            headers: { ...(spec.headers ?? {}) },
          };
        },
      },
    ],
  };
}

/** What autocannon returns with `skipAggregateResult` (its types describe only the aggregated form). */
interface RawResult {
  totalCompletedRequests: number;
  /** Seconds the run lasted (it ends on autocannon's next one-second tick after `duration`). */
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodeStats: Record<string, { count: number }>;
}
// autocannon exports it (README "autocannon.aggregateResult"); @types/autocannon does not declare it.
const { aggregateResult } = autocannon as unknown as {
  aggregateResult(results: RawResult[], opts: { url: string; connections: number }): autocannon.Result;
};

export interface Measured {
  figures: Figures;
  /** Peak RSS of each server's serving process, MB (figures.rss_peak_mb is the largest). */
  rssPeakMb: number[];
}

type Usage = ReturnType<ReturnType<typeof usageMeter>['stop']>;
/** One stretch of load on a set of servers: what autocannon counted and what the servers used. */
interface Stretch {
  result: RawResult;
  usage: Usage;
}

/** One stretch of `seconds` on `servers`, metered; `onMeasure` runs just before the load starts. */
async function stretch(
  servers: Server[],
  next: Sequence,
  seconds: number,
  connections: number,
  onMeasure?: () => void,
): Promise<Stretch> {
  const meter = usageMeter(servers);
  onMeasure?.();
  const result = (await load(
    servers.map((s) => s.url),
    next,
    seconds,
    connections,
  )) as unknown as RawResult;
  return { result, usage: meter.stop() };
}

/** The figures of one or more stretches on the same servers, as one measurement. */
function figuresOf(servers: Server[], stretches: Stretch[], connections: number): Measured {
  const merged = aggregateResult(
    stretches.map((s) => s.result),
    { url: servers[0]!.url, connections },
  );
  const seconds = stretches.reduce((sum, s) => sum + s.result.duration, 0);
  const requestsDone = Math.max(
    1,
    stretches.reduce((sum, s) => sum + s.result.totalCompletedRequests, 0),
  );
  const errors = merged.errors + merged.timeouts;
  if (merged.non2xx || errors) {
    const statuses = Object.entries(merged.statusCodeStats ?? {}).map(([code, { count }]) => `${code}×${count}`);
    console.error(
      `bench:   ${servers.map((s) => s.name).join(' + ')}: ${merged.errors} errors, ${merged.timeouts} timeouts; statuses ${statuses.join(' ')}`,
    );
  }
  const sum = (of: (u: Usage) => number) => stretches.reduce((total, s) => total + of(s.usage), 0);
  const rssPeakMb = servers.map((_, i) => Math.max(...stretches.map((s) => s.usage.rssPeakMb[i]!)));
  const primaries = stretches.flatMap((s) => s.usage.rssPrimaryMb).filter((mb) => mb !== undefined);
  const backgrounds = stretches.flatMap((s) => s.usage.rssBackgroundMb).filter((mb) => mb !== undefined);
  const rps = requestsDone / Math.max(seconds, 0.001);
  return {
    figures: {
      rps: Math.round(rps),
      ok_rps: Math.round(rps * (1 - (merged.non2xx + merged.errors) / requestsDone)),
      p50_ms: merged.latency.p50,
      p99_ms: merged.latency.p99,
      errors,
      non_2xx: merged.non2xx,
      cpu_us_per_req: Math.round(sum((u) => u.cpuMicros) / requestsDone),
      pg_cpu_us_per_req: Math.round(sum((u) => u.pgCpuMicros) / requestsDone),
      rss_peak_mb: Math.max(...rssPeakMb),
      ...(primaries.length ? { rss_primary_mb: Math.max(...primaries) } : {}),
      ...(backgrounds.length ? { rss_background_mb: Math.max(...backgrounds) } : {}),
    },
    rssPeakMb,
  };
}

/**
 * Warms up, then measures `servers` (one, or several sharing the connections) under `requests`.
 * `onMeasure` is called just before the measured run starts (the `mixed` scenario's writer).
 */
export async function measure(
  servers: Server[],
  requests: Requests,
  timing: Timing,
  opts: { connections?: number; onMeasure?: () => void } = {},
): Promise<Measured> {
  const connections = opts.connections ?? CONNECTIONS;
  const urls = servers.map((s) => s.url);
  // No warm-up in quick mode (the test suite's): its figures only prove the scenario runs.
  if (timing.warmup > 0) await load(urls, requests(WARMUP_SEED), timing.warmup, connections);
  const measured = await stretch(servers, requests(MEASURE_SEED), timing.duration, connections, opts.onMeasure);
  return figuresOf(servers, [measured], connections);
}

/** Seconds of one turn when two servers take turns (measureInTurns). */
const TURN_SECONDS = 2;
/**
 * Turns are taken only when a request is short against a turn (warm-up p99 at most this): the
 * requests in flight when a turn ends are lost, and their work spills into the other's turn.
 */
const TURN_MAX_P99_MS = TURN_SECONDS * 1000 * 0.05;

/**
 * The warm-up's p99 as turnsFor reads it: a warm-up in which no request completed (facets at 1,000,000
 * items: each takes seconds, and 64 of them queue) has an empty histogram, whose p99 reads 0 — the
 * longest requests of all, not the shortest.
 */
export const warmUpP99 = (completed: number, p99Ms: number): number =>
  completed > 0 ? p99Ms : Number.POSITIVE_INFINITY;

/** How many turns each server gets in `seconds` when the warm-up's p99 was `p99Ms` (1: one stretch each). */
export function turnsFor(seconds: number, p99Ms: number): number {
  return seconds >= 2 * TURN_SECONDS && p99Ms <= TURN_MAX_P99_MS ? Math.round(seconds / TURN_SECONDS) : 1;
}

/** The stretches of `turns` turns each, in order: [turn, server], A B, B A, A B, … (server 0 is A). */
export function turnOrder(turns: number): Array<[number, 0 | 1]> {
  const order: Array<[number, 0 | 1]> = [];
  for (let turn = 0; turn < turns; turn++) {
    // Each pair of turns in the order opposite to the last: a steady drift falls on both alike.
    const [first, second]: [0 | 1, 0 | 1] = turn % 2 === 0 ? [0, 1] : [1, 0];
    order.push([turn, first], [turn, second]);
  }
  return order;
}

/**
 * Two servers (the service and the floor) on the same requests, for a ratio between them: each is
 * warmed up, then they take turns of TURN_SECONDS until each has had `timing.duration` seconds, in
 * the order A B B A A B B A … (each turn's requests from the same seed for both). This shared,
 * 2-core machine's speed drifts by a quarter within a minute — measured: the floor alone, four times
 * 5 s apart, 4,583–7,222 req/s — so one server's 10 s followed by the other's compared two different
 * machines; in turns both see the same drift, and the A B B A order cancels a steady one. Scenarios
 * whose requests take long (list, facets: p99 of seconds) would lose their work in flight at every
 * turn's end: they keep one stretch each, one after the other. `settle` runs before every stretch.
 */
export async function measureInTurns(
  servers: [Server, Server],
  requests: Requests,
  timing: Timing,
  settle: () => Promise<void>,
): Promise<{ figures: [Figures, Figures]; turns: number }> {
  let slowest = 0;
  for (const server of servers) {
    if (timing.warmup === 0) continue;
    await settle();
    // As measure's warm-up: unmetered, its errors not reported; only its p99 is read.
    const warm = (await load([server.url], requests(WARMUP_SEED), timing.warmup, CONNECTIONS)) as unknown as RawResult;
    const p99 = aggregateResult([warm], { url: server.url, connections: CONNECTIONS }).latency.p99;
    slowest = Math.max(slowest, warmUpP99(warm.totalCompletedRequests, p99));
  }
  const turns = turnsFor(timing.duration, slowest);
  const seconds = turns === 1 ? timing.duration : TURN_SECONDS;
  const stretches: [Stretch[], Stretch[]] = [[], []];
  for (const [turn, i] of turnOrder(turns)) {
    await settle();
    stretches[i].push(await stretch([servers[i]], requests(MEASURE_SEED + turn), seconds, CONNECTIONS));
  }
  return {
    figures: [
      figuresOf([servers[0]], stretches[0], CONNECTIONS).figures,
      figuresOf([servers[1]], stretches[1], CONNECTIONS).figures,
    ],
    turns,
  };
}

/** A paced load: `connections` connections sending at most `rate` requests a second between them. */
export interface Pace {
  connections: number;
  rate: number;
}

/** The same paced load on `servers` for `seconds` (no warm-up), metered. */
export async function measurePaced(servers: Server[], next: Sequence, pace: Pace, seconds: number): Promise<Measured> {
  return measureUntil(servers, next, pace, new Promise((resolve) => setTimeout(resolve, seconds * 1000)));
}

/**
 * A paced load on `servers` from now until `until` settles (it ends on autocannon's next one-second
 * tick after that), metered like measure(): what a shopper's reads see while something else runs.
 */
export async function measureUntil(
  servers: Server[],
  next: Sequence,
  pace: Pace,
  until: Promise<unknown>,
): Promise<Measured> {
  const meter = usageMeter(servers);
  // The callback form returns the instance, whose stop() ends the run (the promise form has no stop()).
  let instance!: autocannon.Instance;
  const done = new Promise<RawResult>((resolve, reject) => {
    instance = autocannon(
      loadOptions(
        servers.map((s) => s.url),
        next,
        24 * 3600,
        pace.connections,
        pace.rate,
      ),
      (err, result) => (err ? reject(err) : resolve(result as unknown as RawResult)),
    );
  });
  const stop = () => instance.stop();
  until.then(stop, stop);
  const result = await done;
  return figuresOf(servers, [{ result, usage: meter.stop() }], pace.connections);
}
