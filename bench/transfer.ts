/**
 * The `import` and `export` scenarios (contract §13.4, issue 36): bulk transfer of a whole catalogue
 * through the service as a user drives it.
 *
 * 1. A CSV file of N items × 2 SKUs is written to a temporary file (the bench catalogue's proportions
 *    and words: bench/data.ts — category paths `Department 3 帐篷 > Fleece 13`, `spec:color` and
 *    `spec:size`, names mixing Latin and Chinese words, two images, a description).
 * 2. `import` (PostgreSQL): a fresh, empty database `<bench database>_import` (a copy of its migrated
 *    template, `…_import_template`, which is kept), the service on it as in production (WORKERS=1, cache off). The file is streamed as the body of `POST /admin/api/imports`
 *    and the import polled every 250 ms until it ends; created must be N. Meanwhile a paced `detail`
 *    load (4 connections, 200 req/s together) reads the items imported so far — from the first
 *    committed batch to the end. Then the same load on the whole catalogue with the service idle (the
 *    idle p99: after the import rather than before, so that both read the same service, code and
 *    kind of data — the catalogue is empty before). Then the same file again, without reads: every
 *    item must be `unchanged`. RSS of every process of the service is sampled throughout.
 * 3. `export`: `GET /admin/api/exports/items?format=csv` of that catalogue, read to the end (bytes
 *    and rows counted, 2N rows expected). A build without the route (404) skips it, saying so.
 * 4. `import_embedded` (not in quick mode): the same file into `npm start` on a fresh DATA_DIR (PGlite).
 *
 * The database and the data directory are removed afterwards, whatever happened.
 */
import { once } from 'node:events';
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { openDatabase } from '../src/db/database.ts';
import { applyMigrations, readMigrations } from '../src/db/migrate.ts';
import { csvHeader } from '../src/transfer/item-file.ts';
import { CJK, LATIN, maintenanceUrl } from './data.ts';
import { type Figures, measurePaced, measureUntil, type Pace } from './load.ts';
import { rng } from './random.ts';
import type { ExportScenario, ImportCounts, ImportScenario, TransferScenario } from './report.ts';
import type { Sequence } from './requests.ts';
import { adminToken, type Server, startBenchService, startEmbeddedBenchService, usageMeter } from './servers.ts';

/** `{ [key]: value }`, or nothing for a figure the run has not got (no background process: embedded). */
const optional = <K extends string>(key: K, value: number | undefined) =>
  (value === undefined ? {} : { [key]: value }) as Partial<Record<K, number>>;

/** SKUs (CSV rows) per item. */
const SKUS = 2;
/** The reads during and after the import: a few shoppers, not a load test (the import would starve). */
const DETAIL_PACE: Pace = { connections: 4, rate: 200 };
const POLL_MS = 250;
/** An import not over after this long fails the run (the embedded target is 4 min for 100,000 items). */
const IMPORT_TIMEOUT_MS = 30 * 60_000;
const EXPORT_PATH = '/admin/api/exports/items';

export interface TransferOptions {
  /** The benchmark's database: the import's is `<its name>_import` on the same server. */
  benchUrl: string;
  items: number;
  /** Seconds of the idle `detail` measurement. */
  idleSeconds: number;
  /** Also the embedded database (`import_embedded`). */
  embedded: boolean;
  log: (message: string) => void;
}

export interface TransferResult {
  scenarios: TransferScenario[];
  skipped: Array<{ name: string; reason: string }>;
}

// ---- the file ----

const cap = (w: string) => w[0]!.toUpperCase() + w.slice(1);
const latin = (n: number) => LATIN[n % LATIN.length]!;
const cjk = (n: number) => CJK[n % CJK.length]!;
const cell = (text: string) => (/[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text);
const money = (cents: number) => (cents / 100).toFixed(2);

/** The columns of the service's item files (src/transfer/item-file.ts), with the bench's two spec names. */
export const FILE_COLUMNS = csvHeader(['color', 'size']);

/**
 * Item i's rows, as the bench catalogue fills it (bench/data.ts catalogueSql: the same name, shelf,
 * price and stock formulas; 10 departments, 40 shelves under them), with two SKUs.
 */
export function itemRows(i: number): string[][] {
  const shelf = 11 + ((i * 17) % 40);
  const department = 1 + ((shelf - 11) % 10);
  const cents = ((i * 7919) % 99999) + 100;
  const name = `${cap(latin(i * 7))} ${cjk(i * 3)} ${latin(i * 11)} ${i}`;
  const item = [
    `bench-${i}`,
    name,
    `A ${latin(i * 5)} for the ${latin(i * 13)}, with ${cjk(i * 7)} and ${cjk(i)}: 轻便、耐用，适合${cjk(i * 9)}。`,
    `Department ${department} ${cjk(department - 1)} > ${cap(latin(shelf))} ${shelf}`,
    'active',
    '',
    '',
    money(cents),
    String((i * 31) % 500),
    `https://cdn.example.com/import/${i}-0.jpg | https://cdn.example.com/import/${i}-1.jpg`,
  ];
  return Array.from({ length: SKUS }, (_, k) => {
    const s = k + 1;
    const sku = [
      `IMP-${i}-${s}`,
      money(cents + k * 100),
      String((i * s) % 100),
      ['red', 'blue', '黑色'][i % 3]!,
      ['S', 'M', 'L'][k]!,
    ];
    // Every row names its item; the other item columns are on its first row only (as export writes).
    return [...(k === 0 ? item : [item[0]!, ...item.slice(1).map(() => '')]), ...sku];
  });
}

/** Writes the file of `items` items to `path` (streamed, never whole in memory); its size and rows. */
export async function writeItemFile(path: string, items: number): Promise<{ bytes: number; rows: number }> {
  const out = createWriteStream(path);
  const line = (cells: string[]) => `${cells.map(cell).join(',')}\n`;
  let chunk = line(FILE_COLUMNS);
  let rows = 0;
  for (let i = 1; i <= items; i++) {
    for (const row of itemRows(i)) {
      chunk += line(row);
      rows++;
    }
    if (chunk.length > 256 * 1024 || i === items) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.end();
  await once(out, 'finish');
  return { bytes: out.bytesWritten, rows };
}

// ---- the import's HTTP ----

interface ImportAnswer {
  id: number;
  status: 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';
  rows_total: number | null;
  rows_done: number;
  items: ImportCounts;
  errors: Array<{ row: number; handle: string | null; field: string | null; message: string }>;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

/** Seconds between two of the Import's timestamps (0 when one is missing). */
const between = (from: string | null, to: string | null) =>
  from && to ? (Date.parse(to) - Date.parse(from)) / 1000 : 0;

const processed = (a: ImportAnswer) => a.items.created + a.items.updated + a.items.unchanged + a.items.failed;

/** POST /admin/api/imports with the file streamed as the body; the 202's Import. */
function postFile(server: Server, token: string, path: string, bytes: number): Promise<ImportAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${server.url}/admin/api/imports?format=csv`,
      {
        method: 'POST',
        headers: { 'content-type': 'text/csv', 'content-length': String(bytes), authorization: `Bearer ${token}` },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          if (res.statusCode !== 202)
            reject(new Error(`POST /admin/api/imports: ${res.statusCode} ${text.slice(0, 500)}`));
          else resolve(JSON.parse(text) as ImportAnswer);
        });
      },
    );
    req.on('error', reject);
    pipeline(createReadStream(path), req).catch(reject);
  });
}

/** Polls the import every POLL_MS until it has ended; `onProgress` sees every answer. */
async function importEnded(
  server: Server,
  token: string,
  id: number,
  onProgress: (a: ImportAnswer) => void,
): Promise<ImportAnswer> {
  const until = performance.now() + IMPORT_TIMEOUT_MS;
  for (;;) {
    const res = await fetch(`${server.url}/admin/api/imports/${id}`, { headers: { authorization: `Bearer ${token}` } });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`GET /admin/api/imports/${id}: ${res.status} ${text.slice(0, 500)}`);
    const answer = JSON.parse(text) as ImportAnswer;
    onProgress(answer);
    if (answer.status !== 'queued' && answer.status !== 'running') return answer;
    if (server.exited()) throw new Error(`${server.name} exited during import ${id}:\n${server.output().slice(-3000)}`);
    if (performance.now() > until) throw new Error(`import ${id} still ${answer.status} after ${IMPORT_TIMEOUT_MS} ms`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** Fails loudly unless the import succeeded with every item counted as `expected`. */
function assertImport(what: string, answer: ImportAnswer, items: number, rows: number, expected: keyof ImportCounts) {
  const counts = answer.items;
  const others = (Object.keys(counts) as Array<keyof ImportCounts>).filter((k) => k !== expected && counts[k] !== 0);
  if (answer.status !== 'succeeded' || counts[expected] !== items || others.length || answer.rows_done !== rows) {
    throw new Error(
      `${what}: expected ${items} items ${expected} over ${rows} rows, got ${answer.status}, rows_done ${answer.rows_done}, ` +
        `${JSON.stringify(counts)}; first errors: ${JSON.stringify(answer.errors.slice(0, 5))}`,
    );
  }
}

interface TimedImport {
  answer: ImportAnswer;
  seconds: number;
  uploadSeconds: number;
  usage: ReturnType<ReturnType<typeof usageMeter>['stop']>;
  /** The detail load meanwhile, when asked for and the import lasted past its first batch. */
  during?: Figures;
  /** The longest time `rows_done` stood still while the import ran, as the polls saw it. */
  progressMaxGapSeconds: number;
  /** Each time it stood still over 1 s: how long, and the rows done when it moved again. */
  progressStalls: Array<{ seconds: number; rowsDone: number }>;
}

/**
 * Sends the file and waits for the import to end, metering the service; with `reads`, a paced
 * `detail` load on the items imported so far (ids 1…, the catalogue having been empty) runs from the
 * first committed batch until the import ends.
 */
async function timedImport(
  server: Server,
  token: string,
  file: { path: string; bytes: number; rows: number },
  log: (message: string) => void,
  reads: boolean,
  database?: string,
): Promise<TimedImport> {
  const meter = usageMeter([server], database);
  const began = performance.now();
  const started = await postFile(server, token, file.path, file.bytes);
  const uploadSeconds = (performance.now() - began) / 1000;
  let itemsDone = 0;
  let firstBatch!: () => void;
  const committed = new Promise<void>((resolve) => (firstBatch = resolve));
  let nextLog = 0.1;
  // Contract §13.2: `rows_done` grows at least once a second while running (staging included).
  let rowsSeen = 0;
  let since: number | undefined;
  let maxGap = 0;
  const stalls: TimedImport['progressStalls'] = [];
  let over = false;
  const ended = importEnded(server, token, started.id, (a) => {
    const now = performance.now();
    over = a.status !== 'queued' && a.status !== 'running';
    if (since === undefined && a.status !== 'queued') since = now;
    if (since !== undefined && a.rows_done !== rowsSeen) {
      maxGap = Math.max(maxGap, now - since);
      if (now - since > 1000) stalls.push({ seconds: round1((now - since) / 1000), rowsDone: a.rows_done });
      since = now;
      rowsSeen = a.rows_done;
    }
    itemsDone = processed(a);
    if (itemsDone > 0) firstBatch();
    if (a.rows_total && a.rows_done / a.rows_total >= nextLog) {
      log(`  ${Math.floor((a.rows_done / a.rows_total) * 100)} % (${a.rows_done} of ${a.rows_total} rows)`);
      nextLog = Math.floor((a.rows_done / a.rows_total) * 10) / 10 + 0.1;
    }
  });
  const detail: Sequence = (() => {
    const r = rng(4242);
    return () => ({ path: `/api/v1/items/${1 + Math.floor(r() * Math.max(1, itemsDone))}` });
  })();
  const reading = reads
    ? // Not when the poll that saw the first batch saw the end too (a small import).
      Promise.race([committed.then(() => true), ended.then(() => false)]).then((go) =>
        go && !over ? measureUntil([server], detail, DETAIL_PACE, ended) : undefined,
      )
    : Promise.resolve(undefined);
  try {
    const answer = await ended;
    const seconds = (performance.now() - began) / 1000;
    const during = await reading;
    return {
      answer,
      seconds,
      uploadSeconds,
      usage: meter.stop(),
      during: during?.figures,
      progressMaxGapSeconds: maxGap / 1000,
      progressStalls: stalls,
    };
  } finally {
    // A failed poll must not leave the load running or its promise unobserved.
    await reading.catch(() => undefined);
  }
}

// ---- the databases ----

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;
const databaseName = (url: string) => decodeURIComponent(new URL(url).pathname.slice(1));

/** `<bench database>_import` on the bench's server. */
export function importDatabaseUrl(benchUrl: string): string {
  const url = new URL(benchUrl);
  url.pathname = `/${encodeURIComponent(`${databaseName(benchUrl)}_import`)}`;
  return url.toString();
}

/** One statement on the server's own database (creating or dropping others). */
async function onServer(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: maintenanceUrl(url) });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

const dropDatabase = (url: string) =>
  onServer(url, `DROP DATABASE IF EXISTS ${quoted(databaseName(url))} WITH (FORCE)`);

/**
 * A fresh database at `url`, as the service's migrations leave an empty one: a copy of
 * `<name>_template`, which is migrated here first (kept between runs: the migrations took ~5 s of a
 * start on an empty database, and only those not yet applied run). It holds no rows (no admin, no
 * catalogue): the service creates its bootstrap admin as on any empty database.
 */
async function freshDatabase(url: string): Promise<void> {
  const template = new URL(url);
  template.pathname = `/${encodeURIComponent(`${databaseName(url)}_template`)}`;
  const templateName = databaseName(template.toString());
  const client = new pg.Client({ connectionString: maintenanceUrl(url) });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [templateName]);
    if (!rowCount) await client.query(`CREATE DATABASE ${quoted(templateName)}`);
    const db = await openDatabase({ kind: 'postgres', url: template.toString(), poolSize: 1 });
    try {
      await applyMigrations(db.sql, await readMigrations());
    } finally {
      await db.close();
    }
    await client.query(`DROP DATABASE IF EXISTS ${quoted(databaseName(url))} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${quoted(databaseName(url))} TEMPLATE ${quoted(templateName)}`);
  } finally {
    await client.end();
  }
}

// ---- the scenarios ----

const perSecond = (n: number, seconds: number) => Math.round(n / Math.max(seconds, 0.001));
const round1 = (n: number) => Math.round(n * 10) / 10;
const cpuSeconds = (micros: number) => round1(micros / 1e6);
/** CPU ms per item, to two decimals. */
const cpuPerItem = (micros: number, items: number) => Math.round(micros / 10 / Math.max(items, 1)) / 100;

function importFigures(
  name: ImportScenario['name'],
  database: ImportScenario['database'],
  cache: ImportScenario['cache'],
  items: number,
  file: { bytes: number; rows: number },
  run: TimedImport,
): ImportScenario {
  return {
    kind: 'transfer',
    name,
    cache,
    database,
    items,
    rows: file.rows,
    bytes: file.bytes,
    seconds: round1(run.seconds),
    items_per_s: perSecond(items, run.seconds),
    rows_per_s: perSecond(file.rows, run.seconds),
    rss_peak_mb: run.usage.rssPeakMb[0]!,
    ...optional('rss_background_peak_mb', run.usage.rssBackgroundMb[0]),
    rss_total_peak_mb: run.usage.rssTreePeakMb[0]!,
    cpu_s: cpuSeconds(run.usage.cpuMicros),
    pg_cpu_s: cpuSeconds(run.usage.pgCpuMicros),
    ...(run.usage.pgDatabaseCpuMicros === undefined
      ? {}
      : {
          pg_database_cpu_s: cpuSeconds(run.usage.pgDatabaseCpuMicros),
          cpu_ms_per_item: cpuPerItem(run.usage.cpuMicros + run.usage.pgDatabaseCpuMicros, items),
        }),
    upload_seconds: round1(run.uploadSeconds),
    queued_seconds: round1(between(run.answer.created_at, run.answer.started_at)),
    run_seconds: round1(between(run.answer.started_at, run.answer.finished_at)),
    progress_max_gap_s: round1(run.progressMaxGapSeconds),
    progress_stalls: run.progressStalls.map((st) => ({ seconds: st.seconds, rows_done: st.rowsDone })),
    counts: run.answer.items,
  };
}

/** GET the export, counting bytes and lines as they arrive; the body is not kept. */
function download(
  server: Server,
  token: string,
): Promise<{ status: number; bytes: number; lines: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      `${server.url}${EXPORT_PATH}?format=csv`,
      { headers: { authorization: `Bearer ${token}` } },
      (res) => {
        let bytes = 0;
        let lines = 0;
        let text = '';
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, at + 1)) lines++;
          if (res.statusCode !== 200 && text.length < 2000) text += chunk.toString();
        });
        res.on('error', reject);
        res.on('aborted', () => reject(new Error(`${EXPORT_PATH}: the transfer broke off after ${bytes} bytes`)));
        res.on('end', () => {
          if (!res.complete) reject(new Error(`${EXPORT_PATH}: the transfer broke off after ${bytes} bytes`));
          else resolve({ status: res.statusCode ?? 0, bytes, lines, text });
        });
      },
    );
    req.on('error', reject);
  });
}

/** `export` of the service's catalogue of `items` items; `skipped` with the reason when the route is missing. */
async function exportScenario(
  server: Server,
  token: string,
  items: number,
): Promise<ExportScenario | { skipped: string }> {
  const meter = usageMeter([server]);
  const began = performance.now();
  const got = await download(server, token);
  const seconds = (performance.now() - began) / 1000;
  const usage = meter.stop();
  if (got.status === 404) return { skipped: `GET ${EXPORT_PATH} answered 404 (not in this build)` };
  if (got.status !== 200) throw new Error(`GET ${EXPORT_PATH}: ${got.status} ${got.text.slice(0, 500)}`);
  // A header line, then one line per SKU (the bench's cells hold no line break).
  const rows = got.lines - 1;
  if (rows !== items * SKUS) throw new Error(`export: expected ${items * SKUS} rows, got ${rows} (${got.bytes} bytes)`);
  return {
    kind: 'transfer',
    name: 'export',
    cache: 'off',
    database: 'postgres',
    items,
    rows,
    bytes: got.bytes,
    seconds: round1(seconds),
    items_per_s: perSecond(items, seconds),
    rows_per_s: perSecond(rows, seconds),
    mb_per_s: round1(got.bytes / 2 ** 20 / Math.max(seconds, 0.001)),
    rss_peak_mb: usage.rssPeakMb[0]!,
    ...optional('rss_background_peak_mb', usage.rssBackgroundMb[0]),
    rss_total_peak_mb: usage.rssTreePeakMb[0]!,
    cpu_s: cpuSeconds(usage.cpuMicros),
    pg_cpu_s: cpuSeconds(usage.pgCpuMicros),
  };
}

/** `import` and `export` on PostgreSQL, on one fresh database. */
async function onPostgres(opts: TransferOptions, file: { path: string; bytes: number; rows: number }) {
  const { items, log } = opts;
  const url = importDatabaseUrl(opts.benchUrl);
  const scenarios: TransferScenario[] = [];
  const skipped: TransferResult['skipped'] = [];
  let began = performance.now();
  await freshDatabase(url);
  log(`import: fresh database ${databaseName(url)} in ${Math.round(performance.now() - began)} ms`);
  let server: Server | undefined;
  try {
    began = performance.now();
    server = await startBenchService('service (import)', url, { cache: 'off', workers: 1 });
    log(`import: service ready in ${Math.round(performance.now() - began)} ms`);
    const token = await adminToken(server);
    log(`import: ${items} items × ${SKUS} SKUs (${(file.bytes / 2 ** 20).toFixed(1)} MB) into an empty catalogue`);
    const first = await timedImport(server, token, file, log, true, databaseName(url));
    assertImport('import', first.answer, items, file.rows, 'created');
    log(`import: ${first.seconds.toFixed(1)} s; detail at rest`);
    const idle = (await measurePaced([server], detailAcross(items), DETAIL_PACE, opts.idleSeconds)).figures;
    log('import again (every item unchanged)');
    const again = await timedImport(server, token, file, log, false, databaseName(url));
    assertImport('re-import', again.answer, items, file.rows, 'unchanged');
    const scenario = importFigures('import', 'postgres', 'off', items, file, first);
    scenarios.push({
      ...scenario,
      rss_peak_mb: Math.max(scenario.rss_peak_mb, again.usage.rssPeakMb[0]!),
      ...optional(
        'rss_background_peak_mb',
        Math.max(scenario.rss_background_peak_mb ?? 0, again.usage.rssBackgroundMb[0] ?? 0) || undefined,
      ),
      rss_total_peak_mb: Math.max(scenario.rss_total_peak_mb, again.usage.rssTreePeakMb[0]!),
      reimport_seconds: round1(again.seconds),
      reimport_counts: again.answer.items,
      reimport_cpu_s: cpuSeconds(again.usage.cpuMicros),
      reimport_pg_cpu_s: cpuSeconds(again.usage.pgCpuMicros),
      reimport_pg_database_cpu_s: cpuSeconds(again.usage.pgDatabaseCpuMicros ?? 0),
      reimport_cpu_ms_per_item: cpuPerItem(again.usage.cpuMicros + (again.usage.pgDatabaseCpuMicros ?? 0), items),
      detail_p99_idle_ms: idle.p99_ms,
      detail_p99_during_ms: first.during?.p99_ms,
      detail_pace: DETAIL_PACE,
      detail_idle: idle,
      detail_during: first.during,
    });
    if (!first.during) log('import: over before its first batch was seen: no reads during it');
    log('export (csv)');
    const exported = await exportScenario(server, token, items);
    if ('skipped' in exported) {
      log(`export: skipped — ${exported.skipped}`);
      skipped.push({ name: 'export', reason: exported.skipped });
    } else scenarios.push(exported);
  } finally {
    await server?.stop();
    await dropDatabase(url);
  }
  return { scenarios, skipped };
}

/** `detail` of any of items 1…`items`. */
const detailAcross = (items: number): Sequence => {
  const r = rng(4243);
  return () => ({ path: `/api/v1/items/${1 + Math.floor(r() * items)}` });
};

/** `import_embedded`: the same file into `npm start` on a fresh data directory. */
async function onEmbedded(opts: TransferOptions, file: { path: string; bytes: number; rows: number }) {
  const dataDir = mkdtempSync(join(tmpdir(), 'shop-bench-import-'));
  let server: Server | undefined;
  try {
    server = await startEmbeddedBenchService('service (embedded)', dataDir, 'on');
    const token = await adminToken(server);
    opts.log(`import_embedded: ${opts.items} items into npm start on a fresh DATA_DIR`);
    const run = await timedImport(server, token, file, opts.log, false);
    assertImport('import_embedded', run.answer, opts.items, file.rows, 'created');
    return importFigures('import_embedded', 'embedded', 'on', opts.items, file, run);
  } finally {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function transferScenarios(opts: TransferOptions): Promise<TransferResult> {
  const dir = mkdtempSync(join(tmpdir(), 'shop-bench-transfer-'));
  try {
    const path = join(dir, 'items.csv');
    const began = performance.now();
    const file = { path, ...(await writeItemFile(path, opts.items)) };
    opts.log(`item file: ${file.rows} rows, ${file.bytes} bytes in ${Math.round(performance.now() - began)} ms`);
    const result = await onPostgres(opts, file);
    if (opts.embedded) result.scenarios.push(await onEmbedded(opts, file));
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
