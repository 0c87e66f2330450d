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

/** A scenario of the results: a load measured (most), or an import or export timed (bench/transfer.ts). */
export type Scenario = LoadScenario | TransferScenario;

/** `mixed_webhooks` (bench/mixed-webhooks.ts): deliveries to a local receiver during `mixed`. */
export interface WebhooksFigures {
  webhooks: number;
  /** Events committed during the run (one per write), and first attempts expected (× webhooks) and received. */
  events: number;
  attempts_expected: number;
  first_attempts: number;
  /** Requests the receiver got (retries included); ones without a `webhook-id`, `seq` or `timestamp`. */
  requests: number;
  bad_requests: number;
  /** Event `at` → the receiver's first request with its `webhook-id`, per event × webhook, ms. */
  commit_to_attempt_p50_ms: number;
  commit_to_attempt_p99_ms: number;
  commit_to_attempt_max_ms: number;
  /** Events committed since the load started not yet received by every webhook: sampled each second. */
  backlog_max: number;
  /** At the load's end (its writes answered), and 2 s later. */
  backlog_end: number;
  backlog_after_2s: number;
  /** Least-squares slope of the backlog over the load, events/s (> 0: growing). */
  backlog_slope_per_s: number;
  /** From the load's end until the backlog was 0 (null: not within 15 s). */
  drained_ms: number | null;
  backlog_samples: number[];
  stages?: WebhookStages;
}

export interface StageFigures {
  p50: number;
  p99: number;
  max: number;
}

/** Where the first attempts' time went (bench/mixed-webhooks.ts webhookStages), from pg-boss's job rows. */
export interface WebhookStages {
  /** First-try jobs of the run's events found, and of them retried (their attempt threw). */
  jobs: number;
  jobs_retried: number;
  /** Event `at` → job queued (the dispatch round). */
  dispatch_ms: StageFigures;
  /** Job queued → taken by a worker. */
  queued_ms: StageFigures;
  /** Taken → the request at the receiver (the attempt's statements and the request). */
  attempt_ms: StageFigures;
}

/** A request load on the service (and the floor): autocannon's figures. */
export interface LoadScenario extends Partial<WebhooksFigures> {
  /** Absent in the file: only transfer scenarios name their kind. */
  kind?: 'load';
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
  // ---- mixed_webhooks (and WebhooksFigures) ----
  /** The writes' latency in the plain `mixed` just before (without) and in this run (with), ms. */
  write_p50_ms_without?: number;
  write_p50_ms_with?: number;
  write_p99_ms_without?: number;
  write_p99_ms_with?: number;
  /** write_p99_ms_with ÷ write_p99_ms_without (contract §14.2: within 5 %). */
  write_latency_ratio?: number;
  write_p50_ratio?: number;
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

/** Import/export counts of an Import (contract §13.2). */
export interface ImportCounts {
  created: number;
  updated: number;
  unchanged: number;
  failed: number;
}

/** What an import or an export of the whole catalogue took (bench/transfer.ts, contract §13.4). */
interface TransferFigures {
  kind: 'transfer';
  /** The service's catalogue cache (`off`: CATALOG_CACHE_MB=0). */
  cache: 'off' | 'on';
  /** `postgres`: WORKERS=1 on PostgreSQL; `embedded`: `npm start` on PGlite (one process). */
  database: 'postgres' | 'embedded';
  items: number;
  /** CSV rows (one per SKU), the header not counted. */
  rows: number;
  /** The file's size. */
  bytes: number;
  /** From the first byte sent (import) or the request (export) to the end. */
  seconds: number;
  items_per_s: number;
  rows_per_s: number;
  /** Peak RSS of the process that serves (and, alone, runs the job: the embedded database), MB. */
  rss_peak_mb: number;
  /** With a cluster: peak RSS of the background process, which runs the job (src/process/background.ts), MB. */
  rss_background_peak_mb?: number;
  /** Peak RSS of all the service's processes together (primary and workers), MB. */
  rss_total_peak_mb: number;
  /** CPU seconds of the service's processes, and of every PostgreSQL process on the machine. */
  cpu_s: number;
  pg_cpu_s: number;
}

/** `import` (PostgreSQL) and `import_embedded`: N items × 2 SKUs into an empty catalogue. */
export interface ImportScenario extends TransferFigures {
  name: 'import' | 'import_embedded';
  /** Until the 202 came back: the upload, streamed and stored. */
  upload_seconds: number;
  /** The Import's own times: created_at → started_at (waiting for a worker), started_at → finished_at. */
  queued_seconds: number;
  run_seconds: number;
  /**
   * The longest `rows_done` stood still while the import ran (staging included), as seen by polls
   * every 250 ms: contract §13.2 wants it to grow at least once a second.
   */
  progress_max_gap_s: number;
  /** Each stretch over 1 s: how long, and `rows_done` when it moved again (where in the file it stood). */
  progress_stalls?: Array<{ seconds: number; rows_done: number }>;
  counts: ImportCounts;
  /**
   * PostgreSQL: CPU seconds of the backends connected to the import's database (the service's own
   * statements — the detail reads' during the import included — where pg_cpu_s counts every PostgreSQL
   * process of a shared server), and CPU ms per item of the service and those backends together.
   */
  pg_database_cpu_s?: number;
  cpu_ms_per_item?: number;
  // ---- import (PostgreSQL) only ----
  /** The same file again (every item `unchanged`), without reads meanwhile. */
  reimport_seconds?: number;
  reimport_counts?: ImportCounts;
  reimport_cpu_s?: number;
  reimport_pg_cpu_s?: number;
  reimport_pg_database_cpu_s?: number;
  reimport_cpu_ms_per_item?: number;
  /** `detail` (cache off, paced: detail_pace) on the imported items, the service otherwise idle. */
  detail_p99_idle_ms?: number;
  /** The same while the first import runs, on the items imported so far. */
  detail_p99_during_ms?: number;
  detail_pace?: { connections: number; rate: number };
  detail_idle?: Figures;
  detail_during?: Figures;
}

/** `export`: `GET /admin/api/exports/items?format=csv` of the imported catalogue, read to the end. */
export interface ExportScenario extends TransferFigures {
  name: 'export';
  mb_per_s: number;
}

export type TransferScenario = ImportScenario | ExportScenario;

export interface Machine {
  date: string;
  mode: 'quick' | 'full' | 'million' | 'search' | 'transfer' | 'webhooks';
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
  /** The relevance suite (bench/relevance-suite.ts): 79 queries over 360 items. */
  relevance?: { queries: number; mrr: number; precision_at_3: number; misses: string[] };
  /** Scenarios that could not run on this build, and why (the export route before it exists). */
  skipped?: Array<{ name: string; reason: string }>;
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

/** The stretches over 1 s, as ` (over 1 s: 3.1 s before row 4,000, …)`; nothing when there were none. */
const stalls = (list: Array<{ seconds: number; rows_done: number }> | undefined) =>
  list?.length
    ? ` (over 1 s: ${list.map((st) => `${fmt(st.seconds, 1)} s before row ${st.rows_done.toLocaleString('en-US')}`).join(', ')})`
    : '';

function row(s: LoadScenario, who: string, f: Figures, ratioCell: string): string {
  return `| ${s.name} | ${s.cache} | ${who} | ${f.rps} | ${fmt(f.p50_ms, 1)} | ${fmt(f.p99_ms, 1)} | ${f.errors} | ${f.non_2xx} | ${f.cpu_us_per_req} | ${f.pg_cpu_us_per_req} | ${f.rss_peak_mb} | ${ratioCell} |`;
}

export function table(scenarios: Scenario[]): string {
  const lines = [
    '| scenario | cache | server | req/s | p50 ms | p99 ms | errors | non-2xx | CPU µs/req | PG CPU µs/req | peak RSS MB | ratio |',
    '|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const s of scenarios) {
    if (s.kind === 'transfer') continue;
    if (s.by_workers) {
      lines.push(row(s, 'service, WORKERS=1', s.by_workers['1'], ''));
      lines.push(row(s, 'service, WORKERS=2', s.by_workers['2'], `${fmt(s.workers_ratio, 2)} ×`));
    } else if (s.instances) {
      const hooks = s.webhooks ? `, ${s.webhooks} webhooks` : '';
      lines.push(row(s, `service ×${s.instances} instances${hooks}`, s.service, '–'));
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
  const transfers = scenarios.filter((s) => s.kind === 'transfer');
  if (!transfers.length) return lines.join('\n');
  // A `--transfer` run has no load scenario: its table alone.
  return [...(lines.length > 2 ? [...lines, ''] : []), transferTable(transfers)].join('\n');
}

/** Imports and exports: a table of their own (they are timed, not loaded). */
function transferTable(scenarios: TransferScenario[]): string {
  const lines = [
    '| scenario | database | items | rows | file MB | seconds | items/s | rows/s | peak RSS MB serving / background (all processes) | CPU s / PG CPU s | re-import s | detail p99 ms idle → during |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const s of scenarios) {
    const imported = s.name === 'export' ? undefined : s;
    const detail =
      imported?.detail_p99_idle_ms === undefined
        ? '–'
        : `${fmt(imported.detail_p99_idle_ms, 1)} → ${fmt(imported.detail_p99_during_ms, 1)}`;
    lines.push(
      `| ${s.name} | ${s.database} | ${s.items} | ${s.rows} | ${fmt(s.bytes / 2 ** 20, 1)} | ${fmt(s.seconds, 1)} | ${s.items_per_s} | ${s.rows_per_s} | ${s.rss_peak_mb} / ${s.rss_background_peak_mb ?? '–'} (${s.rss_total_peak_mb}) | ${fmt(s.cpu_s, 1)} / ${fmt(s.pg_cpu_s, 1)} | ${fmt(imported?.reimport_seconds, 1)} | ${detail} |`,
    );
  }
  return lines.join('\n');
}

/** The lines under the table: what the ratio column means, mixed's writes and staleness. */
export function notes(result: BenchResult): string {
  const out = [
    "ratio: service ÷ floor in 2xx answers per second (the floor never caches; a 503 is not a served request); for workers, WORKERS=2 ÷ WORKERS=1; for search, also service ÷ revision 2's substring search (the floor's, same keywords).",
    "peak RSS: of the process that serves (a worker under its cluster primary); the primary, which serves nothing, is latest.json's rss_primary_mb.",
  ];
  const loads = result.scenarios.filter((s) => s.kind !== 'transfer');
  const inTurns = loads.filter((s) => (s.turns ?? 1) > 1);
  const inOne = loads.filter((s) => s.turns === 1);
  if (inTurns.length)
    out.push(
      `turns: service and floor took ${inTurns[0]!.turns} turns each (A B B A …, bench/load.ts measureInTurns) in ${inTurns.map((s) => s.name).join(', ')}` +
        (inOne.length
          ? `; one stretch each, one after the other (requests too long for turns), in ${inOne.map((s) => s.name).join(', ')}.`
          : '.'),
    );
  for (const s of result.scenarios) {
    if (s.kind === 'transfer' || !s.staleness || !s.writes) continue;
    if (s.webhooks !== undefined) {
      out.push(webhooksNote(s));
      continue;
    }
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
  out.push(...transferNotes(result));
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

const stage = (f: StageFigures) => `${f.p50} / ${f.p99} / ${f.max}`;

/** `mixed_webhooks`: deliveries, backlog and the writes' latency against the plain `mixed` before it. */
function webhooksNote(s: LoadScenario): string {
  return (
    `mixed_webhooks: ${s.webhooks} webhooks (events *) on a local receiver, a write every ${s.staleness?.write_every_ms} ms; ${s.events} events, ` +
    `${s.first_attempts} of ${s.attempts_expected} first attempts received (${s.requests} requests, ${s.bad_requests} malformed); ` +
    `commit → first attempt p50 ${s.commit_to_attempt_p50_ms} ms, p99 ${s.commit_to_attempt_p99_ms} ms, max ${s.commit_to_attempt_max_ms} ms; ` +
    `backlog max ${s.backlog_max}, at the end ${s.backlog_end}, 2 s later ${s.backlog_after_2s}, slope ${s.backlog_slope_per_s}/s, ` +
    `0 after ${s.drained_ms === null ? 'more than 15 s' : `${s.drained_ms} ms`}; ` +
    `writes (${s.writes!.count}, ${s.writes!.errors} failed) p99 ${s.write_p99_ms_with} ms vs ${s.write_p99_ms_without} ms without = ${s.write_latency_ratio} ×, ` +
    `p50 ${s.write_p50_ms_with} vs ${s.write_p50_ms_without} ms = ${s.write_p50_ratio} ×.` +
    (s.stages
      ? `\n  where it went (p50 / p99 / max ms): commit → job queued ${stage(s.stages.dispatch_ms)}; queued → taken by a worker ${stage(s.stages.queued_ms)}; ` +
        `taken → at the receiver ${stage(s.stages.attempt_ms)} (${s.stages.jobs} jobs, ${s.stages.jobs_retried} retried).`
      : '')
  );
}

/** What the transfer table's figures are, and each import's counts and detail figures. */
function transferNotes(result: BenchResult): string[] {
  const out: string[] = [];
  const transfers = result.scenarios.filter((s) => s.kind === 'transfer');
  if (transfers.length) {
    out.push(
      'import / export (bench/transfer.ts): a CSV of N items × 2 SKUs streamed as the body of POST /admin/api/imports into an empty catalogue, ' +
        'timed from the first byte until the import is seen finished (polled every 250 ms); re-import: the same file again (every item unchanged); ' +
        'export: GET /admin/api/exports/items?format=csv of that catalogue, read to the end. Peak RSS: the serving worker that ran the job (all the service’s processes summed).',
    );
  }
  const counts = (c: ImportCounts) =>
    `created ${c.created}, updated ${c.updated}, unchanged ${c.unchanged}, failed ${c.failed}`;
  for (const s of transfers) {
    if (s.name === 'export') continue;
    out.push(
      `${s.name}: ${fmt(s.seconds, 1)} s = upload ${fmt(s.upload_seconds, 1)} s, queued ${fmt(s.queued_seconds, 1)} s, running ${fmt(s.run_seconds, 1)} s (the Import's times); rows_done stood still ≤ ${fmt(s.progress_max_gap_s, 1)} s at a time${stalls(s.progress_stalls)}; ${counts(s.counts)}` +
        (s.reimport_counts ? `; re-import: ${counts(s.reimport_counts)}` : '') +
        '.',
    );
    if (s.cpu_ms_per_item !== undefined) {
      out.push(
        `  CPU per item (the service + its database's backends): ${fmt(s.cpu_ms_per_item, 2)} ms (service ${fmt(s.cpu_s, 1)} s, backends ${fmt(s.pg_database_cpu_s, 1)} s)` +
          (s.reimport_cpu_ms_per_item !== undefined
            ? `; re-import ${fmt(s.reimport_cpu_ms_per_item, 2)} ms (service ${fmt(s.reimport_cpu_s, 1)} s, backends ${fmt(s.reimport_pg_database_cpu_s, 1)} s)`
            : '') +
          '.',
      );
    }
    if (s.detail_idle && s.detail_during && s.detail_pace) {
      const f = (x: Figures) =>
        `${x.rps} req/s, p50 ${fmt(x.p50_ms, 1)} ms, p99 ${fmt(x.p99_ms, 1)} ms, ${x.errors} errors, ${x.non_2xx} non-2xx`;
      out.push(
        `  detail (cache off, ${s.detail_pace.connections} connections at ${s.detail_pace.rate} req/s): idle after the import ${f(s.detail_idle)}; during the import ${f(s.detail_during)}.`,
      );
    }
  }
  for (const skip of result.skipped ?? []) out.push(`${skip.name}: not measured — ${skip.reason}.`);
  return out;
}
