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
  return autocannon({
    // autocannon takes an array too (its types say string): client i connects to urls[i % urls.length].
    url: (urls.length === 1 ? urls[0] : urls) as string,
    connections,
    duration: seconds,
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
  });
}

export interface Measured {
  figures: Figures;
  /** Peak RSS of each server's serving process, MB (figures.rss_peak_mb is the largest). */
  rssPeakMb: number[];
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
  const meter = usageMeter(servers);
  opts.onMeasure?.();
  const result = await load(urls, requests(MEASURE_SEED), timing.duration, connections);
  const usage = meter.stop();
  if (result.non2xx || result.errors || result.timeouts) {
    const statuses = Object.entries(result.statusCodeStats ?? {}).map(([code, { count }]) => `${code}×${count}`);
    console.error(
      `bench:   ${servers.map((s) => s.name).join(' + ')}: ${result.errors} errors, ${result.timeouts} timeouts; statuses ${statuses.join(' ')}`,
    );
  }
  const requestsDone = Math.max(1, result.requests.total);
  return {
    figures: {
      rps: Math.round(result.requests.average),
      ok_rps: Math.round(result.requests.average * (1 - (result.non2xx + result.errors) / requestsDone)),
      p50_ms: result.latency.p50,
      p99_ms: result.latency.p99,
      errors: result.errors + result.timeouts,
      non_2xx: result.non2xx,
      cpu_us_per_req: Math.round(usage.cpuMicros / requestsDone),
      pg_cpu_us_per_req: Math.round(usage.pgCpuMicros / requestsDone),
      rss_peak_mb: Math.max(...usage.rssPeakMb),
      ...(usage.rssPrimaryMb.some((mb) => mb !== undefined)
        ? { rss_primary_mb: Math.max(...usage.rssPrimaryMb.map((mb) => mb ?? 0)) }
        : {}),
    },
    rssPeakMb: usage.rssPeakMb,
  };
}
