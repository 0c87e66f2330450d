/**
 * What every PostgreSQL connection of the service is opened with (src/db/pg-pool.ts): the statement
 * limit of request traffic, and no JIT compilation — the search statements' cost estimates would
 * have PostgreSQL compile them with LLVM on every execution, which took longer than running them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/database.ts';
import { createTestDatabase, TEST_DB, type TestDatabase } from '../helpers/test-database.ts';

describe.skipIf(TEST_DB !== 'postgres')('PostgreSQL session settings', () => {
  let database: TestDatabase;
  let db: Database;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = await openDatabase({
      ...database.target,
      ...(database.target.kind === 'postgres' ? { statementTimeoutMs: 1234 } : {}),
    });
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  it('when the service runs a statement, then JIT is off and the statement timeout is the configured one', async () => {
    const [settings] = await db.sql.query<{ jit: string; timeout: string }>(
      "SELECT current_setting('jit') AS jit, current_setting('statement_timeout') AS timeout",
    );
    expect(settings).toEqual({ jit: 'off', timeout: '1234ms' });
  });
});
