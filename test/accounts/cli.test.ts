/**
 * `npm run cli -- …`. The commands run in-process (cli/commands.ts, the code the bundle runs) on a
 * test app's database, so each check is quick and a login through the real HTTP server proves what a
 * command wrote; the bundle itself (`node dist/cli.js`, as `npm run cli` runs it) is spawned for what
 * only a process shows: stdin and CLI_PASSWORD, exit codes, a password on the command line refused.
 * Every test makes the accounts it needs, under names of its own.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { passwordHasher } from '../../src/auth/password.ts';
import { type Database, openDatabase } from '../../src/db/database.ts';
import { type CliResult, cliOn } from '../helpers/cli.ts';
import { nodeScript, ROOT } from '../helpers/service-process.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { createTestDatabase } from '../helpers/test-database.ts';

// The test suite's cost (NODE_ENV=test): verifying reads the cost from the hash itself.
const { hash: hashPassword, verify: verifyPassword } = passwordHasher('test');

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

/** Runs a command line in-process on the test app's database; `stdin` is the password it reads. */
const cli = (args: string[], opts: { stdin?: string } = {}): Promise<CliResult> => cliOn(app, args, opts);

/** The test app's database, as the checks after a command read it. */
const withDb = <T>(fn: (db: Database) => Promise<T>): Promise<T> => fn(app.db);

/** An admin with `password`, written directly (the test's own account for the CLI to act on). */
const seedAdmin = async (username: string, password = 'admin-password-1') =>
  app.db.prisma.admin.create({ data: { username, passwordHash: await hashPassword(password) } });

/** A customer with `password`, written directly. */
const seedCustomer = async (username: string, password = 'customer-password-1') =>
  app.db.prisma.customer.create({ data: { username, passwordHash: await hashPassword(password), nickname: null } });

/** A live session for the customer, written directly (the CLI must revoke it). */
async function openSessionOf(username: string) {
  const customer = await app.db.prisma.customer.findUniqueOrThrow({ where: { username } });
  await app.db.prisma.customerSession.create({
    data: {
      id: crypto.randomUUID(),
      customerId: customer.id,
      currentJti: crypto.randomUUID(),
      currentIssuedAt: new Date(),
      expiresAt: new Date(Date.now() + 3600_000),
    },
  });
}

const adminLogin = (username: string, password: string) =>
  app.request('/admin/api/auth/login', { method: 'POST', body: { username, password } });

/** The bundle, as `npm run cli` runs it, with `args`, writing `stdin` (if any) and closing it. */
function spawnCli(args: string[], env: Record<string, string>, opts: { stdin?: string } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeScript('cli'), ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(opts.stdin ?? '');
  });
}

describe('npm run cli, the process', () => {
  it('when the bundle gets a password on stdin or in CLI_PASSWORD, then the accounts exist with argon2id hashes and no password is printed', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'shop-cli-'));
    const database = await createTestDatabase(dataDir);
    const env: Record<string, string> = { NODE_ENV: 'test', LOG_LEVEL: 'silent', DATA_DIR: dataDir };
    if (database.url) env.DATABASE_URL = database.url;
    try {
      const admin = await spawnCli(['create-admin', 'ops-lead'], env, { stdin: 'ops-lead-password\n' });
      expect(admin.stderr).toBe('');
      expect(admin.code).toBe(0);
      // The first admin of a database is an owner without --role (contract §10.1).
      expect(admin.stdout).toMatch(/^created admin #\d+ ops-lead \(owner\)\n$/);
      const customer = await spawnCli(['create-customer', ' Carol@Example.COM ', '--nickname', 'Carol'], {
        ...env,
        CLI_PASSWORD: 'carol-password',
      });
      expect(customer.code).toBe(0);
      expect(customer.stdout).toMatch(/created customer #\d+ carol@example\.com/);
      expect(admin.stdout + admin.stderr + customer.stdout + customer.stderr).not.toMatch(
        /ops-lead-password|carol-password/,
      );
      const db = await openDatabase(database.target);
      try {
        const stored = await db.prisma.admin.findUniqueOrThrow({ where: { username: 'ops-lead' } });
        expect(stored.passwordHash).toMatch(/^\$argon2id\$/);
        expect(await verifyPassword(stored.passwordHash, 'ops-lead-password')).toBe(true);
        const carol = await db.prisma.customer.findUniqueOrThrow({ where: { username: 'carol@example.com' } });
        expect(carol.nickname).toBe('Carol');
        expect(await verifyPassword(carol.passwordHash, 'carol-password')).toBe(true);
      } finally {
        await db.close();
      }
    } finally {
      await database.drop();
    }
  });

  it('when the command line is wrong or carries a password, then the bundle exits 2 with the reason before opening any database', async () => {
    // DATA_DIR does not exist: a command that got as far as the database would fail differently.
    const env = { NODE_ENV: 'test', LOG_LEVEL: 'silent', DATA_DIR: '/nonexistent-cli-data-dir' };
    for (const args of [
      ['create-admin', 'argv-admin', '--password', 'secret-pw-123'],
      ['create-admin', 'argv-admin', '--password=secret-pw-123'],
    ]) {
      const res = await spawnCli(args, env, { stdin: 'secret-pw-123\n' });
      expect(res.code).toBe(2);
      expect(res.stderr).toMatch(/never taken from the command line/);
    }
    const usage = await spawnCli(['reset-password', 'robot', 'x'], env);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/usage: npm run cli/);
  });
});

describe('npm run cli, the commands', () => {
  it('when create-admin gets the password on stdin, then the admin exists with an argon2id hash and the password is never printed', async () => {
    const res = await cli(['create-admin', 'ops-lead', '--role', 'catalog_manager'], { stdin: 'ops-lead-password\n' });
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^created admin #\d+ ops-lead \(catalog_manager\)\n$/);
    await withDb(async (db) => {
      const admin = await db.prisma.admin.findUniqueOrThrow({ where: { username: 'ops-lead' } });
      expect(admin.passwordHash).toMatch(/^\$argon2id\$/);
      expect(await verifyPassword(admin.passwordHash, 'ops-lead-password')).toBe(true);
    });
  });

  it('when create-customer gets the password from CLI_PASSWORD, then the customer exists with a normalised e-mail and nickname', async () => {
    const res = await cli(['create-customer', ' Carol@Example.COM ', '--nickname', 'Carol'], {
      stdin: 'carol-password\n',
    });
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/created customer #\d+ carol@example\.com/);
    expect(res.stdout + res.stderr).not.toContain('carol-password');
    await withDb(async (db) => {
      const customer = await db.prisma.customer.findUniqueOrThrow({ where: { username: 'carol@example.com' } });
      expect(customer.nickname).toBe('Carol');
      expect(await verifyPassword(customer.passwordHash, 'carol-password')).toBe(true);
    });
  });

  it('when a password is given on the command line, then it is refused (exit 2) and nothing is created', async () => {
    for (const args of [
      ['create-admin', 'argv-admin', '--password', 'secret-pw-123'],
      ['create-admin', 'argv-admin', '--password=secret-pw-123'],
    ]) {
      const res = await cli(args, { stdin: 'secret-pw-123\n' });
      expect(res.code).toBe(2);
      expect(res.stderr).toMatch(/never taken from the command line/);
    }
    await withDb(async (db) => expect(await db.prisma.admin.count({ where: { username: 'argv-admin' } })).toBe(0));
  });

  it('when the input is invalid or the name taken, then exit 1 naming the field', async () => {
    const short = await cli(['create-customer', 'dave@example.com'], { stdin: 'short\n' });
    expect(short.code).toBe(1);
    expect(short.stderr).toMatch(/password: must be at least 8 characters/);
    await seedAdmin('taken-lead');
    const taken = await cli(['create-admin', 'taken-lead', '--role', 'viewer'], { stdin: 'another-password\n' });
    expect(taken.code).toBe(1);
    expect(taken.stderr).toMatch(/username: is already taken/);
  });

  it('when a customer is disabled and enabled again, then the flag follows and the sessions are revoked', async () => {
    await seedCustomer('erin@example.com');
    await openSessionOf('erin@example.com');
    const disabled = await cli(['disable-customer', 'ERIN@example.com']);
    expect(disabled.code).toBe(0);
    expect(disabled.stdout).toMatch(/disabled \(sessions revoked\) customer #\d+ erin@example\.com/);
    await withDb(async (db) => {
      const erin = await db.prisma.customer.findUniqueOrThrow({
        where: { username: 'erin@example.com' },
        include: { sessions: true },
      });
      expect(erin.disabled).toBe(true);
      expect(erin.sessions.every((s) => s.revokedAt !== null)).toBe(true);
    });
    expect((await cli(['enable-customer', 'erin@example.com'])).code).toBe(0);
    await withDb(async (db) =>
      expect((await db.prisma.customer.findUniqueOrThrow({ where: { username: 'erin@example.com' } })).disabled).toBe(
        false,
      ),
    );
  });

  it('when an admin is disabled and enabled, then the flag follows; an unknown name or command fails', async () => {
    await seedAdmin('night-lead');
    expect((await cli(['disable-admin', 'night-lead'])).stdout).toMatch(/disabled admin #\d+ night-lead/);
    await withDb(async (db) =>
      expect((await db.prisma.admin.findUniqueOrThrow({ where: { username: 'night-lead' } })).disabled).toBe(true),
    );
    expect((await cli(['enable-admin', 'night-lead'])).code).toBe(0);
    await withDb(async (db) =>
      expect((await db.prisma.admin.findUniqueOrThrow({ where: { username: 'night-lead' } })).disabled).toBe(false),
    );

    const unknown = await cli(['disable-admin', 'nobody']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/No such admin/);
    const usage = await cli(['frobnicate', 'x']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/unknown command: frobnicate/);
  });
});

describe('npm run cli — password resets and the admin list (contract §8.1)', () => {
  it('when reset-password admin gets a new password on stdin, then that admin logs in with it, and only that admin changes', async () => {
    await seedAdmin('reset-lead');
    await seedAdmin('bystander');
    const before = await withDb((db) => db.prisma.admin.findMany({ orderBy: { id: 'asc' } }));
    const res = await cli(['reset-password', 'admin', 'reset-lead'], { stdin: 'recovered-password\n' });
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^password reset for admin #\d+ reset-lead\n$/);
    expect(res.stdout).not.toContain('recovered-password');
    await withDb(async (db) => {
      const admins = await db.prisma.admin.findMany({ orderBy: { id: 'asc' } });
      const lead = admins.find((a) => a.username === 'reset-lead')!;
      expect(await verifyPassword(lead.passwordHash, 'recovered-password')).toBe(true);
      expect((await adminLogin('reset-lead', 'recovered-password')).status).toBe(200);
      expect(admins.length).toBeGreaterThanOrEqual(2);
      for (const other of admins.filter((a) => a.username !== 'reset-lead')) {
        expect(other.passwordHash).toBe(before.find((b) => b.id === other.id)!.passwordHash);
      }
    });
  });

  it('when reset-password customer runs, then the new password is set and every session of the customer is revoked', async () => {
    await seedCustomer('frank@example.com');
    await openSessionOf('frank@example.com');
    const res = await cli(['reset-password', 'customer', ' Frank@Example.com '], { stdin: 'frank-new-password\n' });
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/password reset for customer #\d+ frank@example\.com \(sessions revoked\)/);
    await withDb(async (db) => {
      const frank = await db.prisma.customer.findUniqueOrThrow({
        where: { username: 'frank@example.com' },
        include: { sessions: true },
      });
      expect(await verifyPassword(frank.passwordHash, 'frank-new-password')).toBe(true);
      expect(frank.sessions.length).toBeGreaterThan(0);
      expect(frank.sessions.every((s) => s.revokedAt !== null)).toBe(true);
    });
  });

  it('when reset-password is misused, then usage (exit 2), an unknown account or a short password (exit 1), nothing changed', async () => {
    await seedAdmin('misuse-lead', 'misuse-lead-password');
    for (const args of [
      ['reset-password'],
      ['reset-password', 'root'],
      ['reset-password', 'robot', 'x'],
      ['reset-password', 'admin', 'a', 'b'],
    ]) {
      const res = await cli(args, { stdin: 'whatever-password\n' });
      expect(res.code, args.join(' ')).toBe(2);
      expect(res.stderr).toMatch(/usage: npm run cli/);
    }
    const unknown = await cli(['reset-password', 'admin', 'nobody'], { stdin: 'whatever-password\n' });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/No such admin/);
    const short = await cli(['reset-password', 'admin', 'misuse-lead'], { stdin: 'short\n' });
    expect(short.code).toBe(1);
    expect(short.stderr).toMatch(/password: must be at least 8 characters/);
    const argv = await cli(['reset-password', 'admin', 'misuse-lead', '--password', 'x-password-1']);
    expect(argv.code).toBe(2);
    await withDb(async (db) => {
      const lead = await db.prisma.admin.findUniqueOrThrow({ where: { username: 'misuse-lead' } });
      expect(await verifyPassword(lead.passwordHash, 'misuse-lead-password')).toBe(true);
    });
  });

  it('when list-admins runs, then every admin is listed with role, status and creation time, and no hash', async () => {
    await seedAdmin('listed-lead');
    await cli(['disable-admin', 'listed-lead']);
    const res = await cli(['list-admins']);
    expect(res.code).toBe(0);
    const lines = res.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^id\s+username\s+role\s+status\s+two_factor\s+created_at$/);
    expect(lines.some((l) => /^\d+\s+listed-lead\s+viewer\s+disabled\s+off\s+\d{4}-\d{2}-\d{2}T/.test(l))).toBe(true);
    expect(res.stdout).not.toContain('$argon2id$');
    expect((await cli(['list-admins', 'extra'])).code).toBe(2);
  });
});

describe('npm run cli -- reindex (contract §9.1)', () => {
  it('when items were written behind the service, then reindex makes search find them as they are now', async () => {
    const category = await app.db.prisma.category.create({ data: { name: 'Reindex shelf' } });
    const item = await app.db.prisma.item.create({
      data: { name: 'Backdoor kettle', categoryId: category.id, price: '9.00', stock: 1 },
    });
    const search = async (keyword: string) =>
      (await app.request(`/api/v1/items?keyword=${encodeURIComponent(keyword)}`)).body.items.map(
        (i: { id: number }) => i.id,
      );
    // Without a document a keyword cannot find it (docs/search.md); a start or `reindex` writes one.
    expect(await search('kettle')).toEqual([]);
    const res = await cli(['reindex']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/^search documents rebuilt for \d+ item\(s\)\n$/);
    expect(await search('kettle')).toEqual([item.id]);
    expect(await search('reindex shelf')).toEqual([item.id]);
    expect((await cli(['reindex', 'extra'])).code).toBe(2);
  });
});
