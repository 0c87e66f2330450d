/**
 * An import's file (contract §13.2) read once, in order, as it is uploaded (never whole in memory),
 * decoded as UTF-8, parsed (csv-parse for CSV, line by line for JSON Lines) and staged one row per file
 * row, with the item each row belongs to (its handle). Staged while it arrives, so the import is
 * queued knowing its `rows_total` and its job's progress moves from its first second (a job that
 * staged first stood still for ~25 s at 100,000 items). A file that cannot be read — not UTF-8, a broken
 * quote, a bad header, a line that is not JSON — is a problem naming its row, and nothing stays staged.
 *
 * Staging is idempotent: a row's key is its number in the file, so a run that died half-way, or two
 * runs at once, stage each row exactly once (ON CONFLICT DO NOTHING).
 */
import { once } from 'node:events';
import { parse } from 'csv-parse';
import type { Prisma, SqlDriver } from '../db/database.ts';
import { isStorableText, UNSTORABLE_TEXT } from '../validation/rules.ts';
import { type FileProblem, hasHandle, headerProblems } from './item-file.ts';

/**
 * Rows staged per statement: at most this many, and no more than about STAGE_BYTES of their text — a
 * batch is held in memory (and again as its statement's JSON), and a row may be up to a megabyte.
 */
const STAGE_BATCH = 1000;
const STAGE_BYTES = 4 * 1024 * 1024;
/** The longest CSV record csv-parse holds (a quote never closed would otherwise read the whole file). */
const MAX_RECORD_BYTES = 1024 * 1024;

export type StageOutcome =
  | { ok: true; rows: number; items: number; columns: string[] }
  | { ok: false; problems: FileProblem[] };

/** Thrown inside parsing: the file's problem (ends staging). */
class FileError extends Error {
  constructor(readonly problems: FileProblem[]) {
    super(problems[0]?.message);
  }
}

/** How many bytes of `bytes` are valid UTF-8 (an unfinished sequence at the end counts as valid). */
function validUtf8Length(bytes: Uint8Array): number {
  let low = 0;
  let high = bytes.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, mid), { stream: true });
      low = mid;
    } catch {
      high = mid - 1;
    }
  }
  return low;
}

/**
 * The file's text, piece by piece as its bytes arrive; a byte sequence that is not UTF-8 throws, naming
 * its line (counted over the text before it: a quoted line break makes it a row later than the line).
 */
async function* fileText(bytes: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  // `fatal`: invalid UTF-8 is an error, never U+FFFD; a BOM is dropped (ignoreBOM false).
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let lines = 1;
  const countLines = (text: string) => {
    for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) lines++;
    return text;
  };
  const decode = (part?: Uint8Array) => {
    try {
      return countLines(part ? decoder.decode(part, { stream: true }) : decoder.decode());
    } catch {
      const valid = part ? part.subarray(0, validUtf8Length(part)) : new Uint8Array();
      countLines(new TextDecoder().decode(valid));
      throw new FileError([{ row: lines, field: null, message: `line ${lines} is not UTF-8 text` }]);
    }
  };
  for await (const part of bytes) yield decode(part);
  yield decode();
}

/**
 * A file kept in `import_chunks`, in upload order: how a version before this one took uploads (it
 * staged in the job), so an import it queued is still run after an upgrade.
 */
export async function* storedChunks(prisma: Prisma, importId: number): AsyncGenerator<Uint8Array> {
  for (let seq = 0; ; seq++) {
    const chunk = await prisma.importChunk.findUnique({ where: { importId_seq: { importId, seq } } });
    if (!chunk) return;
    yield chunk.data;
  }
}

/** The handle a row is grouped by: its text trimmed and in lower case; a row without one is an item of its own. */
export const groupKey = (handle: unknown, rowNo: number): string =>
  hasHandle(handle) ? handle.trim().toLowerCase() : `#row${rowNo}`;

/** What a staged file records on its import (the upload's, or a job's that staged an older upload). */
export const stagedColumns = (staged: Extract<StageOutcome, { ok: true }>) => ({
  staged: true,
  rowsTotal: staged.rows,
  itemsTotal: staged.items,
  columns: staged.columns,
});

/** Records of the CSV text as arrays of cells (csv-parse, fed as the text arrives). */
async function* csvRecords(text: AsyncGenerator<string>, rowsSoFar: () => number): AsyncGenerator<string[]> {
  const parser = parse({ relax_column_count: false, skip_empty_lines: true, max_record_size: MAX_RECORD_BYTES });
  let fed: unknown;
  const feed = (async () => {
    try {
      for await (const part of text) {
        if (parser.destroyed) return;
        if (!parser.write(part)) await Promise.race([once(parser, 'drain'), once(parser, 'close')]);
      }
      parser.end();
    } catch (err) {
      fed = err;
      parser.destroy(err as Error);
    }
  })();
  try {
    for await (const record of parser) yield record as string[];
  } catch (err) {
    // The bytes' own failure (not UTF-8; the upload refused or cut off) is reported as it is.
    if (fed) throw fed;
    const code = (err as { code?: string }).code ?? '';
    throw new FileError([{ row: rowsSoFar() + 1, field: null, message: csvMessage(code, err as Error) }]);
  } finally {
    parser.destroy();
    await feed;
  }
  if (fed) throw fed;
}

const csvMessage = (code: string, err: Error): string => {
  if (code === 'CSV_QUOTE_NOT_CLOSED') return 'a quoted field is never closed';
  if (code === 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH') return 'the row has another number of fields than the header';
  if (code === 'CSV_MAX_RECORD_SIZE') return `a row is longer than ${MAX_RECORD_BYTES} bytes`;
  if (code.startsWith('CSV_') || code === 'INVALID_OPENING_QUOTE') return `not valid CSV (RFC 4180): ${err.message}`;
  return err.message;
};

/** JSON Lines: each non-empty line an object; its row is its line number. */
async function* jsonLines(
  text: AsyncGenerator<string>,
): AsyncGenerator<{ rowNo: number; cells: object; size: number }> {
  let rest = '';
  let lineNo = 0;
  const lineOf = (line: string) => {
    lineNo++;
    const trimmed = line.replace(/\r$/, '').trim();
    if (trimmed === '') return undefined;
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch {
      throw new FileError([{ row: lineNo, field: null, message: 'the line is not JSON' }]);
    }
    if (!value || typeof value !== 'object' || Array.isArray(value)) {
      throw new FileError([{ row: lineNo, field: null, message: 'the line must be a JSON object (one item)' }]);
    }
    return { rowNo: lineNo, cells: value, size: trimmed.length };
  };
  for await (const part of text) {
    rest += part;
    let at = rest.indexOf('\n');
    while (at >= 0) {
      const row = lineOf(rest.slice(0, at));
      if (row) yield row;
      rest = rest.slice(at + 1);
      at = rest.indexOf('\n');
    }
    if (rest.length > MAX_RECORD_BYTES) {
      throw new FileError([
        { row: lineNo + 1, field: null, message: `a line is longer than ${MAX_RECORD_BYTES} bytes` },
      ]);
    }
  }
  const last = lineOf(rest);
  if (last) yield last;
}

/** Whether `value` holds, at any depth (keys too), text PostgreSQL cannot store (validation/rules.ts). */
const holdsUnstorable = (value: unknown): boolean =>
  typeof value === 'string'
    ? !isStorableText(value)
    : Array.isArray(value)
      ? value.some(holdsUnstorable)
      : value !== null && typeof value === 'object'
        ? Object.entries(value).some(([key, inner]) => !isStorableText(key) || holdsUnstorable(inner))
        : false;

/** The first column (JSON Lines: top-level field) of a row whose text PostgreSQL cannot store. */
const unstorableField = (cells: Record<string, unknown>): string | undefined =>
  Object.entries(cells).find(([key, value]) => !isStorableText(key) || holdsUnstorable(value))?.[0];

/**
 * Stages import `importId`'s file (format `format`) from its bytes as they come; the counts, or the
 * file's problems (reading stops at the first). The rows go in as plain SQL (`sql`): through Prisma,
 * handling each statement's JSON parameter cost more than the statement.
 */
export async function stageFile(
  prisma: Prisma,
  sql: Pick<SqlDriver, 'queryUnbounded'>,
  importId: number,
  format: 'csv' | 'jsonl',
  bytes: AsyncIterable<Uint8Array>,
): Promise<StageOutcome> {
  let rows = 0;
  let batch: Array<{ row_no: number; handle: string; cells: object }> = [];
  let batchSize = 0;
  const flush = async () => {
    if (!batch.length) return;
    await sql.queryUnbounded(
      `INSERT INTO import_rows (import_id, row_no, handle, cells)
       SELECT $1, r.row_no, r.handle, r.cells FROM jsonb_to_recordset($2::jsonb) AS r(row_no int, handle text, cells jsonb)
       ON CONFLICT (import_id, row_no) DO NOTHING`,
      [importId, JSON.stringify(batch)],
    );
    batch = [];
    batchSize = 0;
  };
  /** `size`: the row's length in the file (its characters), near enough to what it holds in memory. */
  const add = async (rowNo: number, cells: Record<string, unknown>, size: number) => {
    // A cell PostgreSQL cannot hold would fail the staging statement (a 500): the file is refused,
    // naming the row and column, as one that is not UTF-8 is — with the item rules' own words.
    const unstorable = unstorableField(cells);
    if (unstorable !== undefined) throw new FileError([{ row: rowNo, field: unstorable, message: UNSTORABLE_TEXT }]);
    rows++;
    batch.push({ row_no: rowNo, handle: groupKey(cells.handle, rowNo), cells });
    batchSize += size;
    if (batch.length >= STAGE_BATCH || batchSize >= STAGE_BYTES) await flush();
  };
  let columns: string[] = [];
  try {
    if (format === 'csv') {
      // The header is row 1; every later record is the next row (a quoted line break stays in its row).
      let rowNo = 0;
      for await (const record of csvRecords(fileText(bytes), () => rowNo)) {
        rowNo++;
        if (rowNo === 1) {
          columns = record.map((c) => c.trim());
          const problems = headerProblems(columns);
          if (problems.length) throw new FileError(problems);
          continue;
        }
        const size = record.reduce((n, cell) => n + cell.length, 0);
        await add(rowNo, Object.fromEntries(columns.map((c, i) => [c, record[i] ?? ''])), size);
      }
      if (rowNo === 0) throw new FileError([{ row: 1, field: 'handle', message: 'the file is empty: no header row' }]);
    } else {
      for await (const { rowNo, cells, size } of jsonLines(fileText(bytes))) {
        await add(rowNo, cells as Record<string, unknown>, size);
      }
    }
    await flush();
  } catch (err) {
    if (err instanceof FileError) return { ok: false, problems: err.problems };
    throw err;
  }
  // The items in the order of their first rows: a batch of the write is a range of their numbers.
  const [counted] = await prisma.$transaction(async (tx) => {
    await tx.$executeRawUnsafe(
      `INSERT INTO import_items (import_id, item_no, handle)
       SELECT $1, row_number() OVER (ORDER BY min(row_no)), handle FROM import_rows WHERE import_id = $1 GROUP BY handle
       ON CONFLICT DO NOTHING`,
      importId,
    );
    return tx.$queryRawUnsafe<Array<{ items: number }>>(
      'SELECT count(*)::int AS items FROM import_items WHERE import_id = $1',
      importId,
    );
  });
  return { ok: true, rows, items: counted?.items ?? 0, columns };
}
