/**
 * Child processes that serve HTTP — the service as a user runs it (`npm start`: build the bundle,
 * then `node dist/server.js`), or any other Node script (the benchmark's floor) — for the tests, the
 * benchmark (bench/servers.ts) and the soak (bench/soak-support.ts): spawn, wait until ready,
 * capture the output, stop. The one place that spawns a server and waits for it.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { scaled } from './time-scale.ts';

export const ROOT = new URL('../../', import.meta.url).pathname;

export interface ServiceProcess {
  url: string;
  port: number;
  /** The process spawned (the cluster primary on PostgreSQL). */
  pid: number;
  child: ChildProcess;
  /** Milliseconds from spawn to ready: the "listening" log line, or `/readyz` 200 (see `ready`). */
  startupMs: number;
  /** Its stdout and stderr, interleaved (the last `keepOutput` characters when that is set). */
  output(): string;
  /** How it exited, or undefined while it runs. */
  exited(): { code: number | null; signal: NodeJS.Signals | null } | undefined;
  /**
   * Sends SIGTERM and resolves with the exit code; a process still running after `killAfterMs` is
   * killed (SIGKILL) and resolves null, so a run that fails never leaves it behind.
   */
  stop(killAfterMs?: number): Promise<number | null>;
}

export interface ProcessOptions {
  /** Added to PATH, HOME, HOST=127.0.0.1 and PORT; nothing else of this process's environment is passed on. */
  env: Record<string, string>;
  /** Node's arguments; default `npm start`'s (the bundle is built first, once per process). */
  args?: string[];
  /**
   * `listening` (default): PORT=0, and the port is read from the service's "listening" log line
   * (LOG_LEVEL must be info or lower). `readyz`: a free port is chosen and `/readyz` is polled until
   * it answers 200 — for quiet logs (LOG_LEVEL=warn) and for servers that are not the service.
   */
  ready?: 'listening' | 'readyz';
  timeoutMs?: number;
  /** Keep only the last this many characters of output (long runs); default all of it. */
  keepOutput?: number;
  /** Called with every complete line of output. */
  onLine?: (line: string) => void;
}

type Scripts = Record<string, string | undefined> & { start: string };

/** `node <args>` of a package.json script, as arguments for this Node binary. */
function nodeArgs(script: string): string[] {
  const [cmd, ...args] = script.trim().split(/\s+/);
  if (cmd !== 'node') throw new Error(`expected a "node …" script, not: ${script}`);
  return args;
}

const scripts = (): Scripts =>
  (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Scripts }).scripts;

let built = false;

/** `npm start`'s prestart step, once per process (per test file): the bundle of the source as it is now. */
export function buildOnce(): void {
  if (built) return;
  const { prestart } = scripts();
  if (prestart) {
    const r = spawnSync(process.execPath, nodeArgs(prestart), { cwd: ROOT, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`build failed (${prestart}):\n${r.stdout}${r.stderr}`);
  }
  built = true;
}

/** What `npm start` runs, built. */
export function startArgs(): string[] {
  return nodeScript('start');
}

/** Node's arguments for a package.json script that runs the bundle (`start`, `cli`), built first. */
export function nodeScript(name: string): string[] {
  buildOnce();
  const script = scripts()[name];
  if (!script) throw new Error(`package.json has no script "${name}"`);
  return nodeArgs(script);
}

/** A port that was free a moment ago. */
export async function freePort(): Promise<number> {
  const srv = createServer().listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const { port } = srv.address() as { port: number };
  srv.close();
  await once(srv, 'close');
  return port;
}

/** The status of one GET on a fresh connection, 0 when there is no answer within `timeoutMs`. */
function probe(url: string, timeoutMs: number): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent: false, timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
  });
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export async function startProcess(opts: ProcessOptions): Promise<ServiceProcess> {
  const ready = opts.ready ?? 'listening';
  const timeoutMs = opts.timeoutMs ?? scaled(60_000);
  const args = opts.args ?? startArgs();
  const fixedPort = ready === 'readyz' ? await freePort() : 0;
  const started = performance.now();
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      PORT: String(fixedPort),
      HOST: '127.0.0.1',
      ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let partial = '';
  const onData = (d: Buffer) => {
    const s = d.toString();
    out += s;
    if (opts.keepOutput !== undefined && out.length > opts.keepOutput) out = out.slice(-opts.keepOutput);
    if (!opts.onLine) return;
    const lines = (partial + s).split('\n');
    partial = lines.pop() ?? '';
    if (partial.length > 65_536) partial = partial.slice(-65_536);
    for (const line of lines) opts.onLine(line);
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const exitedPromise = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      resolve();
    }),
  );

  let port: number;
  try {
    port =
      ready === 'listening'
        ? await listeningPort(child, () => out, timeoutMs)
        : await readyzPort(
            fixedPort,
            () => exit,
            () => out,
            timeoutMs,
          );
  } catch (err) {
    // Not left running behind the failed start (it would hold its port and database).
    if (!exit) child.kill('SIGKILL');
    throw err;
  }
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    pid: child.pid!,
    child,
    startupMs: Math.round(performance.now() - started),
    output: () => out,
    exited: () => exit,
    stop: async (killAfterMs = 30_000) => {
      if (!exit) {
        child.kill('SIGTERM');
        const kill = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
        await exitedPromise;
        clearTimeout(kill);
      }
      return exit!.code;
    },
  };
}

/** The port from the service's `"port":N … shop service listening` log line. */
function listeningPort(child: ChildProcess, out: () => string, timeoutMs: number): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      // Not on every later chunk: scanning the growing log again each time is quadratic, and a
      // process busy with that stops draining the pipe, which stalls the service's writes.
      child.stdout!.off('data', check);
      child.off('exit', onExit);
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`service did not start in ${timeoutMs} ms:\n${out()}`));
    }, timeoutMs);
    const check = () => {
      const m = out().match(/"port":(\d+)[^\n]*shop service listening/);
      if (m) {
        done();
        resolve(Number(m[1]));
      }
    };
    const onExit = (code: number | null) => {
      done();
      reject(new Error(`service exited with ${code} before listening:\n${out()}`));
    };
    child.stdout!.on('data', check);
    child.once('exit', onExit);
  });
}

/** Polls `/readyz` on `port` until it answers 200. */
async function readyzPort(
  port: number,
  exited: () => { code: number | null; signal: NodeJS.Signals | null } | undefined,
  out: () => string,
  timeoutMs: number,
): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < timeoutMs) {
    const e = exited();
    if (e) throw new Error(`service exited with ${e.code ?? e.signal} before it was ready:\n${out()}`);
    if ((await probe(`http://127.0.0.1:${port}/readyz`, 1000)) === 200) return port;
    await sleep(20);
  }
  throw new Error(`service was not ready (/readyz 200) within ${timeoutMs} ms:\n${out()}`);
}

/** The service as a user starts it, ready once it logs that it listens (LOG_LEVEL info or lower). */
export async function startService(env: Record<string, string>, timeoutMs = scaled(60_000)): Promise<ServiceProcess> {
  return startProcess({ env, timeoutMs, ready: 'listening' });
}
