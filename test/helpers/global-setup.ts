/**
 * Once per `npm test`, before any test file: a migrated database every test file starts from, so no
 * file pays for initdb and migrations of its own (test-database.ts). PGlite: a data-directory
 * snapshot of a migrated in-memory database (loading it takes ~1 s where a fresh one took 3–4 s).
 * PostgreSQL (TEST_DATABASE_URL): a template database, cloned by `CREATE DATABASE … TEMPLATE`. Both
 * are named by a hash of the migrations, so an edited or new migration makes a new one.
 *
 * The snapshot (~40 MB) lives in the run's directory (run-dir.ts) and goes with it at the end: making
 * it is one in-memory migration of a few seconds, while keeping it across runs left one archive per
 * migration change in the temp directory, and a shared cache would be deleted under the feet of a
 * run of another checkout with other migrations. Also measured here, once: how busy the machine is
 * (time-scale.ts), so timeouts follow it.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { openDatabase } from '../../src/db/database.ts';
import { applyMigrations, readMigrations } from '../../src/db/migrate.ts';
import { makeRunDir, RUN_DIR_ENV, removeRunDir } from './run-dir.ts';
import { buildOnce, ROOT } from './service-process.ts';
import { measureTimeScale, TIME_SCALE_ENV } from './time-scale.ts';

/** Where test-database.ts finds what this made. */
export const SNAPSHOT_ENV = 'SHOP_TEST_PGLITE_SNAPSHOT';
export const TEMPLATE_ENV = 'SHOP_TEST_PG_TEMPLATE';

/** Names what was made: the migrations, and PGlite's version (its data-directory format). */
async function migrationsHash(): Promise<string> {
  const migrations = await readMigrations();
  const pglite = JSON.parse(readFileSync(join(ROOT, 'node_modules/@electric-sql/pglite/package.json'), 'utf8')) as {
    version: string;
  };
  return createHash('sha256')
    .update(`pglite ${pglite.version}\n${migrations.map((m) => `${m.name}:${m.checksum}`).join('\n')}`)
    .digest('hex')
    .slice(0, 12);
}

async function pgliteSnapshot(hash: string, dir: string): Promise<string> {
  const path = join(dir, `shop-test-pglite-${hash}.tar`);
  if (existsSync(path)) return path;
  const db = await openDatabase({ kind: 'pglite' });
  try {
    await applyMigrations(db.sql, await readMigrations());
    const archive = await db.snapshot!();
    // Written aside, then renamed: a run that stops halfway leaves no partial archive behind.
    const draft = `${path}.${process.pid}`;
    writeFileSync(draft, Buffer.from(await archive.arrayBuffer()));
    renameSync(draft, path);
  } finally {
    await db.close();
  }
  return path;
}

async function pgTemplate(url: string, hash: string): Promise<string> {
  const name = `shop_test_template_${hash}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1 AND datistemplate', [name]);
    if (rowCount) return name;
    // Half-made by a run that stopped: start over.
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${name}"`);
    const target = new URL(url);
    target.pathname = `/${name}`;
    const db = await openDatabase({ kind: 'postgres', url: target.toString(), poolSize: 1 });
    try {
      await applyMigrations(db.sql, await readMigrations());
    } finally {
      await db.close();
    }
    // Marked as a template once complete; no connection may stay open to it while it is cloned.
    await admin.query(`ALTER DATABASE "${name}" WITH IS_TEMPLATE true ALLOW_CONNECTIONS false`);
    return name;
  } finally {
    await admin.end();
  }
}

/** Returns the global teardown: the run's directory, with the snapshot and whatever a test left, goes. */
export default async function setup(): Promise<() => void> {
  // Before this run adds its own load: what other work the machine is doing.
  process.env[TIME_SCALE_ENV] ??= String(measureTimeScale());
  // Called again for each project (pglite, postgres), in this process: the first call's directory,
  // snapshot and template serve them all (test workers start once every setup has finished).
  if (process.env[RUN_DIR_ENV]) return () => {};
  const runDir = makeRunDir();
  process.env[RUN_DIR_ENV] = runDir;
  // Test workers inherit it: every tmpdir() of a test lands in the run's directory.
  process.env.TMPDIR = runDir;
  try {
    // The bundle `npm start` runs, as the source is now: the `bundle` project's apps come from it.
    buildOnce();
    const hash = await migrationsHash();
    process.env[SNAPSHOT_ENV] = await pgliteSnapshot(hash, runDir);
    const url = process.env.TEST_DATABASE_URL;
    if (url) process.env[TEMPLATE_ENV] = await pgTemplate(url, hash);
  } catch (err) {
    removeRunDir(runDir);
    throw err;
  }
  return () => removeRunDir(runDir);
}
