/**
 * `npm run cli -- import FILE [--dry-run] [--mode upsert|create|update] [--atomic] [--format csv|jsonl]`
 * (contract §13.2): the file imported as an operator's import — queued like any other, then run by
 * this process (a running service on the same database may take slices of it too: each batch is
 * applied once whoever runs it). Progress is a bar on a terminal (cli-progress), a line per 10 %
 * otherwise; then the report. Exit code 1 when any item failed or the import did.
 */
import { createReadStream } from 'node:fs';
import { extname } from 'node:path';
import cliProgress from 'cli-progress';
import type { Import } from '../generated/prisma/client.ts';
import type { RequestContext } from '../request-context.ts';
import { importRunner, runImportSlice } from '../transfer/import-job.ts';
import { errorsCsvPath, IMPORT_FORMATS, IMPORT_MODES, startImport } from '../transfer/imports.service.ts';

export interface ImportArgs {
  file: string;
  format?: string;
  mode?: string;
  dryRun: boolean;
  atomic: boolean;
}

export interface ProgressOut {
  /** Whether the output is a terminal (a bar redrawn in place) or a log (a line per 10 %). */
  isTTY: boolean;
  write(text: string): void;
}

/** How often the progress is read while the import runs. */
const PROGRESS_EVERY_MS = 250;

/** Parses the import command's options; a message for what is wrong. */
export function importArgs(positional: string[]): ImportArgs | string {
  const [file, ...rest] = positional;
  if (!file) return 'import needs a FILE';
  const args: ImportArgs = { file, dryRun: false, atomic: false };
  for (let i = 0; i < rest.length; i++) {
    const option = rest[i];
    if (option === '--dry-run') args.dryRun = true;
    else if (option === '--atomic') args.atomic = true;
    else if ((option === '--mode' || option === '--format') && rest[i + 1] !== undefined) {
      args[option === '--mode' ? 'mode' : 'format'] = rest[++i];
    } else return `unexpected argument: ${option}`;
  }
  if (args.mode && !(IMPORT_MODES as readonly string[]).includes(args.mode)) {
    return `--mode must be one of ${IMPORT_MODES.join(', ')}`;
  }
  if (args.format && !(IMPORT_FORMATS as readonly string[]).includes(args.format)) {
    return `--format must be one of ${IMPORT_FORMATS.join(', ')}`;
  }
  return args;
}

/** Shows an import's progress: a bar on a terminal, a line per 10 % otherwise. */
function progressView(out: ProgressOut) {
  const bar = out.isTTY
    ? new cliProgress.SingleBar(
        {
          format: 'importing |{bar}| {percentage}% {value}/{total} rows, {eta_formatted} left',
          stream: { write: (t: string) => out.write(t), isTTY: true } as unknown as NodeJS.WritableStream,
        },
        cliProgress.Presets.shades_classic,
      )
    : undefined;
  let started = false;
  let tenth = 0;
  return {
    show(row: Import) {
      const total = row.rowsTotal ?? 0;
      if (!total) return;
      if (bar) {
        if (!started) bar.start(total, row.rowsDone);
        else bar.update(row.rowsDone);
      } else {
        const now = Math.floor((row.rowsDone / total) * 10);
        for (; tenth < now; tenth++) out.write(`${(tenth + 1) * 10}% (${row.rowsDone}/${total} rows)\n`);
      }
      started = true;
    },
    stop: () => bar?.stop(),
  };
}

/** The final report's lines. */
function report(row: Import): string {
  const lines = [
    `import #${row.id} ${row.status}${row.dryRun ? ' (dry run: nothing written)' : ''}: ` +
      `${row.createdCount} created, ${row.updatedCount} updated, ${row.unchangedCount} unchanged, ${row.failedCount} failed ` +
      `(${row.rowsDone}/${row.rowsTotal ?? 0} rows)`,
  ];
  const errors = row.errors as Array<{ row: number; field: string | null; message: string }>;
  for (const e of errors.slice(0, 10)) lines.push(`  row ${e.row}${e.field ? ` ${e.field}` : ''}: ${e.message}`);
  if (row.errorCount > 10) lines.push(`  … ${row.errorCount - 10} more`);
  if (row.failedCount > 0) lines.push(`every failed row: GET ${errorsCsvPath(row.id)}`);
  return lines.join('\n');
}

/** Runs the command: the report and the exit code. */
export async function runImportCommand(
  ctx: RequestContext,
  args: ImportArgs,
  out: ProgressOut,
): Promise<{ text: string; code: number }> {
  const format = (args.format ?? (/\.(jsonl|ndjson)$/i.test(extname(args.file)) ? 'jsonl' : 'csv')) as 'csv' | 'jsonl';
  const started = await startImport(ctx, {
    file: { stream: () => createReadStream(args.file) },
    format,
    mode: (args.mode ?? 'upsert') as 'upsert',
    dryRun: args.dryRun,
    atomic: args.atomic,
  });
  const runner = importRunner(ctx.db, ctx.services, ctx.log);
  const view = progressView(out);
  const read = () => ctx.db.prisma.import.findUniqueOrThrow({ where: { id: started.id } });
  const watching = setInterval(() => void read().then(view.show, () => {}), PROGRESS_EVERY_MS);
  try {
    while ((await runImportSlice(runner, started.id)) === 'more') {}
  } finally {
    clearInterval(watching);
  }
  const done = await read();
  view.show(done);
  view.stop();
  return { text: report(done), code: done.status === 'succeeded' && done.failedCount === 0 ? 0 : 1 };
}
