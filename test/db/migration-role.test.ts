/**
 * Issue 34: with MIGRATION_DATABASE_URL the tables belong to a migration role and the service serves
 * as DATABASE_URL's role, which may append to and read the audit log but not disable or drop its
 * trigger, nor UPDATE, DELETE or TRUNCATE it (contract §10.2 holds even against the serving role).
 * PostgreSQL only: the embedded database has one role.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itemBody } from '../helpers/catalog-admin.ts';
import { ROOT, type ServiceProcess, startService } from '../helpers/service-process.ts';
import { TEST_DB } from '../helpers/test-database.ts';

const ADMIN = { username: 'roles-admin', password: 'roles-admin-pw-7Kq2' };
const suffix = randomBytes(4).toString('hex');
const OWNER = `shop_owner_${suffix}`;
const SERVING = `shop_runtime_${suffix}`;
const DATABASES = [`shop_roles_a_${suffix}`, `shop_roles_b_${suffix}`] as const;

/** TEST_DATABASE_URL's server, logged in as `role`, on `database`. */
function urlAs(role: string, database: string): string {
  const url = new URL(process.env.TEST_DATABASE_URL!);
  url.username = role;
  url.password = '';
  url.pathname = `/${database}`;
  return url.toString();
}

/** `fn` on a client of TEST_DATABASE_URL's role (a superuser), on its database or `database`. */
async function asSuperuser<T>(fn: (c: pg.Client) => Promise<T>, database?: string): Promise<T> {
  const url = new URL(process.env.TEST_DATABASE_URL!);
  if (database) url.pathname = `/${database}`;
  const c = new pg.Client({ connectionString: url.toString() });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** The parts of the answers read here. */
interface Answer {
  access_token?: string;
  errors?: unknown;
  data?: { createCategory: { id: number } };
}

async function post(url: string, body: unknown, token?: string): Promise<{ status: number; body: Answer }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Answer };
}

/** Runs `statement` as `role` on `database`. */
async function queryAs(role: string, database: string, statement: string): Promise<pg.QueryResult> {
  const c = new pg.Client({ connectionString: urlAs(role, database) });
  await c.connect();
  try {
    return await c.query(statement);
  } finally {
    await c.end();
  }
}

/** The error code and message PostgreSQL answers `statement` with, run as the serving role on `database`. */
async function refusal(database: string, statement: string): Promise<{ code?: string; message: string } | 'done'> {
  try {
    await queryAs(SERVING, database, statement);
    return 'done';
  } catch (err) {
    return { code: (err as { code?: string }).code, message: (err as Error).message };
  }
}

/** `npm run db:migrate` with DATABASE_URL as the serving role and MIGRATION_DATABASE_URL as the owner; its stdout. */
async function migrateAsOwner(database: string): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/migrate.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      DATABASE_URL: urlAs(SERVING, database),
      MIGRATION_DATABASE_URL: urlAs(OWNER, database),
    },
  });
  return stdout;
}

describe.skipIf(TEST_DB !== 'postgres')('a migration role and a serving role', () => {
  const services: ServiceProcess[] = [];
  beforeAll(async () => {
    await asSuperuser(async (c) => {
      await c.query(`CREATE ROLE "${OWNER}" LOGIN`);
      // A plain login: no CREATE on any schema (PostgreSQL 15 takes it from PUBLIC), owns nothing.
      await c.query(`CREATE ROLE "${SERVING}" LOGIN`);
      for (const db of DATABASES) await c.query(`CREATE DATABASE "${db}" OWNER "${OWNER}"`);
    });
  });
  afterAll(async () => {
    for (const s of services) await s.stop();
    await asSuperuser(async (c) => {
      for (const db of DATABASES) await c.query(`DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`);
      await c.query(`DROP ROLE IF EXISTS "${SERVING}"`);
      await c.query(`DROP ROLE IF EXISTS "${OWNER}"`);
    });
  });

  it('when the service starts with MIGRATION_DATABASE_URL, then it migrates as the owner, serves audited writes as the serving role, and that role cannot disable, drop or bypass the audit log trigger', {
    timeout: 120_000,
  }, async () => {
    const [db] = DATABASES;
    const service = await startService({
      DATABASE_URL: urlAs(SERVING, db),
      MIGRATION_DATABASE_URL: urlAs(OWNER, db),
      WORKERS: '1',
      LOG_LEVEL: 'info',
      // The demo catalogue and its search documents are written as the serving role too.
      SEED_DEMO: 'true',
      ADMIN_USERNAME: ADMIN.username,
      ADMIN_PASSWORD: ADMIN.password,
    });
    services.push(service);

    const login = await post(`${service.url}/admin/api/auth/login`, ADMIN);
    expect(login.status).toBe(200);
    const token = login.body.access_token;
    const category = await post(
      `${service.url}/graphql`,
      { query: 'mutation { createCategory(input: { name: "Boots" }) { id } }' },
      token,
    );
    expect(category.body.errors).toBeUndefined();
    const item = await post(`${service.url}/admin/api/items`, itemBody(category.body.data!.createCategory.id), token);
    expect(item.status).toBe(201);

    const owners = await queryAs(OWNER, db, `SELECT DISTINCT tableowner FROM pg_tables WHERE schemaname = 'public'`);
    expect(owners.rows.map((r) => r.tableowner)).toEqual([OWNER]);
    // It reads and appends: the write above is in the log, written as the serving role.
    const audited = await queryAs(SERVING, db, `SELECT action FROM audit_log WHERE action = 'item.create'`);
    expect(audited.rowCount).toBe(1);

    const notOwner = { code: '42501', message: expect.stringMatching(/^must be owner of (table|relation) audit_log$/) };
    const noPrivilege = { code: '42501', message: 'permission denied for table audit_log' };
    expect(await refusal(db, 'ALTER TABLE audit_log DISABLE TRIGGER audit_log_append_only')).toEqual(notOwner);
    expect(await refusal(db, 'ALTER TABLE audit_log DISABLE TRIGGER ALL')).toEqual(notOwner);
    expect(await refusal(db, 'DROP TRIGGER audit_log_append_only ON audit_log')).toEqual(notOwner);
    // Refused by privileges before the trigger is reached (its own message is "audit_log is append-only").
    expect(await refusal(db, `UPDATE audit_log SET action = 'item.delete'`)).toEqual(noPrivilege);
    expect(await refusal(db, 'DELETE FROM audit_log')).toEqual(noPrivilege);
    expect(await refusal(db, 'TRUNCATE audit_log')).toEqual(noPrivilege);
    expect(await refusal(db, 'DROP TABLE audit_log')).toEqual(notOwner);
    expect(await refusal(db, 'CREATE TABLE scratch (id int)')).toMatchObject({ code: '42501' });
  });

  it('when the serving role starts alone on a database that is behind, then it stops naming MIGRATION_DATABASE_URL; once `npm run db:migrate` ran as the owner, it starts and serves', {
    timeout: 120_000,
  }, async () => {
    const [, db] = DATABASES;
    const env = { DATABASE_URL: urlAs(SERVING, db), WORKERS: '1', LOG_LEVEL: 'info', SEED_DEMO: 'false' };
    await expect(startService(env)).rejects.toThrow(/migration\(s\) pending .* set MIGRATION_DATABASE_URL/);
    // Stopped before changing anything.
    expect((await queryAs(OWNER, db, `SELECT 1 FROM pg_tables WHERE schemaname = 'public'`)).rowCount).toBe(0);

    expect(await migrateAsOwner(db)).toMatch(/^applied: \d+_init/);

    const service = await startService(env);
    services.push(service);
    expect((await fetch(`${service.url}/api/v1/categories`)).status).toBe(200);
    expect(await refusal(db, 'TRUNCATE audit_log')).toEqual({
      code: '42501',
      message: 'permission denied for table audit_log',
    });
  });

  it('when the owner granted the serving role more by hand, then the next migration run takes it back; when the serving role owns a table, then migrating stops naming it', async () => {
    const [, db] = DATABASES;
    await queryAs(OWNER, db, `GRANT UPDATE, DELETE, TRUNCATE ON audit_log TO "${SERVING}"`);
    expect(await migrateAsOwner(db)).toMatch(/database is up to date/);
    expect(await refusal(db, 'DELETE FROM audit_log')).toMatchObject({
      message: 'permission denied for table audit_log',
    });

    // As a table created in the simple mode, by the role that served then.
    await asSuperuser((c) => c.query(`CREATE TABLE stray (id int); ALTER TABLE stray OWNER TO "${SERVING}"`), db);
    await expect(migrateAsOwner(db)).rejects.toThrow(/"shop_runtime_\w+" owns .*stray.*REASSIGN OWNED/);
  });
});
