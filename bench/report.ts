/**
 * The benchmark's results: the record written to bench/results/latest.json (latest-quick.json for
 * `--quick`) and the markdown table printed on stdout.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname } from 'node:path';
import pg from 'pg';
import type { Figures } from './load.ts';
import type { InstanceStaleness, StalenessResult } from './staleness.ts';

export type { Figures };

export interface Scenario {
  name: string;
  /** The catalogue cache of the service measured: `off` is CATALOG_CACHE_MB=0, `on` the default. */
  cache: 'off' | 'on';
  service: Figures;
  /** The floor on the same request sequence (null: no floor for this scenario). */
  floor: Figures | null;
  /** service req/s ÷ floor req/s. */
  ratio: number | null;
  /** Turns each of service and floor had, taking turns (bench/load.ts measureInTurns); 1: one stretch each. */
  turns?: number;
  // ---- mixed ----
  /** Service instances sharing the load (figures: requests summed, latencies over all of them). */
  instances?: number;
  rss_peak_mb_each?: number[];
  /** The largest staleness seen on each instance, ms (bench/staleness.ts says how it is measured). */
  staleness_ms?: { writing: number; other: number };
  staleness?: {
    write_every_ms: number;
    poll_ms: number;
    give_up_ms: number;
    writing: InstanceStaleness;
    other: InstanceStaleness;
  };
  writes?: StalenessResult['writes'];
  // ---- search ----
  /** Revision 2's substring search on the same keywords, answered by the floor (issue 18's reference). */
  reference?: Figures;
  /** service req/s ÷ reference req/s. */
  reference_ratio?: number;
  // ---- workers ----
  /** `detail` at WORKERS=1 and WORKERS=2 (`service` is the latter). */
  by_workers?: { '1': Figures; '2': Figures };
  /** WORKERS=2 req/s ÷ WORKERS=1 req/s. */
  workers_ratio?: number;
}

export interface Machine {
  date: string;
  mode: 'quick' | 'full' | 'million' | 'search';
  items: number;
  cpu: string;
  cores: number;
  memory_gb: number;
  node: string;
  postgres: string;
  connections: number;
  warmup_s: number;
  duration_s: number;
}

export interface BenchResult {
  machine: Machine;
  scenarios: Scenario[];
  /** Not measured by a `--million` run (search scenarios only). */
  startup?: { empty_ms: number; existing_ms: number };
  /** The relevance suite (bench/relevance-suite.ts): 60 queries over 360 items. */
  relevance?: { queries: number; mrr: number; precision_at_3: number; misses: string[] };
}

export const ratio = (a: number, b: number) => Math.round((a / Math.max(1, b)) * 100) / 100;

export async function describeMachine(
  databaseUrl: string,
  m: Pick<Machine, 'date' | 'mode' | 'items' | 'connections' | 'warmup_s' | 'duration_s'>,
): Promise<Machine> {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    const { rows } = await c.query<{ server_version: string }>('SHOW server_version');
    return {
      ...m,
      cpu: cpus()[0]?.model ?? 'unknown',
      cores: cpus().length,
      memory_gb: Math.round(totalmem() / 2 ** 30),
      node: process.version,
      postgres: rows[0]!.server_version,
    };
  } finally {
    await c.end();
  }
}

export function writeResult(file: string, result: BenchResult): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
}

const fmt = (n: number | null | undefined, digits = 0) => (n === null || n === undefined ? '–' : n.toFixed(digits));

function row(s: Scenario, who: string, f: Figures, ratioCell: string): string {
  return `| ${s.name} | ${s.cache} | ${who} | ${f.rps} | ${fmt(f.p50_ms, 1)} | ${fmt(f.p99_ms, 1)} | ${f.errors} | ${f.non_2xx} | ${f.cpu_us_per_req} | ${f.pg_cpu_us_per_req} | ${f.rss_peak_mb} | ${ratioCell} |`;
}

export function table(scenarios: Scenario[]): string {
  const lines = [
    '| scenario | cache | server | req/s | p50 ms | p99 ms | errors | non-2xx | CPU µs/req | PG CPU µs/req | peak RSS MB | ratio |',
    '|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const s of scenarios) {
    if (s.by_workers) {
      lines.push(row(s, 'service, WORKERS=1', s.by_workers['1'], ''));
      lines.push(row(s, 'service, WORKERS=2', s.by_workers['2'], `${fmt(s.workers_ratio, 2)} ×`));
    } else if (s.instances) {
      lines.push(row(s, `service ×${s.instances} instances`, s.service, '–'));
    } else {
      lines.push(row(s, 'service', s.service, fmt(s.ratio, 2)));
      if (s.floor) lines.push(row(s, 'floor', s.floor, ''));
      if (s.reference) {
        lines.push(
          row(s, 'floor, revision-2 substring SQL', s.reference, `${fmt(s.reference_ratio, 2)} × (service ÷ it)`),
        );
      }
    }
  }
  return lines.join('\n');
}

/** The lines under the table: what the ratio column means, mixed's writes and staleness. */
export function notes(result: BenchResult): string {
  const out = [
    "ratio: service ÷ floor in 2xx answers per second (the floor never caches; a 503 is not a served request); for workers, WORKERS=2 ÷ WORKERS=1; for search, also service ÷ revision 2's substring search (the floor's, same keywords).",
    "peak RSS: of the process that serves (a worker under its cluster primary); the primary, which serves nothing, is latest.json's rss_primary_mb.",
  ];
  const inTurns = result.scenarios.filter((s) => (s.turns ?? 1) > 1);
  const inOne = result.scenarios.filter((s) => s.turns === 1);
  if (inTurns.length)
    out.push(
      `turns: service and floor took ${inTurns[0]!.turns} turns each (A B B A …, bench/load.ts measureInTurns) in ${inTurns.map((s) => s.name).join(', ')}` +
        (inOne.length
          ? `; one stretch each, one after the other (requests too long for turns), in ${inOne.map((s) => s.name).join(', ')}.`
          : '.'),
    );
  for (const s of result.scenarios) {
    if (!s.staleness || !s.writes) continue;
    const { writing, other } = s.staleness;
    const one = (i: InstanceStaleness) =>
      `max ${i.max_ms} ms (≥ ${i.max_lower_ms} ms), p50 ${i.p50_ms} ms, ${i.writes_stale} of ${i.writes_seen} writes seen stale first, ${i.writes_unseen} never within ${s.staleness!.give_up_ms / 1000} s, ${i.read_errors} read errors`;
    out.push(
      `mixed: ${s.writes.count} writes (one every ${s.staleness.write_every_ms} ms, ${s.writes.errors} failed, ${s.writes.skipped} skipped, p50 ${s.writes.p50_ms} ms)` +
        `${s.writes.first_error ? ` — first failure: ${s.writes.first_error}` : ''}; RSS ${s.rss_peak_mb_each?.join(' / ')} MB.`,
      `  staleness on the writing instance: ${one(writing)}.`,
      `  staleness on the other instance:   ${one(other)}.`,
      `  (0 = the first read sent after the write's answer showed it; otherwise until the answer of the first read showing it, polled every ${s.staleness.poll_ms} ms.)`,
    );
  }
  const r = result.relevance;
  if (r) {
    out.push(
      `Relevance suite: ${r.queries} queries, MRR ${r.mrr.toFixed(3)}, precision@3 ${r.precision_at_3.toFixed(3)}` +
        (r.misses.length ? `; first answer wrong for: ${r.misses.join(', ')}.` : '; every first answer right.'),
    );
  }
  if (result.startup) {
    const { empty_ms, existing_ms } = result.startup;
    out.push(
      `Start-up to /readyz 200 on the embedded database: empty ${empty_ms} ms, existing data ${existing_ms} ms.`,
    );
  }
  const m = result.machine;
  out.push(
    `Machine: ${m.cpu}, ${m.cores} cores, ${m.memory_gb} GiB, Node ${m.node}, PostgreSQL ${m.postgres}; ${m.date}.`,
  );
  return out.join('\n');
}
