/**
 * Imports as an admin sees them (contract §13.2): started from a file (REST body or GraphQL upload,
 * staged row by row as it streams in — never whole in memory — and counted against IMPORT_MAX_BYTES),
 * read, listed, cancelled, and their errors file. The work itself is the `imports` queue's (import-job.ts).
 */
import { importFileTooLarge, notFound } from '../errors/app-error.ts';
import type { Import } from '../generated/prisma/client.ts';
import type { RequestContext } from '../request-context.ts';
import { type Page, pageOf, pageWindow } from '../validation/paging.ts';
import { problemsListed, queueImport } from './import-job.ts';
import { stagedColumns, stageFile } from './import-stage.ts';
import type { UploadedFile } from './uploaded-file.ts';

export const IMPORT_FORMATS = ['csv', 'jsonl'] as const;
export const IMPORT_MODES = ['upsert', 'create', 'update'] as const;

export interface StartImportInput {
  file: UploadedFile;
  format: (typeof IMPORT_FORMATS)[number];
  mode: (typeof IMPORT_MODES)[number];
  dryRun: boolean;
  atomic: boolean;
}

/**
 * How often an upload still arriving says so (`imports.upload_seen_at`): an import whose upload has
 * been silent for IMPORT_UPLOAD_ABANDONED_AFTER (minutes) is taken for one whose process died
 * (abandoned-uploads.ts) — every 5 s, or a quarter of that silence when it is set shorter.
 */
const uploadSeenEveryMs = (abandonedAfterSeconds: number) => Math.min(5_000, (abandonedAfterSeconds * 1000) / 4);

/** The upload's bytes, counted against `max` as they arrive; `seen` called every `seenEveryMs` of them. */
async function* counted(
  file: UploadedFile,
  max: number,
  total: { bytes: number },
  seen: () => Promise<unknown>,
  seenEveryMs: number,
): AsyncGenerator<Uint8Array> {
  let seenAt = Date.now();
  for await (const part of file.stream() as AsyncIterable<Uint8Array>) {
    total.bytes += part.byteLength;
    if (total.bytes > max) throw importFileTooLarge(max);
    if (Date.now() - seenAt >= seenEveryMs) {
      seenAt = Date.now();
      await seen();
    }
    yield part;
  }
}

/**
 * Creates an import from `file`, its rows staged as they arrive (import-stage.ts), then queued; refused
 * whole (413) past IMPORT_MAX_BYTES. A file that cannot be read is still read to its end (a client
 * sending it gets its answer, and a file over the limit is a 413 whatever it holds); its import is
 * queued with the problems, which its job reports as the import's failure (its staged rows dropped).
 */
export async function startImport(ctx: RequestContext, input: StartImportInput): Promise<Import> {
  const actor = await ctx.auth.actor();
  const prisma = ctx.db.prisma;
  const row = await prisma.import.create({
    data: {
      format: input.format,
      mode: input.mode,
      dryRun: input.dryRun,
      atomic: input.atomic,
      actorType: actor.type,
      actorId: actor.id,
      actorName: actor.name,
      ip: ctx.clientIp,
    },
  });
  try {
    const total = { bytes: 0 };
    const seen = () => ctx.db.sql.query('UPDATE imports SET upload_seen_at = now() WHERE id = $1', [row.id]);
    const { importMaxBytes, importUploadAbandonedAfterSeconds } = ctx.services.config;
    const bytes = counted(
      input.file,
      importMaxBytes,
      total,
      seen,
      uploadSeenEveryMs(importUploadAbandonedAfterSeconds),
    );
    // Staging stops reading at the first problem; the rest is read here (so not closed by staging).
    const unclosed = { [Symbol.asyncIterator]: () => ({ next: () => bytes.next() }) };
    const staged = await stageFile(prisma, ctx.db.sql, row.id, input.format, unclosed);
    for await (const _ of bytes);
    // A file's problems: what was staged before them goes when its job fails the import (finishIn).
    const data = staged.ok
      ? stagedColumns(staged)
      : { errors: problemsListed(staged.problems), errorCount: staged.problems.length };
    const queued = await prisma.import.update({ where: { id: row.id }, data: { ...data, fileBytes: total.bytes } });
    await queueImport(ctx.services.jobs, row.id);
    return queued;
  } catch (err) {
    // A file refused or cut off (the client went away) leaves no import behind.
    await prisma.import.delete({ where: { id: row.id } }).catch(() => {});
    throw err;
  }
}

/** One import, or NOT_FOUND. */
export async function readImport(ctx: RequestContext, id: number): Promise<Import | null> {
  return ctx.db.prisma.import.findUnique({ where: { id } });
}

/** Imports newest first. */
export async function listImports(ctx: RequestContext, input: { page: number; limit: number }): Promise<Page<Import>> {
  const { offset } = pageWindow(input);
  const [total, rows] = await Promise.all([
    ctx.db.prisma.import.count(),
    ctx.db.prisma.import.findMany({
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      skip: offset,
      take: input.limit,
    }),
  ]);
  return pageOf(rows, input, total);
}

/**
 * Cancels an import: a queued one at once, a running one after its current batch (what committed
 * stays); a finished one is left as it is.
 */
export async function cancelImport(ctx: RequestContext, id: number): Promise<Import> {
  const prisma = ctx.db.prisma;
  await prisma.import.updateMany({
    where: { id, status: 'queued' },
    data: { status: 'cancelled', cancelRequested: true, finishedAt: new Date() },
  });
  await prisma.import.updateMany({ where: { id, status: 'running' }, data: { cancelRequested: true } });
  const row = await prisma.import.findUnique({ where: { id } });
  if (!row) throw notFound('import');
  return row;
}

/** Where an import's errors file is (contract §13.2). */
export const errorsCsvPath = (id: number) => `/admin/api/imports/${id}/errors.csv`;

/** The errors file's header and rows, in row order, a page of rows at a time. */
export async function* errorRows(ctx: RequestContext, row: Import): AsyncGenerator<string[]> {
  const columns = row.format === 'csv' ? (row.columns ?? []) : ['line'];
  // The file's own columns and `error`: fixed, the rows can be imported again as they are (less `error`).
  yield [...columns, 'error'];
  let after = 0;
  for (;;) {
    const failures = await ctx.db.prisma.importFailure.findMany({
      where: { importId: row.id, rowNo: { gt: after } },
      orderBy: { rowNo: 'asc' },
      take: 1000,
    });
    if (!failures.length) return;
    for (const f of failures) {
      const cells = f.cells as Record<string, unknown>;
      const values = row.format === 'csv' ? columns.map((c) => String(cells[c] ?? '')) : [JSON.stringify(cells)];
      yield [...values, f.error];
    }
    after = failures.at(-1)!.rowNo;
  }
}
