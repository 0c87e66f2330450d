/**
 * Runs the service as a user does (`npm start`: build the bundle, then `node dist/server.js`) in a
 * child process, and reports its output, port and exit.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

const ROOT = new URL('../../', import.meta.url).pathname;

export interface ServiceProcess {
  url: string;
  /** Milliseconds from spawn to the "listening" log line. */
  startupMs: number;
  output(): string;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
}

let built = false;

/** `npm start`'s prestart step, once per test file: the bundle of the source as it is now. */
function buildOnce(): void {
  if (built) return;
  const r = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`build failed:\n${r.stderr}`);
  built = true;
}

export async function startService(env: Record<string, string>, timeoutMs = 60_000): Promise<ServiceProcess> {
  buildOnce();
  const started = Date.now();
  const child: ChildProcess = spawn(process.execPath, ['dist/server.js'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service did not start in ${timeoutMs} ms:\n${out}`)), timeoutMs);
    const check = () => {
      const m = out.match(/"port":(\d+)[^\n]*shop service listening/);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${code} before listening:\n${out}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    startupMs: Date.now() - started,
    output: () => out,
    stop: async () => {
      if (child.exitCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const [code] = await once(child, 'exit');
      return code as number | null;
    },
  };
}
