/**
 * Contract §7.7: the embedded database belongs to one process. Each DATA_DIR starts migrated (what a
 * first start leaves), so each start here is a second start: the lock is what is under test. While `npm start` runs on a DATA_DIR,
 * a second start, `npm run cli` and `npm run db:migrate` on it stop at once with a message naming the
 * owner, and change nothing; a lock left by a process that is gone does not block the next start.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LOCK_FILE, STALE_AFTER_MS } from '../../src/db/data-dir-lock.ts';
import { openDatabase } from '../../src/db/database.ts';
import { nodeScript, type ServiceProcess, startArgs, startService } from '../helpers/service-process.ts';
import { migratedDataDir, TEST_DB } from '../helpers/test-database.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

/** Runs a command as `npm run` does (`cli`: the bundle; a .ts script: with tsx); its exit code and output. */
function run(script: string, args: string[], env: Record<string, string>) {
  const command = script === 'cli' ? nodeScript('cli') : ['--import', 'tsx', script];
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [...command, ...args], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        NODE_ENV: 'test',
        LOG_LEVEL: 'silent',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe.skipIf(TEST_DB !== 'pglite')('one process per embedded database', () => {
  it('when the service runs on DATA_DIR, then a second start, the CLI and the migrator refuse and change nothing', {
    timeout: 180_000,
  }, async () => {
    const dataDir = await migratedDataDir('shop-lock-');
    const env = { DATA_DIR: dataDir, LOG_LEVEL: 'info' };
    const service = await startService(env);
    const owner = JSON.parse(readFileSync(join(dataDir, LOCK_FILE), 'utf8')) as { pid: number };
    try {
      const inUse = new RegExp(`in use by process ${owner.pid} \\(server`);
      // The three try at once: each must be refused by the lock alone, whatever the others do.
      const [cli, migrate, second] = await Promise.allSettled([
        run('cli', ['create-admin', 'second-writer'], { DATA_DIR: dataDir, CLI_PASSWORD: 'second-writer-pw' }),
        run('scripts/migrate.ts', [], { DATA_DIR: dataDir }),
        startService(env),
      ]);
      expect(cli.status === 'fulfilled' && cli.value).toMatchObject({
        code: 1,
        stdout: '',
        stderr: expect.stringMatching(inUse),
      });
      expect(migrate.status === 'fulfilled' && migrate.value).toMatchObject({
        code: 1,
        stderr: expect.stringMatching(inUse),
      });
      expect(second.status === 'rejected' && String(second.reason)).toMatch(inUse);
      // The running service is unaffected.
      expect((await fetch(`${service.url}/readyz`)).status).toBe(200);
    } finally {
      expect(await service.stop()).toBe(0);
    }
    // Stopping released the lock; the refused CLI run left nothing behind.
    const db = await openDatabase({ kind: 'pglite', dataDir, role: 'test' });
    try {
      expect(await db.prisma.admin.count({ where: { username: 'second-writer' } })).toBe(0);
    } finally {
      await db.close();
    }
    const cli = await run('cli', ['create-admin', 'second-writer', '--role', 'viewer'], {
      DATA_DIR: dataDir,
      CLI_PASSWORD: 'second-writer-pw',
    });
    expect(cli.code, cli.stderr).toBe(0);
  });

  it('when the owner was killed, then the next start on the same machine takes the lock over at once', {
    timeout: 120_000,
  }, async () => {
    const dataDir = await migratedDataDir('shop-lock-stale-');
    const killed = await startService({ DATA_DIR: dataDir, LOG_LEVEL: 'info' });
    killed.child.kill('SIGKILL');
    expect(await killed.stop()).toBe(null);
    // Its heartbeat is fresh, but its PID namespace is ours and no process has its PID: gone for sure.
    const service = await startService({ DATA_DIR: dataDir, LOG_LEVEL: 'info' });
    try {
      const owner = JSON.parse(readFileSync(join(dataDir, LOCK_FILE), 'utf8')) as { pid: number };
      expect(owner.pid).toBe(service.pid);
      expect((await fetch(`${service.url}/readyz`)).status).toBe(200);
    } finally {
      expect(await service.stop()).toBe(0);
    }
  });

  it('when a lock from another host has a stopped heartbeat, then the next start takes it over; while it beats, the start refuses naming that host', {
    timeout: 120_000,
  }, async () => {
    const dataDir = await migratedDataDir('shop-lock-host-');
    const lock = join(dataDir, LOCK_FILE);
    const foreign = (host: string) =>
      writeFileSync(lock, JSON.stringify({ pid: 1, host, role: 'server', since: '2026-01-01' }));
    foreign('busy-host');
    await expect(startService({ DATA_DIR: dataDir, LOG_LEVEL: 'info' })).rejects.toThrow(
      /in use by process 1 on host busy-host \(heartbeat \d+ s ago/,
    );
    foreign('gone-host');
    const silentSince = (Date.now() - STALE_AFTER_MS - 5_000) / 1000;
    utimesSync(lock, silentSince, silentSince);
    // A short window: another machine's lock is watched for two more beats (a sixth of it each) first.
    const service = await startService({ DATA_DIR: dataDir, LOG_LEVEL: 'info', DATA_DIR_STALE_AFTER: '3000' });
    try {
      expect(JSON.parse(readFileSync(lock, 'utf8'))).toMatchObject({ pid: service.pid, host: hostname() });
    } finally {
      expect(await service.stop()).toBe(0);
    }
  });

  // A second container on a shared volume: the same files, another hostname, a PID namespace of its own.
  const canUnshare = spawnSync('unshare', ['--uts', 'true']).status === 0;
  it.skipIf(!canUnshare)(
    'when a second instance starts on the same DATA_DIR from another hostname, then it refuses while the owner runs',
    { timeout: 120_000 },
    async () => {
      const dataDir = await migratedDataDir('shop-lock-uts-');
      const service = await startService({ DATA_DIR: dataDir, LOG_LEVEL: 'info' });
      try {
        const node = [process.execPath, ...startArgs()].map((a) => `'${a}'`).join(' ');
        const second = spawnSync('unshare', ['--uts', 'sh', '-c', `hostname other-host && exec ${node}`], {
          cwd: ROOT,
          env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATA_DIR: dataDir, PORT: '0' },
          encoding: 'utf8',
          timeout: 60_000,
        });
        expect(second.status, second.stdout + second.stderr).toBe(1);
        expect(second.stderr).toMatch(new RegExp(`in use by process ${service.pid} on host ${hostname()}`));
        expect((await fetch(`${service.url}/readyz`)).status).toBe(200);
      } finally {
        expect(await service.stop()).toBe(0);
      }
    },
  );

  // Two containers with one hostname on a shared volume: neither can see the other's PIDs.
  const canUnsharePid = spawnSync('unshare', ['--pid', '--fork', '--mount-proc', 'true']).status === 0;
  it.skipIf(!canUnsharePid)(
    "when a second instance starts in another PID namespace with the same hostname, then it refuses while the owner's heartbeat is fresh" +
      (canUnsharePid ? '' : ' (skipped: `unshare --pid --fork --mount-proc` is not permitted here)'),
    { timeout: 120_000 },
    async () => {
      const dataDir = await migratedDataDir('shop-lock-pidns-');
      const service = await startService({ DATA_DIR: dataDir, LOG_LEVEL: 'info' });
      try {
        const second = await runUntilExit(
          'unshare',
          ['--pid', '--kill-child', '--mount-proc', process.execPath, ...startArgs()],
          { DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' },
        );
        expect(second.output).not.toMatch(/shop service listening/);
        expect(second.code, second.output).toBe(1);
        expect(second.output).toMatch(
          new RegExp(`in use by process ${service.pid} on host ${hostname()} \\(heartbeat \\d+ s ago`),
        );
        expect(JSON.parse(readFileSync(join(dataDir, LOCK_FILE), 'utf8'))).toMatchObject({ pid: service.pid });
        expect((await fetch(`${service.url}/readyz`)).status).toBe(200);
      } finally {
        expect(await service.stop()).toBe(0);
      }
    },
  );

  it('when the owner was paused past the staleness window and another process took the lock, then on resuming it exits non-zero without writing', {
    timeout: 120_000,
  }, async () => {
    const dataDir = await migratedDataDir('shop-lock-paused-');
    const env = { DATA_DIR: dataDir, LOG_LEVEL: 'info', DATA_DIR_STALE_AFTER: '1500' };
    const paused = await startService(env);
    let successor: ServiceProcess | undefined;
    try {
      paused.child.kill('SIGSTOP');
      await sleep(2_500);
      successor = await startService(env);
      expect(JSON.parse(readFileSync(join(dataDir, LOCK_FILE), 'utf8'))).toMatchObject({ pid: successor.pid });
      expect((await register(successor.url, 'kept')).status).toBe(201);
      // A sign-up sent to the paused owner: the kernel queues it, the owner handles it once resumed.
      const late = register(paused.url, 'lost').then(
        (r) => r.status,
        () => 0,
      );
      paused.child.kill('SIGCONT');
      const exit = await exitOf(paused, 30_000);
      expect(exit.code, paused.output()).toBe(1);
      expect(paused.output()).toMatch(/no longer this process's[\s\S]*Stopping at once without writing anything more/);
      expect(await late).not.toBe(201);
      expect((await login(successor.url, 'lost')).status).toBe(401);
      expect((await login(successor.url, 'kept')).status).toBe(200);
    } finally {
      paused.child.kill('SIGCONT');
      await paused.stop(5_000);
      if (successor) expect(await successor.stop()).toBe(0);
    }
    // After a restart the successor's write is there and the paused owner's is not.
    const restarted = await startService(env);
    try {
      expect((await login(restarted.url, 'kept')).status).toBe(200);
      expect((await login(restarted.url, 'lost')).status).toBe(401);
    } finally {
      expect(await restarted.stop()).toBe(0);
    }
  });
});

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

const PASSWORD = 'paused-owner-password';
const post = (url: string, path: string, body: unknown) =>
  fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
const register = (url: string, label: string) =>
  post(url, '/api/v1/auth/register', { username: `${label}@example.com`, password: PASSWORD, nickname: label });
const login = (url: string, label: string) =>
  post(url, '/api/v1/auth/login', { username: `${label}@example.com`, password: PASSWORD });

/** How `proc` exits, without signalling it; throws if it still runs after `timeoutMs`. */
async function exitOf(proc: ServiceProcess, timeoutMs: number) {
  const started = Date.now();
  while (!proc.exited()) {
    if (Date.now() - started > timeoutMs) throw new Error(`still running after ${timeoutMs} ms:\n${proc.output()}`);
    await sleep(50);
  }
  return proc.exited()!;
}

/**
 * Runs `command` until it exits; one that starts serving instead (the failure under test) is
 * stopped, so the test reports it rather than waiting.
 */
function runUntilExit(command: string, args: string[], env: Record<string, string>, timeoutMs = 60_000) {
  return new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn(command, args, {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    const onData = (d: Buffer) => {
      output += d.toString();
      if (/shop service listening/.test(output)) child.kill('SIGTERM');
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}
