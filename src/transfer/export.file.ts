/**
 * An export written to a file (`npm run cli -- export FILE`): the bytes the HTTP route sends, written
 * to `FILE.part` and renamed to FILE once complete — a failed export leaves neither a shorter file
 * that looks whole nor a piece of one.
 */
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { finished } from 'node:stream/promises';
import { adminItemFilterOf } from '../catalog/item-admin.service.ts';
import type { RequestContext } from '../request-context.ts';
import type { ExportFormat, ExportInput } from './export.schema.ts';
import { type ExportCount, prepareItemExport } from './export.service.ts';
import { pacedWriter } from './paced-writer.ts';

/** A file's format as its name says it: `.jsonl` (or `.ndjson`) is JSON Lines, anything else CSV. */
export const formatOfFileName = (path: string): ExportFormat => (/\.(jsonl|ndjson)$/i.test(path) ? 'jsonl' : 'csv');

/** Exports the items `input` matches to `path`; resolves with what was written once the file is in place. */
export async function exportItemsToFile(ctx: RequestContext, path: string, input: ExportInput): Promise<ExportCount> {
  const file = await prepareItemExport(ctx.db.sql, await adminItemFilterOf(ctx, input.filters), input.format);
  const partial = `${path}.part`;
  const out = createWriteStream(partial);
  try {
    const count = await file.writeTo(pacedWriter(out));
    out.end();
    await finished(out);
    await rename(partial, path);
    return count;
  } catch (err) {
    out.destroy();
    await rm(partial, { force: true });
    throw err;
  }
}
