/**
 * A new embedded database starts from the kept archive of PGlite's initdb (src/db/pglite-template.ts)
 * rather than running initdb again: 1 s instead of 4–5 for every new DATA_DIR. Two clusters made by
 * initdb differ in their system identifier; two loaded from one archive share it.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.ts';
import { initdbTemplateFile } from '../../src/db/pglite-template.ts';
import { TEST_DB } from '../helpers/test-database.ts';

/** Opens an embedded database on a new DATA_DIR: its cluster's identity and the tables it holds. */
async function newDataDir(): Promise<{ cluster: string; tables: number }> {
  const db = await openDatabase({ kind: 'pglite', dataDir: mkdtempSync(join(tmpdir(), 'shop-initdb-')) });
  try {
    const [control] = await db.sql.query<{ id: string }>(
      'SELECT system_identifier::text AS id FROM pg_control_system()',
    );
    const [tables] = await db.sql.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'",
    );
    return { cluster: control!.id, tables: tables!.n };
  } finally {
    await db.close();
  }
}

describe.runIf(TEST_DB === 'pglite')('a new embedded database', () => {
  it('when DATA_DIR is new, then the database starts from the kept initdb archive, empty of anything of ours', async () => {
    await newDataDir(); // keeps the archive, if no earlier start has
    expect(existsSync((await initdbTemplateFile())!)).toBe(true);
    const [a, b] = [await newDataDir(), await newDataDir()];
    expect(a.cluster).toBe(b.cluster);
    expect(a).toEqual({ cluster: a.cluster, tables: 0 });
  });
});
