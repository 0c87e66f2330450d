/**
 * One batch of an import (src/transfer/import-batch.ts) with a write limit: a batch spans many
 * unchanged items cheaply but writes at most its limit, stopping before the item one write too many
 * (contract §13.2: progress at least once a second, whatever the file's mix).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexerSql } from '../../src/search/indexer-sql.ts';
import { type BatchResult, runBatch } from '../../src/transfer/import-batch.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.close());

const COLUMNS = ['handle', 'name', 'category', 'price', 'status'];

/** A queued import whose file is staged: one row (and item) per handle, in order. */
async function stagedImport(items: Array<{ handle: string; name: string }>): Promise<number> {
  const [row] = await app.db.sql.queryUnbounded<{ id: number }>(
    `INSERT INTO imports (format, mode, dry_run, atomic, columns, actor_type, staged, rows_total, items_total)
     VALUES ('csv', 'upsert', false, false, $1, 'cli', true, $2, $2) RETURNING id`,
    [COLUMNS, items.length],
  );
  const id = row!.id;
  await app.db.sql.queryUnbounded(
    `INSERT INTO import_rows (import_id, row_no, handle, cells)
     SELECT $1, r.n + 1, r.handle, r.cells FROM jsonb_to_recordset($2::jsonb) AS r(n int, handle text, cells jsonb)`,
    [
      id,
      JSON.stringify(
        items.map((item, n) => ({
          n: n + 1,
          handle: item.handle,
          cells: { handle: item.handle, name: item.name, category: 'Batches', price: '3', status: 'active' },
        })),
      ),
    ],
  );
  await app.db.sql.queryUnbounded(
    'INSERT INTO import_items (import_id, item_no, handle) SELECT $1, row_no - 1, handle FROM import_rows WHERE import_id = $1',
    [id],
  );
  return id;
}

const batch = (importId: number, from: number, to: number, writeLimit?: number): Promise<BatchResult> =>
  app.db.sql.transaction((query) =>
    runBatch(
      indexerSql(query),
      {
        importId,
        format: 'csv',
        mode: 'upsert',
        columns: COLUMNS,
        dryRun: false,
        actor: { type: 'cli', id: null, name: null },
        ip: null,
      },
      from,
      to,
      writeLimit,
    ),
  );

const handles = async (prefix: string) =>
  (
    await app.db.sql.queryUnbounded<{ handle: string }>(
      'SELECT handle FROM items WHERE handle LIKE $1 ORDER BY handle',
      [`${prefix}%`],
    )
  ).map((r) => r.handle);

describe('an import batch with a write limit', () => {
  it('when unchanged items come before more changed ones than the limit, then it takes them all and stops before the write one too many', async () => {
    const first = Array.from({ length: 4 }, (_, i) => ({ handle: `wl-a${i}`, name: `Limit ${i}` }));
    const done = await batch(await stagedImport(first), 1, 4);
    expect(done).toMatchObject({ created: 4, through: 4 });

    // The same 4 (unchanged), then 4 new ones: 4 writes, the limit 3.
    const again = [...first, ...Array.from({ length: 4 }, (_, i) => ({ handle: `wl-c${i}`, name: `New c${i}` }))];
    const id = await stagedImport(again);
    const limited = await batch(id, 1, 8, 3);
    expect(limited).toMatchObject({ unchanged: 4, created: 3, updated: 0, failed: 0, rows: 7, through: 7 });
    expect(limited.events.map((e) => e.type)).toEqual(['item.created', 'item.created', 'item.created']);
    expect(await handles('wl-c')).toEqual(['wl-c0', 'wl-c1', 'wl-c2']);

    // The next batch starts after `through`: the last item, once.
    const rest = await batch(id, limited.through + 1, 8, 3);
    expect(rest).toMatchObject({ created: 1, unchanged: 0, rows: 1, through: 8 });
    expect(await handles('wl-c')).toEqual(['wl-c0', 'wl-c1', 'wl-c2', 'wl-c3']);
  });

  it('when no limit is given or it is not reached, then the batch takes every item of its range', async () => {
    const id = await stagedImport(Array.from({ length: 5 }, (_, i) => ({ handle: `wl-d${i}`, name: `Whole ${i}` })));
    expect(await batch(id, 1, 5, 5)).toMatchObject({ created: 5, through: 5 });
  });
});
