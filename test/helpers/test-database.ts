/**
 * A fresh, empty database per test file: in-memory PGlite, or (TEST_DB=postgres) a new database on
 * the TEST_DATABASE_URL server, dropped afterwards, so runs and files never see each other's rows.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type Database, type DatabaseTarget } from '../../src/db/database.ts';

export const TEST_DB = (process.env.TEST_DB ?? 'pglite') as 'pglite' | 'postgres';

export interface TestDatabase {
  target: DatabaseTarget;
  /** Connection URL of a PostgreSQL test database (undefined on PGlite). */
  url?: string;
  drop(): Promise<void>;
}

function adminUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DB=postgres needs TEST_DATABASE_URL');
  return url;
}

/** Creates an empty database; PGlite ones live in memory unless `dataDir` is given. */
export async function createTestDatabase(dataDir?: string): Promise<TestDatabase> {
  if (TEST_DB === 'pglite') return { target: { kind: 'pglite', dataDir }, drop: async () => {} };
  const name = `shop_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  return {
    target: { kind: 'postgres', url: url.toString(), poolSize: 5 },
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: adminUrl() });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await c.end();
    },
  };
}

/** Opens a fresh database (optionally through a local proxy port) with a `dispose` that closes and drops it. */
export async function openTestDatabase(viaPort?: number): Promise<Database & { dispose(): Promise<void> }> {
  const t = await createTestDatabase();
  let target = t.target;
  if (viaPort && target.kind === 'postgres') {
    const url = new URL(target.url);
    url.port = String(viaPort);
    target = { ...target, url: url.toString() };
  }
  const db = await openDatabase(target);
  return Object.assign(db, {
    dispose: async () => {
      await db.close();
      await t.drop();
    },
  });
}
