/**
 * Runs imports (contract §13.2) as jobs of the `imports` queue (jobs/job-queue.ts). A job is a slice of
 * an import — a few seconds of work — that queues the next slice before it returns, so a long import
 * never outlives its lease and a draining process hands the rest on. Every step is safe to run twice
 * or at once in two processes:
 *
 * - staging (import-stage.ts) is keyed by row number;
 * - each batch is one transaction that first locks the import's row and reads its `cursor`: the batch
 *   writes items `cursor+1 … cursor+BATCH` and moves the cursor in the same transaction, so a batch is
 *   applied once whoever runs it, and a run that died resumes exactly after the last committed batch.
 *
 * `atomic`: a first pass checks every item as a dry run does (progress committed per batch); when it
 * found no failure, one transaction writes every item, so any failure then still writes nothing.
 */
import type { Actor } from '../auth/request-auth.ts';
import type { CatalogCache } from '../catalog/catalog-cache.ts';
import type { Tx } from '../catalog/catalog-write.ts';
import type { Prisma } from '../db/database.ts';
import type { Import } from '../generated/prisma/client.ts';
import type { JobQueue } from '../jobs/job-queue.ts';
import type { Logger } from '../logger.ts';
import { type BatchResult, runBatch } from './import-batch.ts';
import { stageFile } from './import-stage.ts';
import type { FileProblem } from './item-file.ts';

export const IMPORT_QUEUE = 'imports';
/**
 * Items per batch: sized by time, not count — `rows_done` must grow at least once a second (§13.2),
 * whatever an item costs (its SKUs, its description's search words) and however busy the machine is.
 * Each batch aims at BATCH_TARGET_MS; the next one's size follows the last one's pace.
 */
const BATCH_TARGET_MS = 400;
const BATCH_ITEMS = { first: 50, min: 5, max: 500 };
/** The atomic write pass (one transaction, no progress reported): a fixed size. */
const ATOMIC_BATCH_ITEMS = 200;

/** The next batch's size after one of `items` took `ms`. */
export const nextBatchSize = (items: number, ms: number): number =>
  Math.max(BATCH_ITEMS.min, Math.min(BATCH_ITEMS.max, Math.round((items * BATCH_TARGET_MS) / Math.max(ms, 1))));
/** How long one job runs before it queues the rest (far inside the job lease). */
const SLICE_MS = 5000;
/** Errors kept on the import itself; every failed row is in the errors file. */
export const MAX_LISTED_ERRORS = 1000;
/** A batch transaction's bounds (a batch takes well under a second; the write lock may be queued for). */
const BATCH_TRANSACTION = { maxWait: 60_000, timeout: 120_000 };

export interface ImportRunner {
  prisma: Prisma;
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

/** The pause after a batch on the embedded database, as a share of the batch's time. */
const EMBEDDED_PAUSE_SHARE = 1 / 3;

const actorOf = (row: Import): Actor => ({
  type: row.actorType as Actor['type'],
  id: row.actorId,
  name: row.actorName,
});

/** Queues (the next slice of) import `id`: at most one waits per import. */
export const queueImport = (jobs: JobQueue, id: number) =>
  jobs.send(IMPORT_QUEUE, { importId: id }, { key: String(id) });

/** Has this process run import slices from the queue. */
export async function workImports(runner: ImportRunner): Promise<void> {
  await runner.jobs.work(IMPORT_QUEUE, async (data) => {
    const id = Number(data.importId);
    if (!Number.isInteger(id)) return;
    runner.log.info({ import_id: id, pid: process.pid }, 'import: running a slice');
    if ((await runImportSlice(runner, id)) === 'more') await queueImport(runner.jobs, id);
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
  if (row.cancelRequested) return finish(prisma, id, 'cancelled');
  if (!row.staged) {
    const staged = await stageFile(prisma, id, row.format);
    if (!staged.ok) return fail(prisma, id, staged.problems);
    await prisma.$transaction([
      prisma.import.update({
        where: { id },
        data: { staged: true, rowsTotal: staged.rows, itemsTotal: staged.items, columns: staged.columns },
      }),
      prisma.importChunk.deleteMany({ where: { importId: id } }),
    ]);
    row = (await prisma.import.findUnique({ where: { id } }))!;
  }
  if (row.atomic && !row.dryRun && row.checked) return writeAtomically(runner, row);
  let size = BATCH_ITEMS.first;
  for (;;) {
    const began = performance.now();
    const step = await prisma.$transaction((tx) => nextBatch(runner, tx, id, size), BATCH_TRANSACTION);
    if (step !== 'more') return step === 'checked' ? runImportSlice(runner, id) : 'done';
    if (Date.now() > deadline || runner.jobs.stopping()) return 'more';
    const took = performance.now() - began;
    size = nextBatchSize(size, took);
    if (runner.embedded) await sleep(took * EMBEDDED_PAUSE_SHARE);
  }
}

/** The import's row, locked until the transaction ends (every batch and every finish takes it first). */
const lockImport = async (tx: Tx, id: number): Promise<Import | undefined> =>
  (await tx.$queryRawUnsafe<Array<{ id: number }>>('SELECT id FROM imports WHERE id = $1 FOR UPDATE', id)).length
    ? ((await tx.import.findUnique({ where: { id } })) ?? undefined)
    : undefined;

/** The next batch of a running import, committed with the cursor; 'checked': an atomic import's check pass ended clean. */
async function nextBatch(runner: ImportRunner, tx: Tx, id: number, size: number): Promise<Step | 'checked'> {
  const row = await lockImport(tx, id);
  if (row?.status !== 'running') return 'done';
  if (row.cancelRequested) {
    await finishIn(tx, id, 'cancelled');
    return 'done';
  }
  const total = row.itemsTotal ?? 0;
  const checking = row.atomic && !row.dryRun && !row.checked;
  if (row.cursor >= total) {
    if (checking && row.failedCount === 0) {
      // Clean: the write pass starts from the beginning, counting afresh.
      await tx.import.update({
        where: { id },
        data: { checked: true, cursor: 0, rowsDone: 0, createdCount: 0, updatedCount: 0, unchangedCount: 0 },
      });
      return 'checked';
    }
    await finishIn(tx, id, checking ? 'failed' : 'succeeded');
    return 'done';
  }
  const write = !row.dryRun && !checking;
  // Item writes change postings, whose counts have one writer at a time (catalog-write.ts).
  if (write) await tx.$executeRawUnsafe('SELECT search_index_lock()');
  const to = Math.min(row.cursor + size, total);
  const result = await runBatch(tx, batchOptions(row, !write), row.cursor + 1, to);
  await record(tx, row, result, to);
  if (write && result.created + result.updated > 0) {
    // Other instances hear the catalogue trigger; this one is told before its next read.
    runner.catalogCache.invalidate();
  }
  return 'more';
}

const batchOptions = (row: Import, dryRun: boolean) => ({
  importId: row.id,
  format: row.format,
  mode: row.mode,
  columns: row.columns ?? [],
  dryRun,
  actor: actorOf(row),
  ip: row.ip,
});

/** A batch's counts, errors and failed rows, and the cursor past it. */
async function record(tx: Tx, row: Import, result: BatchResult, cursor: number): Promise<void> {
  const room = Math.max(0, MAX_LISTED_ERRORS - row.errorCount);
  const listed = result.problems.slice(0, room);
  await tx.$executeRawUnsafe(
    `UPDATE imports SET cursor = $2, rows_done = rows_done + $3, created_count = created_count + $4,
            updated_count = updated_count + $5, unchanged_count = unchanged_count + $6, failed_count = failed_count + $7,
            error_count = error_count + $8, errors = errors || $9::jsonb
      WHERE id = $1`,
    row.id,
    cursor,
    result.rows,
    result.created,
    result.updated,
    result.unchanged,
    result.failed,
    result.problems.length,
    JSON.stringify(listed),
  );
  if (result.failures.length) {
    await tx.importFailure.createMany({
      data: result.failures.map((f) => ({
        importId: row.id,
        rowNo: f.rowNo,
        cells: f.cells as object,
        error: f.error,
      })),
      skipDuplicates: true,
    });
  }
}

/** An atomic import whose check found nothing wrong: every item written in one transaction. */
async function writeAtomically(runner: ImportRunner, checked: Import): Promise<Step> {
  const id = checked.id;
  const failed = await runner.prisma.$transaction(
    async (tx) => {
      const row = await lockImport(tx, id);
      if (row?.status !== 'running' || row.cursor > 0) return undefined;
      await tx.$executeRawUnsafe('SELECT search_index_lock()');
      const total = row.itemsTotal ?? 0;
      let current = row;
      for (let from = 1; from <= total; from += ATOMIC_BATCH_ITEMS) {
        const to = Math.min(from + ATOMIC_BATCH_ITEMS - 1, total);
        const result = await runBatch(tx, batchOptions(row, false), from, to);
        // Changed since the check (another write meanwhile): nothing of this pass may stay.
        if (result.failed) return result.problems;
        await record(tx, current, result, to);
        current = (await tx.import.findUnique({ where: { id } }))!;
      }
      await finishIn(tx, id, 'succeeded');
      return undefined;
    },
    { maxWait: 60_000, timeout: 60 * 60_000 },
  );
  if (failed) return fail(runner.prisma, id, failed);
  runner.catalogCache.invalidate();
  return 'done';
}

/** Ends an import in `status`: its staged rows go; its failures (the errors file) stay. */
async function finishIn(tx: Tx, id: number, status: 'succeeded' | 'failed' | 'cancelled'): Promise<void> {
  await tx.import.update({ where: { id }, data: { status, finishedAt: new Date() } });
  await tx.importRow.deleteMany({ where: { importId: id } });
  await tx.importItem.deleteMany({ where: { importId: id } });
  await tx.importChunk.deleteMany({ where: { importId: id } });
}

async function finish(prisma: Prisma, id: number, status: 'cancelled'): Promise<Step> {
  await prisma.$transaction(async (tx) => {
    const row = await lockImport(tx, id);
    if (row?.status === 'running') await finishIn(tx, id, status);
  }, BATCH_TRANSACTION);
  return 'done';
}

/** Fails a running import with the problems that stop it (a bad file; an atomic import's failure). */
async function fail(prisma: Prisma, id: number, problems: FileProblem[]): Promise<Step> {
  await prisma.$transaction(async (tx) => {
    const row = await lockImport(tx, id);
    if (row?.status !== 'running') return;
    const listed = problems
      .slice(0, MAX_LISTED_ERRORS)
      .map((p) => ({ ...p, handle: (p as { handle?: string }).handle ?? null }));
    await tx.import.update({
      where: { id },
      data: { errors: listed, errorCount: problems.length, failedCount: row.failedCount },
    });
    await finishIn(tx, id, 'failed');
  }, BATCH_TRANSACTION);
  return 'done';
}
