/**
 * A fresh database per test file: in-memory PGlite, or (TEST_DB=postgres) a new database on the
 * TEST_DATABASE_URL server, dropped afterwards, so runs and files never see each other's rows. It
 * starts migrated, from what global-setup.ts made once per run (a PGlite snapshot, a PostgreSQL
 * template); `empty: true` gives one with no tables at all (the migration tests).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { Database, DatabaseTarget } from '../../src/db/database.ts';
import { appKit } from './app-kit.ts';
import { SNAPSHOT_ENV, TEMPLATE_ENV } from './global-setup.ts';

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

let snapshot: Blob | undefined;
/** The migrated PGlite snapshot of this run, read once per test file (undefined outside `npm test`). */
/** A new DATA_DIR holding a migrated embedded database (a first start's work done: ~1.5 s, not 5+). */
export async function migratedDataDir(prefix = 'shop-data-'): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  const snapshot = migratedSnapshot();
  if (snapshot) await writeSnapshot(dataDir, snapshot);
  return dataDir;
}

/** Loads `snapshot` into DATA_DIR's embedded database files (where the service keeps them). */
async function writeSnapshot(dataDir: string, snapshot: Blob): Promise<void> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  const { fuzzystrmatch } = await import('@electric-sql/pglite/contrib/fuzzystrmatch');
  const db = await PGlite.create(join(dataDir, 'pglite'), {
    extensions: { pg_trgm, fuzzystrmatch },
    loadDataDir: snapshot,
  });
  await db.close();
}

function migratedSnapshot(): Blob | undefined {
  const path = process.env[SNAPSHOT_ENV];
  if (path && !snapshot) snapshot = new Blob([readFileSync(path)]);
  return snapshot;
}

/**
 * Creates a migrated database (`empty`: without any table); PGlite ones live in memory unless
 * `dataDir` is given: then the migrated snapshot is written there (unless `empty`), so a process
 * started on it finds a migrated database, as on a second `npm start`.
 */
export async function createTestDatabase(dataDir?: string, opts: { empty?: boolean } = {}): Promise<TestDatabase> {
  if (TEST_DB === 'pglite') {
    const from = opts.empty ? undefined : migratedSnapshot();
    if (dataDir && from) await writeSnapshot(dataDir, from);
    return { target: { kind: 'pglite', dataDir, snapshot: dataDir ? undefined : from }, drop: async () => {} };
  }
  const name = `shop_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  const template = opts.empty ? undefined : process.env[TEMPLATE_ENV];
  await admin.query(`CREATE DATABASE "${name}"${template ? ` TEMPLATE "${template}"` : ''}`);
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

export interface TestDatabaseOptions {
  /** PostgreSQL only: connect through this local port (a TCP proxy) instead of the server's own. */
  viaPort?: number;
  /** PostgreSQL only: open this existing database (another app's) instead of a fresh one; not dropped. */
  url?: string;
  /** PostgreSQL only: catalogue reads go to these databases (replica stand-ins). */
  replicaUrls?: string[];
  /** PostgreSQL only: connections in the request pool (5 unless given). */
  poolSize?: number;
  /** A database with no tables at all, instead of a migrated one (the migration tests). */
  empty?: boolean;
}

/** Opens a fresh database (or `url`'s) with a `dispose` that closes it and drops what it created. */
export async function openTestDatabase(
  opts: TestDatabaseOptions = {},
): Promise<Database & { url?: string; dispose(): Promise<void> }> {
  const t: TestDatabase = opts.url
    ? { target: { kind: 'postgres', url: opts.url, poolSize: 5 }, url: opts.url, drop: async () => {} }
    : await createTestDatabase(undefined, { empty: opts.empty });
  let target = t.target;
  if (target.kind === 'postgres') {
    const url = new URL(target.url);
    if (opts.viaPort) url.port = String(opts.viaPort);
    target = {
      ...target,
      url: url.toString(),
      replicaUrls: opts.replicaUrls,
      poolSize: opts.poolSize ?? target.poolSize,
    };
  }
  // The service's own database module, from where the app comes (app-kit.ts).
  const db = await (await appKit()).openDatabase(target);
  return Object.assign(db, {
    url: t.url,
    dispose: async () => {
      await db.close();
      await t.drop();
    },
  });
}
