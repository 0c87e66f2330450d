/**
 * Runs imports (contract §13.2) as jobs of the `imports` queue (jobs/job-queue.ts). A job is a slice of
 * an import — a few seconds of work — that queues the next slice before it returns, so a long import
 * never outlives its lease and a draining process hands the rest on. Every step is safe to run twice
 * or at once in two processes:
 *
 * - the file was staged as it was uploaded (import-stage.ts), keyed by row number;
 * - each batch is one transaction that first locks the import's row and reads its `cursor`: the batch
 *   writes items `cursor+1 … cursor+BATCH` and moves the cursor in the same transaction, so a batch is
 *   applied once whoever runs it, and a run that died resumes exactly after the last committed batch.
 *
 * `atomic`: a first pass checks every item as a dry run does (progress committed per batch); when it
 * found no failure, one transaction writes every item, so any failure then still writes nothing.
 */
import type { Actor } from '../auth/request-auth.ts';
import type { CatalogCache } from '../catalog/catalog-cache.ts';
import { isoSql } from '../catalog/catalog-json.ts';
import { lockCatalogue } from '../catalog/catalog-write.ts';
import type { Database, Prisma, SqlDriver } from '../db/database.ts';
import { appendEvents, type PendingEvent } from '../events/event-log.ts';
import type { Import } from '../generated/prisma/client.ts';
import { failureStreaks } from '../jobs/failure-streaks.ts';
import type { JobQueue } from '../jobs/job-queue.ts';
import type { Logger } from '../logger.ts';
import { type IndexerSql, indexerSql } from '../search/indexer-sql.ts';
import { type BatchResult, emptyBatchResult, runBatch } from './import-batch.ts';
import { stagedColumns, stageFile, storedChunks } from './import-stage.ts';
import type { FileProblem } from './item-file.ts';

export const IMPORT_QUEUE = 'imports';
/**
 * Items per batch: sized by time, not count — `rows_done` must grow at least once a second (§13.2),
 * whatever an item costs (its SKUs, its description's search words) and however busy the machine is.
 * Each batch aims at BATCH_TARGET_MS; the next one's size follows the last one's pace. An unchanged
 * item costs a tenth of a written one or less, so a batch may span up to `max` items (a re-import
 * of an unchanged file, in few transactions) but writes at most `maxWrites` of them: where the file
 * turns from unchanged to changed items, a batch sized by the unchanged ones' pace still ends in time.
 */
const BATCH_TARGET_MS = 400;
const BATCH_ITEMS = { first: 50, min: 5, max: 2000, maxWrites: 500 };
/** The atomic write pass (one transaction, no progress reported): a fixed size. */
const ATOMIC_BATCH_ITEMS = 200;

/** The next batch's size after one of `items` took `ms`. */
export const nextBatchSize = (items: number, ms: number): number =>
  Math.max(BATCH_ITEMS.min, Math.min(BATCH_ITEMS.max, Math.round((items * BATCH_TARGET_MS) / Math.max(ms, 1))));
/** How long one job runs before it queues the rest (far inside the job lease). */
const SLICE_MS = 5000;
/** Errors kept on the import itself; every failed row is in the errors file. */
export const MAX_LISTED_ERRORS = 1000;

export interface ImportRunner {
  prisma: Prisma;
  /** Where batches run: plain SQL transactions (see inSql). */
  sql: SqlDriver;
  catalogCache: CatalogCache;
  log: Logger;
  /** The queue; once it is stopping (the process drains) a running slice hands on the rest after its batch. */
  jobs: JobQueue;
  /**
   * The embedded database: one connection for everything. A request's statements run one after
   * another, each queued behind whatever holds the connection — behind every batch, were batches run
   * back to back. So the runner pauses after each batch for a third of its time: the requests waiting
   * meanwhile finish, and an import costs the shop's other traffic at most a batch's wait.
   */
  embedded: boolean;
}

/** The runner over a process's database and services (a serving process, or the CLI). */
export const importRunner = (
  db: Database,
  services: { catalogCache: CatalogCache; jobs: JobQueue },
  log: Logger,
): ImportRunner => ({
  prisma: db.prisma,
  sql: db.sql,
  catalogCache: services.catalogCache,
  jobs: services.jobs,
  log,
  embedded: db.sql.kind === 'pglite',
});

/** The pause after a batch on the embedded database, as a share of the batch's time. */
const EMBEDDED_PAUSE_SHARE = 1 / 3;

const actorOf = (row: Pick<Import, 'actorType' | 'actorId' | 'actorName'>): Actor => ({
  type: row.actorType as Actor['type'],
  id: row.actorId,
  name: row.actorName,
});

/** Queues (the next slice of) import `id`: at most one waits per import. */
export const queueImport = (jobs: JobQueue, id: number) =>
  jobs.send(IMPORT_QUEUE, { importId: id }, { key: String(id) });

/**
 * Slices of one import that failed in a row (jobs/failure-streaks.ts), after which the import is
 * failed instead of tried again: a batch that fails the same way each time would keep it `running`.
 */
export const SLICE_FAILURES_TOLERATED = 3;

/** Has this process run import slices from the queue. */
export async function workImports(runner: ImportRunner): Promise<void> {
  const failures = failureStreaks<number>(SLICE_FAILURES_TOLERATED, runner.jobs);
  await runner.jobs.work(IMPORT_QUEUE, async (data) => {
    const id = Number(data.importId);
    if (!Number.isInteger(id)) return;
    runner.log.info({ import_id: id, pid: process.pid }, 'import: running a slice');
    let step: Step;
    try {
      step = await runImportSlice(runner, id);
    } catch (err) {
      // Away (or stopping): the job comes back and the import resumes from its last committed batch.
      const { count, stuck } = failures.failed(id, err);
      if (count > 0) runner.log.error({ err, import_id: id, failures: count }, 'import: a slice failed');
      if (!stuck) throw err;
      await failStuck(runner, id);
      return;
    }
    failures.succeeded(id);
    if (step === 'more') await queueImport(runner.jobs, id);
  });
}

/**
 * Fails a running import whose next batch fails every time: what committed stays, and one more error
 * names the row the batch starts at (its first item's first row), the cause being in the log.
 */
async function failStuck(runner: ImportRunner, id: number): Promise<void> {
  await inSql(runner, async (sql) => {
    const row = await lockImport(sql, id);
    if (row?.status !== 'running') return;
    const [first] = await sql.$queryRawUnsafe<Array<{ row_no: number }>>(
      `SELECT min(r.row_no)::int AS row_no FROM import_items ii
         JOIN import_rows r ON r.import_id = ii.import_id AND r.handle = ii.handle
        WHERE ii.import_id = $1 AND ii.item_no = $2`,
      id,
      row.cursor + 1,
    );
    const problem: FileProblem = {
      row: first?.row_no ?? 1,
      field: null,
      message: `the import stopped at the batch starting at this row: it failed ${SLICE_FAILURES_TOLERATED} times in a row (the service's log says why, under this import's id); what was written before it stays`,
    };
    // Listed last (in place of the thousandth when the list is full: the reason it stopped matters most).
    await sql.$executeRawUnsafe(
      `UPDATE imports SET error_count = error_count + 1,
              errors = (CASE WHEN jsonb_array_length(errors) >= $3 THEN errors - ($3 - 1) ELSE errors END) || $2::jsonb
        WHERE id = $1`,
      id,
      JSON.stringify(problemsListed([problem])),
      MAX_LISTED_ERRORS,
    );
    await finishIn(sql, id, 'failed');
  });
}

type Step = 'done' | 'more';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One slice of import `id`: as much as fits in SLICE_MS. */
export async function runImportSlice(runner: ImportRunner, id: number): Promise<Step> {
  const deadline = Date.now() + SLICE_MS;
  const { prisma } = runner;
  await prisma.import.updateMany({
    where: { id, status: 'queued' },
    data: { status: 'running', startedAt: new Date() },
  });
  let row = await prisma.import.findUnique({ where: { id } });
  if (row?.status !== 'running') return 'done';
  if (row.cancelRequested) return finish(runner, id, 'cancelled');
  if (!row.staged) {
    // The upload found the file unreadable and recorded why (imports.service.ts startImport).
    if (row.errorCount > 0) return fail(runner, id);
    // An import queued by a version that kept the file's bytes and staged in the job. Another process
    // may stage the same file at the same time (a lease that ran out): the first to finish records it
    // and drops the chunks, so what the other read — perhaps a file cut short by that — counts for
    // nothing once the import is staged.
    const staged = await stageFile(prisma, runner.sql, id, row.format, storedChunks(prisma, id));
    if (!staged.ok) return fail(runner, id, staged.problems, { unlessStaged: true });
    await prisma.$transaction([
      prisma.import.updateMany({ where: { id, staged: false }, data: stagedColumns(staged) }),
      prisma.importChunk.deleteMany({ where: { importId: id } }),
    ]);
    row = (await prisma.import.findUnique({ where: { id } }))!;
  }
  if (row.atomic && !row.dryRun && row.checked) return writeAtomically(runner, id);
  let size = BATCH_ITEMS.first;
  for (;;) {
    const began = performance.now();
    const { step, items } = await inSql(runner, (sql) => nextBatch(runner, sql, id, size));
    if (step !== 'more') return step === 'checked' ? runImportSlice(runner, id) : 'done';
    if (Date.now() > deadline || runner.jobs.stopping()) return 'more';
    const took = performance.now() - began;
    size = nextBatchSize(items, took);
    if (runner.embedded) await sleep(took * EMBEDDED_PAUSE_SHARE);
  }
}

/** The columns of an import a batch reads, under the names of Prisma's `Import`. */
const IMPORT_COLUMNS = `id, status::text AS status, format::text AS format, mode::text AS mode, dry_run AS "dryRun", atomic,
  columns, rows_total AS "rowsTotal", items_total AS "itemsTotal", failed_count AS "failedCount",
  error_count AS "errorCount", cursor, checked, staged, cancel_requested AS "cancelRequested",
  actor_type AS "actorType", actor_id AS "actorId", actor_name AS "actorName", ip`;

type ImportState = Pick<
  Import,
  | 'id'
  | 'status'
  | 'format'
  | 'mode'
  | 'dryRun'
  | 'atomic'
  | 'columns'
  | 'rowsTotal'
  | 'itemsTotal'
  | 'failedCount'
  | 'errorCount'
  | 'cursor'
  | 'checked'
  | 'staged'
  | 'cancelRequested'
  | 'actorType'
  | 'actorId'
  | 'actorName'
  | 'ip'
>;

/** The import's row, locked until the transaction ends (every batch and every finish takes it first). */
const lockImport = async (sql: IndexerSql, id: number): Promise<ImportState | undefined> =>
  (await sql.$queryRawUnsafe<ImportState[]>(`SELECT ${IMPORT_COLUMNS} FROM imports WHERE id = $1 FOR UPDATE`, id))[0];

/**
 * A transaction of plain SQL (db/database.ts `transaction`): a batch's statements carry thousands of
 * values (search postings), which Prisma's handling of raw parameters made the larger part of its time.
 */
const inSql = <T>(runner: ImportRunner, fn: (sql: IndexerSql) => Promise<T>): Promise<T> =>
  runner.sql.transaction((query) => fn(indexerSql(query)));

/**
 * The next batch of a running import, committed with the cursor, and how many items it took; 'checked':
 * an atomic import's check pass ended clean.
 */
async function nextBatch(
  runner: ImportRunner,
  sql: IndexerSql,
  id: number,
  size: number,
): Promise<{ step: Step | 'checked'; items: number }> {
  const row = await lockImport(sql, id);
  if (row?.status !== 'running') return { step: 'done', items: 0 };
  if (row.cancelRequested) {
    await finishIn(sql, id, 'cancelled');
    return { step: 'done', items: 0 };
  }
  const total = row.itemsTotal ?? 0;
  const checking = row.atomic && !row.dryRun && !row.checked;
  if (row.cursor >= total) {
    if (checking && row.failedCount === 0) {
      // Clean: the write pass starts from the beginning, counting its items afresh; its rows go on
      // from the second half of `rows_done` (atomicRowsDone).
      await sql.$executeRawUnsafe(
        `UPDATE imports SET checked = true, cursor = 0, rows_done = GREATEST(rows_done, $2),
                created_count = 0, updated_count = 0, unchanged_count = 0 WHERE id = $1`,
        id,
        atomicRowsDone(row.rowsTotal ?? 0, 0),
      );
      return { step: 'checked', items: 0 };
    }
    if (row.atomic && row.failedCount > 0) {
      // An atomic import with a bad item writes nothing (§13.2), and its dry run says what the real
      // run would: failed, nothing created or updated — every row was read.
      await sql.$executeRawUnsafe(
        'UPDATE imports SET created_count = 0, updated_count = 0, rows_done = rows_total WHERE id = $1',
        id,
      );
      await finishIn(sql, id, 'failed');
      return { step: 'done', items: 0 };
    }
    await finishIn(sql, id, 'succeeded');
    return { step: 'done', items: 0 };
  }
  // A batch that writes takes the catalogue lock after its stored items (runBatch).
  const write = !row.dryRun && !checking;
  const to = Math.min(row.cursor + size, total);
  const writeLimit = Math.min(size, BATCH_ITEMS.maxWrites);
  const result = await runBatch(sql, batchOptions(row, !write), row.cursor + 1, to, writeLimit);
  await record(sql, row, result, result.through, checking ? Math.floor(result.rows / 2) : result.rows);
  // Last: the events' counter lock is held from here to the commit (events/event-log.ts).
  await appendEventsIn(sql, actorOf(row), result.events);
  if (write && result.created + result.updated > 0) {
    // Other instances hear the catalogue trigger; this one is told before its next read.
    runner.catalogCache.invalidate();
  }
  return { step: 'more', items: result.through - row.cursor };
}

const batchOptions = (row: ImportState, dryRun: boolean) => ({
  importId: row.id,
  format: row.format,
  mode: row.mode,
  columns: row.columns ?? [],
  dryRun,
  actor: actorOf(row),
  ip: row.ip,
});

/**
 * An atomic import reads each row twice — checked, then written — and `rows_done` counts both passes,
 * half a row each, so it grows through both and never goes back (§13.2: it grows while the import
 * runs; a progress bar at 100 % after the check and back at 0 for the write would say otherwise).
 * The write pass's rows done so far, as `rows_done`.
 */
const atomicRowsDone = (rowsTotal: number, written: number) => Math.floor(rowsTotal / 2) + Math.floor(written / 2);

/** A batch's counts, errors and failed rows, the cursor past it, and `rowsDone` more rows done. */
async function record(
  sql: IndexerSql,
  row: ImportState,
  result: BatchResult,
  cursor: number,
  rowsDone = result.rows,
): Promise<void> {
  const room = Math.max(0, MAX_LISTED_ERRORS - row.errorCount);
  const listed = result.problems.slice(0, room);
  await sql.$executeRawUnsafe(
    `UPDATE imports SET cursor = $2, rows_done = rows_done + $3, created_count = created_count + $4,
            updated_count = updated_count + $5, unchanged_count = unchanged_count + $6, failed_count = failed_count + $7,
            error_count = error_count + $8, errors = errors || $9::jsonb
      WHERE id = $1`,
    row.id,
    cursor,
    rowsDone,
    result.created,
    result.updated,
    result.unchanged,
    result.failed,
    result.problems.length,
    JSON.stringify(listed),
  );
  if (result.failures.length) {
    await sql.$executeRawUnsafe(
      `INSERT INTO import_failures (import_id, row_no, cells, error)
       SELECT $1, r.row_no, r.cells, r.error FROM jsonb_to_recordset($2::jsonb) AS r(row_no int, cells jsonb, error text)
       ON CONFLICT DO NOTHING`,
      row.id,
      JSON.stringify(result.failures.map((f) => ({ row_no: f.rowNo, cells: f.cells, error: f.error }))),
    );
  }
}

/**
 * Fails the next import whose upload never finished: still `queued`, not staged, no problem recorded,
 * and not heard from for `silentSeconds` (abandoned-uploads.ts). Taken under its row's lock (one an
 * upload is moving just now is skipped, and no two processes take the same), its error names the first
 * row that did not arrive; its staged rows go (finishIn). Answers its id, or undefined when none is left.
 */
export async function failNextAbandonedUpload(
  runner: ImportRunner,
  silentSeconds: number,
): Promise<number | undefined> {
  return inSql(runner, async (sql) => {
    const [abandoned] = await sql.$queryRawUnsafe<Array<{ id: number; next_row: number }>>(
      `SELECT i.id, (SELECT COALESCE(max(row_no) + 1, 1) FROM import_rows WHERE import_id = i.id)::int AS next_row
         FROM imports i
        WHERE i.status = 'queued' AND NOT i.staged AND i.error_count = 0
          AND i.upload_seen_at < now() - make_interval(secs => $1)
        ORDER BY i.id LIMIT 1
          FOR UPDATE OF i SKIP LOCKED`,
      silentSeconds,
    );
    if (!abandoned) return undefined;
    await setProblems(sql, abandoned.id, [
      {
        row: abandoned.next_row,
        field: null,
        message: `the upload stopped here, silent for ${silentSeconds} s (the service stopped or the connection was lost); nothing was imported: send the file again`,
      },
    ]);
    await finishIn(sql, abandoned.id, 'failed');
    return abandoned.id;
  });
}

/** Thrown inside the atomic write pass when a cancel was asked for: its transaction rolls back. */
class CancelledPass extends Error {}

/**
 * An atomic import whose check found nothing wrong: every item written in one transaction. That
 * transaction holds a lock of its own for the import (two processes never write it twice), not the
 * import's row, which stays free for what happens meanwhile: the progress, written beside the
 * transaction after each batch (§13.2: `rows_done` grows while it runs — on PostgreSQL; the embedded
 * database's one connection is the transaction's until it ends, and nothing can read it meanwhile),
 * and a cancel request, which the pass sees after its batch and answers by rolling everything back.
 */
async function writeAtomically(runner: ImportRunner, id: number): Promise<Step> {
  const progress = async (rowsTotal: number, written: number) => {
    if (runner.embedded) return;
    await runner.sql.query(
      `UPDATE imports SET rows_done = GREATEST(rows_done, $2) WHERE id = $1 AND status = 'running'`,
      [id, atomicRowsDone(rowsTotal, written)],
    );
  };
  let failed: BatchResult['problems'] | undefined;
  try {
    failed = await inSql(runner, async (sql) => {
      await sql.$executeRawUnsafe('SELECT pg_advisory_xact_lock($1, $2)', ATOMIC_WRITE_LOCK, id);
      const readRow = async () =>
        (await sql.$queryRawUnsafe<ImportState[]>(`SELECT ${IMPORT_COLUMNS} FROM imports WHERE id = $1`, id))[0];
      const row = await readRow();
      if (row?.status !== 'running' || row.cursor > 0) return undefined;
      await lockFileItems(sql, id);
      const total = row.itemsTotal ?? 0;
      const sum = emptyBatchResult(total);
      for (let from = 1; from <= total; from += ATOMIC_BATCH_ITEMS) {
        const to = Math.min(from + ATOMIC_BATCH_ITEMS - 1, total);
        const result = await runBatch(sql, batchOptions(row, false), from, to);
        // Changed since the check (another write meanwhile): nothing of this pass may stay.
        if (result.failed) return result.problems;
        addResult(sum, result);
        await progress(row.rowsTotal ?? 0, sum.rows);
        if ((await readRow())?.cancelRequested) throw new CancelledPass();
      }
      await lockImport(sql, id);
      // The progress written beside ends at every row, with the pass's counts.
      await sql.$executeRawUnsafe('UPDATE imports SET rows_done = 0 WHERE id = $1', id);
      await record(sql, row, sum, total, row.rowsTotal ?? sum.rows);
      await finishIn(sql, id, 'succeeded', sum.events);
      return undefined;
    });
  } catch (err) {
    if (!(err instanceof CancelledPass)) throw err;
    return finish(runner, id, 'cancelled');
  }
  if (failed) return fail(runner, id, failed);
  runner.catalogCache.invalidate();
  return 'done';
}

/** The stored items with one of the import's handles. */
const FILE_ITEMS = 'SELECT i.id FROM items i WHERE i.handle IN (SELECT handle FROM import_items WHERE import_id = $1)';

/** Thrown when an item took one of the file's handles as the atomic pass began: the job runs it again. */
class FileItemsMoved extends Error {}

/**
 * The atomic pass's locks in the catalogue writes' order (catalog-write.ts lockCatalogue): every stored
 * item of the file (id order), then the catalogue lock — its batches then wait for no item row. An
 * item given one of the file's handles between the two would be locked after the catalogue lock: the
 * pass is rolled back and its job tried again instead.
 */
async function lockFileItems(sql: IndexerSql, importId: number): Promise<void> {
  const held = await sql.$queryRawUnsafe<Array<{ id: number }>>(
    `${FILE_ITEMS} ORDER BY i.id FOR NO KEY UPDATE OF i`,
    importId,
  );
  await lockCatalogue(sql);
  const [moved] = await sql.$queryRawUnsafe<Array<{ moved: boolean }>>(
    `SELECT EXISTS (${FILE_ITEMS} AND i.id <> ALL ($2::int[])) AS moved`,
    importId,
    held.map((h) => h.id),
  );
  if (moved?.moved) throw new FileItemsMoved('an item took one of the file’s handles as the atomic pass began');
}

/** The atomic write pass's lock (with the import's id): its class, for pg_advisory_xact_lock(int, int). */
export const ATOMIC_WRITE_LOCK = 0x1e90;

/** Adds a batch's counts and events to `sum`. */
function addResult(sum: BatchResult, result: BatchResult): void {
  sum.created += result.created;
  sum.updated += result.updated;
  sum.unchanged += result.unchanged;
  sum.rows += result.rows;
  sum.events.push(...result.events);
}

const appendEventsIn = (sql: IndexerSql, actor: Actor, events: PendingEvent[]) =>
  appendEvents((text, params) => sql.$executeRawUnsafe(text, ...params), actor, events);

/**
 * The Import in REST's names (imports.rest.ts REST_IMPORT_FIELDS), for `import.finished`'s data;
 * test/events/import-events.test.ts holds it equal to GET /admin/api/imports/{id}.
 */
const IMPORT_REST_JSON = `json_build_object(
  'id', id, 'status', status, 'format', format, 'mode', mode, 'dry_run', dry_run, 'atomic', atomic,
  'rows_total', rows_total, 'rows_done', rows_done,
  'items', json_build_object('created', created_count, 'updated', updated_count, 'unchanged', unchanged_count, 'failed', failed_count),
  'errors', errors, 'errors_csv_url', '/admin/api/imports/' || id || '/errors.csv',
  'created_at', ${isoSql('created_at')}, 'started_at', ${isoSql('started_at')}, 'finished_at', ${isoSql('finished_at')},
  'actor', json_build_object('type', actor_type, 'id', actor_id, 'name', actor_name))`;

/**
 * Ends an import in `status`: its staged rows go; its failures (the errors file) stay; `import.finished`
 * is appended (after `events`, the last batch's, when given) as the transaction's last statement.
 */
async function finishIn(
  sql: IndexerSql,
  id: number,
  status: 'succeeded' | 'failed' | 'cancelled',
  events: PendingEvent[] = [],
): Promise<void> {
  const [finished] = await sql.$queryRawUnsafe<
    Array<Pick<Import, 'actorType' | 'actorId' | 'actorName'> & { data: unknown }>
  >(
    `UPDATE imports SET status = $2::"ImportStatus", finished_at = now() WHERE id = $1
     RETURNING actor_type AS "actorType", actor_id AS "actorId", actor_name AS "actorName", ${IMPORT_REST_JSON} AS data`,
    id,
    status,
  );
  for (const table of ['import_rows', 'import_items', 'import_chunks']) {
    await sql.$executeRawUnsafe(`DELETE FROM ${table} WHERE import_id = $1`, id);
  }
  if (!finished) return;
  await appendEventsIn(sql, actorOf(finished), [
    ...events,
    { type: 'import.finished', data: { import: finished.data } },
  ]);
}

async function finish(runner: ImportRunner, id: number, status: 'cancelled'): Promise<Step> {
  await inSql(runner, async (sql) => {
    const row = await lockImport(sql, id);
    if (row?.status === 'running') await finishIn(sql, id, status);
  });
  return 'done';
}

/** The problems an import lists (the first MAX_LISTED_ERRORS), each with its `handle` (null for a file's). */
export const problemsListed = (problems: FileProblem[]) =>
  problems.slice(0, MAX_LISTED_ERRORS).map((p) => ({ ...p, handle: (p as { handle?: string }).handle ?? null }));

/**
 * Fails a running import with the problems that stop it (a bad file; an atomic import's failure);
 * without `problems`, those already recorded (the upload's: imports.service.ts startImport) stand.
 * `unlessStaged`: a file's problems, which count only while no other process has staged the file.
 */
async function fail(
  runner: ImportRunner,
  id: number,
  problems?: FileProblem[],
  { unlessStaged = false } = {},
): Promise<Step> {
  await inSql(runner, async (sql) => {
    const row = await lockImport(sql, id);
    if (row?.status !== 'running' || (unlessStaged && row.staged)) return;
    if (problems) await setProblems(sql, id, problems);
    await finishIn(sql, id, 'failed');
  });
  return 'done';
}

/** Makes `problems` the import's errors (the first MAX_LISTED_ERRORS listed, all counted). */
const setProblems = (sql: IndexerSql, id: number, problems: FileProblem[]) =>
  sql.$executeRawUnsafe(
    'UPDATE imports SET errors = $2::jsonb, error_count = $3 WHERE id = $1',
    id,
    JSON.stringify(problemsListed(problems)),
    problems.length,
  );
