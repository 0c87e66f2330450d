/**
 * Plumbing for `npm run soak` (bench/soak.ts): the throw-away database, the service process, the
 * `/healthz` probe (in its own thread, so the load generator's event loop cannot slow it down), the
 * RSS sampler and small statistics helpers.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { Worker } from 'node:worker_threads';
import pg from 'pg';
import { buildOnce, type ServiceProcess, startProcess } from '../test/helpers/service-process.ts';
import { BENCH_WORDS, catalogueSql } from './data.ts';
import { listeningSocket, processTree, rssMb, waitForWorkers } from './proc.ts';

export const ROOT = new URL('../', import.meta.url).pathname;

// ---------- statistics ----------

export { rng } from './random.ts';

export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return 0;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

/** What one kind of load did: counts by status, connection errors by cause, latencies. */
export class Tally {
  readonly status: Record<string, number> = {};
  readonly errors: Record<string, number> = {};
  /** Answers that broke the contract but are not errors (wrong 4xx, missing problem+json, …). */
  readonly deviations: Record<string, number> = {};
  private readonly latencies: number[] = [];

  /** Adds another tally's counts (latencies included). */
  add(other: Tally): void {
    for (const [k, v] of Object.entries(other.status)) this.status[k] = (this.status[k] ?? 0) + v;
    for (const [k, v] of Object.entries(other.errors)) this.errors[k] = (this.errors[k] ?? 0) + v;
    for (const [k, v] of Object.entries(other.deviations)) this.deviations[k] = (this.deviations[k] ?? 0) + v;
    for (const ms of other.latencies) this.latencies.push(ms);
  }

  /** `status` is an HTTP status, or a word for an outcome without one (`closed`). */
  answer(status: number | string, ms: number): void {
    this.status[status] = (this.status[status] ?? 0) + 1;
    this.latencies.push(ms);
  }
  error(cause: string, ms: number): void {
    this.errors[cause] = (this.errors[cause] ?? 0) + 1;
    this.latencies.push(ms);
  }
  deviation(what: string): void {
    this.deviations[what] = (this.deviations[what] ?? 0) + 1;
  }
  get requests(): number {
    return this.latencies.length;
  }
  get connectionErrors(): number {
    return Object.values(this.errors).reduce((a, b) => a + b, 0);
  }
  get serverErrors(): number {
    return Object.entries(this.status).reduce((n, [s, c]) => (Number(s) >= 500 ? n + c : n), 0);
  }
  summary() {
    const sorted = [...this.latencies].sort((a, b) => a - b);
    return {
      requests: this.requests,
      errors: this.serverErrors + this.connectionErrors,
      status: { ...this.status },
      connection_errors: { ...this.errors },
      non_2xx: Object.entries(this.status).reduce((n, [s, c]) => (/^2\d\d$/.test(s) ? n : n + c), 0),
      p50_ms: round1(percentile(sorted, 50)),
      p99_ms: round1(percentile(sorted, 99)),
      max_ms: round1(sorted.at(-1) ?? 0),
      deviations: { ...this.deviations },
    };
  }
}

export const round1 = (n: number) => Math.round(n * 10) / 10;

// ---------- database ----------

export interface SoakDatabase {
  /** The URL the service gets. */
  url: string;
  drop(): Promise<void>;
}

/** Drops and recreates `name` on the server that `serverUrl` points at. */
export async function recreateDatabase(serverUrl: string, name: string): Promise<SoakDatabase> {
  const quoted = `"${name.replaceAll('"', '""')}"`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 5000 });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  try {
    await admin(`DROP DATABASE IF EXISTS ${quoted} WITH (FORCE)`);
    await admin(`CREATE DATABASE ${quoted}`);
  } catch (err) {
    throw new Error(
      `cannot (re)create database ${name} on ${redact(serverUrl)}: ${(err as Error).message}\n` +
        '  (is PostgreSQL running? set SOAK_DATABASE_URL to a server where this user may create databases)',
    );
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  let dropped = false;
  return {
    url: url.toString(),
    drop: async () => {
      if (dropped) return;
      dropped = true;
      await admin(`DROP DATABASE IF EXISTS ${quoted} WITH (FORCE)`);
    },
  };
}

export const redact = (url: string) => url.replace(/\/\/[^@/]*@/, '//');

/** Words that occur in the seeded item names, for keyword searches. */
export const SOAK_WORDS = BENCH_WORDS;

export interface SeedAccount {
  username: string;
  password: string;
  passwordHash: string;
}

/**
 * A modest catalogue on the database the service has just migrated (the benchmark's shape, bench/data.ts):
 * 4 departments with 3 shelves each, `items` items (1–3 SKUs and 2 images each), and the given customers.
 */
export async function seedCatalogue(
  url: string,
  items: number,
  customers: SeedAccount[],
): Promise<{ categoryIds: number[] }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query(catalogueSql({ departments: 4, shelves: 12, items, tag: 'soak', skuPrefix: 'SOAK' }));
    for (const c of customers) {
      await client.query(
        `INSERT INTO customers (username, password_hash, nickname, created_at, updated_at) VALUES ($1, $2, $3, now(), now())`,
        [c.username, c.passwordHash, c.username.split('@')[0]],
      );
    }
    await client.query('COMMIT');
    await client.query('ANALYZE');
    const { rows } = await client.query<{ id: number }>('SELECT id FROM categories ORDER BY id');
    return { categoryIds: rows.map((r) => r.id) };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw new Error(`seeding the soak catalogue failed (has the schema changed?): ${(err as Error).message}`);
  } finally {
    await client.end();
  }
}

// ---------- the service ----------

export interface Service extends ServiceProcess {
  /** Log lines at level error or fatal (pino 50/60), the first 10 of them, and how many. */
  errorLines(): { count: number; first: string[] };
}

/** `npm start`'s prestart step: the bundle of the source as it is now. */
export const build = buildOnce;

const OUTPUT_KEEP = 64 * 1024;

/**
 * Runs what `npm start` runs (test/helpers/service-process.ts) and waits for `/readyz` 200 and for
 * all `workers` to serve; keeps the last 64 KiB of output.
 */
export async function startService(env: Record<string, string>, workers: number, timeoutMs = 60_000): Promise<Service> {
  let errorCount = 0;
  const firstErrors: string[] = [];
  const s = await startProcess({
    env,
    timeoutMs,
    ready: 'readyz',
    keepOutput: OUTPUT_KEEP,
    onLine: (line) => {
      if (/"level":\s*(50|60)\b/.test(line) || /^\s*(Error|TypeError|RangeError)\b|uncaught/i.test(line)) {
        errorCount++;
        if (firstErrors.length < 10) firstErrors.push(line.slice(0, 2000));
      }
    },
  });
  await waitForWorkers(s.pid, s.port, workers);
  return { ...s, errorLines: () => ({ count: errorCount, first: [...firstErrors] }) };
}

/** Sends SIGTERM and waits up to `graceMs` for the exit; SIGKILL after that. */
export async function stopService(
  s: Service,
  graceMs: number,
): Promise<{ code: number | null; signal: string | null; ms: number; killed: boolean }> {
  const started = performance.now();
  const done = s.exited();
  if (done) return { code: done.code, signal: done.signal, ms: 0, killed: false };
  await s.stop(graceMs);
  const exit = s.exited()!;
  return {
    code: exit.code,
    signal: exit.signal,
    ms: Math.round(performance.now() - started),
    killed: exit.signal === 'SIGKILL',
  };
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

// ---------- plain HTTP ----------

export interface Answer {
  status?: number;
  error?: string;
  ms: number;
  body: string;
  headers: http.IncomingHttpHeaders;
}

/** One request on a fresh connection (no keep-alive agent): status, body (first 64 KiB) and time. */
export function request(
  url: string,
  opts: {
    method?: string;
    path: string;
    headers?: Record<string, string | string[]>;
    body?: string | Buffer;
    timeoutMs?: number;
  },
): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    const finish = (a: Omit<Answer, 'ms'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...a, ms: performance.now() - started });
    };
    const req = http.request(
      new URL(opts.path, url),
      { method: opts.method ?? 'GET', headers: opts.headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (d: Buffer) => {
          if (size < 65536) chunks.push(d);
          size += d.length;
        });
        res.on('end', () =>
          finish({ status: res.statusCode, body: Buffer.concat(chunks).toString(), headers: res.headers }),
        );
        res.on('error', () =>
          finish({ status: res.statusCode, body: Buffer.concat(chunks).toString(), headers: res.headers }),
        );
      },
    );
    const timeoutMs = opts.timeoutMs ?? 10_000;
    const timer = setTimeout(() => {
      req.destroy();
      finish({ error: `no answer within ${timeoutMs} ms`, body: '', headers: {} });
    }, timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) => finish({ error: err.code ?? err.message, body: '', headers: {} }));
    req.end(opts.body);
  });
}

// ---------- /healthz probe ----------

export interface ProbeResult {
  /** When the probe was sent (ms since the epoch, fractional). */
  at: number;
  ms: number;
  status?: number;
  error?: string;
  /** true for the diagnostic series on one kept-alive connection (the contract's probe is fresh). */
  keepAlive?: boolean;
}

/**
 * The probe runs in a worker thread: every `intervalMs` it opens a fresh connection, calls
 * `/healthz` and records the time to the end of the answer (giving up after `giveUpMs`).
 * Probes do not wait for each other, so a stalled server shows as a run of slow probes.
 * A second, diagnostic series asks the same on one kept-alive connection (one request at a time):
 * when only the fresh probes are slow, connections wait to be accepted; when both are, the
 * service's event loop is stalled.
 */
const PROBE_CODE = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const { port, intervalMs, giveUpMs } = workerData;
const results = [];
let inflight = 0;
let stopping = false;
function maybeDone() {
  if (stopping && inflight === 0) parentPort.postMessage(results);
}
const keepAliveAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
let keepAliveBusy = false;
function probe(keepAlive) {
  if (keepAlive && keepAliveBusy) return;
  const started = performance.now();
  let done = false;
  inflight++;
  if (keepAlive) keepAliveBusy = true;
  const finish = (status, error) => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    inflight--;
    if (keepAlive) keepAliveBusy = false;
    results.push({ at: performance.timeOrigin + started, ms: performance.now() - started, status, error, keepAlive });
    maybeDone();
  };
  const options = keepAlive
    ? { host: '127.0.0.1', port, path: '/healthz', agent: keepAliveAgent }
    : { host: '127.0.0.1', port, path: '/healthz', agent: false, headers: { connection: 'close' } };
  const req = http.request(options, (res) => {
    res.resume();
    res.on('end', () => finish(res.statusCode));
    res.on('error', (e) => finish(res.statusCode, e.code || e.message));
  });
  const timer = setTimeout(() => { req.destroy(); finish(undefined, 'no answer within ' + giveUpMs + ' ms'); }, giveUpMs);
  req.on('error', (e) => finish(undefined, e.code || e.message));
  req.end();
}
const interval = setInterval(() => { probe(false); probe(true); }, intervalMs);
probe(false);
parentPort.on('message', () => {
  clearInterval(interval);
  keepAliveAgent.destroy();
  stopping = true;
  maybeDone();
});
`;

export function startProbe(port: number, intervalMs: number, giveUpMs: number): { stop(): Promise<ProbeResult[]> } {
  const worker = new Worker(PROBE_CODE, { eval: true, workerData: { port, intervalMs, giveUpMs } });
  const results = new Promise<ProbeResult[]>((resolve, reject) => {
    worker.once('message', (r: ProbeResult[]) => resolve(r));
    worker.once('error', reject);
  });
  return {
    async stop() {
      worker.postMessage('stop');
      const r = await results;
      await worker.terminate();
      return r;
    },
  };
}

// ---------- the kernel ----------

/**
 * TcpExt ListenOverflows from /proc/net/netstat: connections the kernel dropped because a listening
 * socket's accept queue was full (machine-wide). Each one costs its client a SYN retransmit (1 s,
 * then 3 s, 7 s, …), which is how a busy accept loop turns into multi-second connects.
 */
export function listenOverflows(): number | undefined {
  try {
    const lines = readFileSync('/proc/net/netstat', 'utf8').split('\n');
    const i = lines.findIndex((l) => l.startsWith('TcpExt:'));
    const names = lines[i]!.split(/\s+/);
    const values = lines[i + 1]!.split(/\s+/);
    const at = names.indexOf('ListenOverflows');
    return at > 0 ? Number(values[at]) : undefined;
  } catch {
    return undefined;
  }
}

// ---------- memory ----------

/**
 * Samples every `everyMs` the resident memory of `pid` and its descendants (workers), and the
 * accept queue of the socket listening on `port`.
 */
export function serviceSampler(pid: number, port: number, everyMs: number) {
  const sample = () => rssMb(processTree(pid));
  const first = sample();
  let peak = first;
  let last = first;
  let processes = processTree(pid).length;
  let queuePeak = 0;
  const timer = setInterval(() => {
    const tree = processTree(pid);
    last = rssMb(tree);
    processes = Math.max(processes, tree.length);
    peak = Math.max(peak, last);
    queuePeak = Math.max(queuePeak, listeningSocket(port)?.acceptQueue ?? 0);
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return {
        start_mb: Math.round(first),
        peak_mb: Math.round(peak),
        end_mb: Math.round(last),
        processes,
        accept_queue_peak: queuePeak,
      };
    },
  };
}
