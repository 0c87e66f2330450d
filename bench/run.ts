/**
 * `npm run bench [-- --quick]`: measures the service against the hand-written floor (bench/floor.ts)
 * on the same PostgreSQL data, one after the other in one run, and prints a markdown table; the
 * figures go to bench/results/latest.json. See README "Performance".
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { hashPassword } from '../src/auth/password.ts';
import { prepareBenchData, type BenchDataset } from './data.ts';
import { cpuMeter, postgresPids, processTree, rssMb } from './proc.ts';

const ROOT = new URL('../', import.meta.url).pathname;
const quick = process.argv.includes('--quick');
const settings = quick
  ? { items: 10_000, warmup: 1, duration: 3, db: 'shop_bench_quick' }
  : { items: 100_000, warmup: 3, duration: 10, db: 'shop_bench' };
const CONNECTIONS = 64;
const LOGIN_CONNECTIONS = 8;
const BENCH_USER = { username: 'bench@example.com', password: 'bench-password-1234' };

const benchUrl =
  process.env.BENCH_DATABASE_URL ?? `postgresql://postgres@127.0.0.1:5432/${settings.db}`;

interface Figures {
  rps: number;
  p50_ms: number;
  p99_ms: number;
  errors: number;
  non_2xx: number;
  cpu_us_per_req: number;
  pg_cpu_us_per_req: number;
  rss_peak_mb: number;
}
interface Scenario {
  name: string;
  service: Figures;
  floor: Figures | null;
  ratio: number | null;
}

// ---------- processes ----------

interface Server {
  name: string;
  url: string;
  child: ChildProcess;
  output: () => string;
}

/** The command `npm start` runs, so the benchmark starts the service exactly as a user does. */
/** `npm start` as a user runs it: its prestart step (the bundle), then the start command itself. */
function startCommand(): string[] {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string; prestart?: string } };
  const [cmd, ...args] = pkg.scripts.start.split(/\s+/);
  if (cmd !== 'node') throw new Error(`unexpected start script: ${pkg.scripts.start}`);
  if (pkg.scripts.prestart) {
    const r = spawnSync(pkg.scripts.prestart, { cwd: ROOT, shell: true, stdio: 'inherit' });
    if (r.status !== 0) throw new Error(`prestart failed: ${pkg.scripts.prestart}`);
  }
  return args;
}

async function waitReady(url: string, child: ChildProcess, out: () => string, timeoutMs = 60_000): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < timeoutMs) {
    if (child.exitCode !== null) throw new Error(`server exited (${child.exitCode}):\n${out()}`);
    try {
      const res = await fetch(`${url}/readyz`);
      if (res.status === 200) return performance.now() - started;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`server not ready within ${timeoutMs} ms:\n${out()}`);
}

async function spawnServer(name: string, args: string[], env: Record<string, string>, port: number): Promise<Server & { readyMs: number }> {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: String(port), HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const url = `http://127.0.0.1:${port}`;
  const readyMs = await waitReady(url, child, () => out);
  return { name, url, child, output: () => out, readyMs };
}

async function stopServer(s: Server): Promise<void> {
  if (s.child.exitCode !== null) return;
  s.child.kill('SIGTERM');
  await once(s.child, 'exit');
}

/** A port that was free a moment ago (the bench must not collide with other servers or test runs). */
async function freePort(): Promise<number> {
  const srv = createServer().listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const { port } = srv.address() as { port: number };
  srv.close();
  await once(srv, 'close');
  return port;
}

// ---------- load ----------

type RequestSpec = { method?: string; path: string; body?: string; headers?: Record<string, string> };

async function load(url: string, next: () => RequestSpec, seconds: number, connections: number) {
  return autocannon({
    url,
    connections,
    duration: seconds,
    requests: [
      {
        setupRequest: (req: autocannon.Request) => {
          const spec = next();
          return { ...req, method: (spec.method ?? 'GET') as autocannon.Request['method'], path: spec.path, body: spec.body, headers: { ...(spec.headers ?? {}) } };
        },
      },
    ],
  });
}

async function measure(server: Server, next: () => RequestSpec, connections = CONNECTIONS): Promise<Figures> {
  await load(server.url, next, settings.warmup, connections);
  const tree = processTree(server.child.pid!);
  const serverCpu = cpuMeter(() => tree);
  const pgCpu = cpuMeter(postgresPids);
  let peak = rssMb(tree);
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMb(tree));
    serverCpu.sample();
    pgCpu.sample();
  }, 100);
  const result = await load(server.url, next, settings.duration, connections);
  clearInterval(sampler);
  peak = Math.max(peak, rssMb(tree));
  const requests = Math.max(1, result.requests.total);
  return {
    rps: Math.round(result.requests.average),
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    non_2xx: result.non2xx,
    cpu_us_per_req: Math.round(serverCpu.micros() / requests),
    pg_cpu_us_per_req: Math.round(pgCpu.micros() / requests),
    rss_peak_mb: Math.round(peak),
  };
}

// ---------- request generators (deterministic) ----------

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function generators(data: BenchDataset) {
  const r = rng(42);
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)];
  const maxPage = (perCategory: number) => Math.max(1, Math.floor(perCategory / 20));
  const perCategory = data.items / 40;
  return {
    list: (): RequestSpec => ({
      path: `/api/v1/items?category_id=${pick(data.categoryIds)}&page=${1 + Math.floor(r() * maxPage(perCategory))}`,
    }),
    list_default: (): RequestSpec => ({ path: '/api/v1/items' }),
    detail: (): RequestSpec => ({ path: `/api/v1/items/${1 + Math.floor(r() * data.items)}` }),
    search: (): RequestSpec => ({ path: `/api/v1/items?keyword=${encodeURIComponent(pick(data.words))}` }),
    categories: (): RequestSpec => ({ path: '/api/v1/categories' }),
    graphql_items: (): RequestSpec => ({
      method: 'POST',
      path: '/graphql',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query:
          'query($page:Int,$categoryId:Int){items(page:$page,categoryId:$categoryId){total totalPages page limit items{id name categoryId category{id name} price stock skus{id skuCode specs price stock} images{id url sortOrder} createdAt updatedAt}}}',
        variables: { categoryId: pick(data.categoryIds), page: 1 + Math.floor(r() * maxPage(perCategory)) },
      }),
    }),
    login: (): RequestSpec => ({
      method: 'POST',
      path: '/api/v1/auth/login',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(BENCH_USER),
    }),
  };
}

// ---------- main ----------

async function ensureBenchCustomer(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const hash = await hashPassword(BENCH_USER.password);
    await client.query(
      `INSERT INTO customers (username, password_hash, nickname, created_at, updated_at)
       VALUES ($1, $2, 'Bench', now(), now())
       ON CONFLICT (username) DO UPDATE SET password_hash = EXCLUDED.password_hash, disabled = false`,
      [BENCH_USER.username, hash],
    );
  } finally {
    await client.end();
  }
}

/** Fails loudly when the floor and the service disagree on a body: the comparison would be meaningless. */
async function assertSameBodies(service: Server, floor: Server, paths: string[]): Promise<void> {
  for (const path of paths) {
    const [a, b] = await Promise.all([fetch(service.url + path), fetch(floor.url + path)]);
    const [ja, jb] = [await a.json(), await b.json()];
    if (a.status !== b.status || JSON.stringify(ja) !== JSON.stringify(jb)) {
      throw new Error(`floor and service differ on ${path}:\nservice ${a.status} ${JSON.stringify(ja).slice(0, 400)}\nfloor   ${b.status} ${JSON.stringify(jb).slice(0, 400)}`);
    }
  }
}

async function startupTimes(): Promise<{ empty_ms: number; existing_ms: number }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'shop-bench-startup-'));
  try {
    const env = { DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
    const first = await spawnServer('startup-empty', startCommand(), env, await freePort());
    await stopServer(first);
    const second = await spawnServer('startup-existing', startCommand(), env, await freePort());
    await stopServer(second);
    return { empty_ms: Math.round(first.readyMs), existing_ms: Math.round(second.readyMs) };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const fmt = (n: number | null | undefined, digits = 0) => (n === null || n === undefined ? '–' : n.toFixed(digits));

function table(scenarios: Scenario[]): string {
  const lines = [
    '| scenario | server | req/s | p50 ms | p99 ms | errors | non-2xx | CPU µs/req | PG CPU µs/req | peak RSS MB | service ÷ floor |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const s of scenarios) {
    for (const [who, f] of [['service', s.service], ['floor', s.floor]] as const) {
      if (!f) continue;
      lines.push(
        `| ${s.name} | ${who} | ${f.rps} | ${fmt(f.p50_ms, 1)} | ${fmt(f.p99_ms, 1)} | ${f.errors} | ${f.non_2xx} | ${f.cpu_us_per_req} | ${f.pg_cpu_us_per_req} | ${f.rss_peak_mb} | ${who === 'service' ? fmt(s.ratio, 2) : ''} |`,
      );
    }
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const startedAt = new Date();
  console.error(`bench: ${quick ? 'quick' : 'full'} mode, ${settings.items} items, ${settings.warmup}s warm-up + ${settings.duration}s per scenario`);
  const data = await prepareBenchData(benchUrl, settings.items);
  console.error(`bench: data ${data.reused ? 'reused' : `filled in ${data.fillMs} ms`} (${benchUrl.replace(/\/\/[^@]*@/, '//')})`);
  await ensureBenchCustomer(benchUrl);

  const service = await spawnServer(
    'service',
    startCommand(),
    {
      NODE_ENV: 'production',
      DATABASE_URL: benchUrl,
      LOG_LEVEL: 'warn',
      CUSTOMER_JWT_SECRET: 'bench-customer-secret-0123456789abcdefghij',
      ADMIN_JWT_SECRET: 'bench-admin-secret-0123456789abcdefghijklmn',
      // The benchmark logs in thousands of times from one IP; the per-IP limit would turn that into 429s.
      LOGIN_IP_PER_MINUTE: '1000000',
      LOGIN_MAX_CONCURRENT_HASHES: '2',
    },
    await freePort(),
  );
  const floor = await spawnServer('floor', ['--import', 'tsx', 'bench/floor.ts'], { BENCH_DATABASE_URL: benchUrl }, await freePort());
  const gen = generators(data);
  const scenarios: Scenario[] = [];
  try {
    await assertSameBodies(service, floor, [
      '/api/v1/items',
      `/api/v1/items?category_id=${data.categoryIds[0]}&page=2`,
      `/api/v1/items?keyword=${encodeURIComponent(data.words.at(-1)!)}`,
      '/api/v1/items/7',
      '/api/v1/categories',
    ]);
    for (const name of ['list', 'list_default', 'detail', 'search', 'categories'] as const) {
      console.error(`bench: ${name}`);
      const s = await measure(service, gen[name]);
      const f = await measure(floor, gen[name]);
      scenarios.push({ name, service: s, floor: f, ratio: Math.round((s.rps / Math.max(1, f.rps)) * 100) / 100 });
    }
    console.error('bench: graphql_items');
    scenarios.push({ name: 'graphql_items', service: await measure(service, gen.graphql_items), floor: null, ratio: null });
    console.error('bench: login');
    scenarios.push({ name: 'login', service: await measure(service, gen.login, LOGIN_CONNECTIONS), floor: null, ratio: null });
  } finally {
    await stopServer(service);
    await stopServer(floor);
  }
  console.error('bench: start-up on the embedded database');
  const startup = await startupTimes();

  const [pgVersion] = await (async () => {
    const c = new pg.Client({ connectionString: benchUrl });
    await c.connect();
    const { rows } = await c.query('SHOW server_version');
    await c.end();
    return [rows[0].server_version as string];
  })();
  const machine = {
    date: startedAt.toISOString(),
    mode: quick ? 'quick' : 'full',
    items: settings.items,
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    memory_gb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    postgres: pgVersion,
    connections: CONNECTIONS,
    warmup_s: settings.warmup,
    duration_s: settings.duration,
  };
  const result = { machine, scenarios, startup };
  // Quick runs (the test suite's) keep their own file, so they never overwrite a full run's figures.
  const outFile = process.env.BENCH_RESULTS_FILE ?? join(ROOT, `bench/results/${quick ? 'latest-quick' : 'latest'}.json`);
  mkdirSync(dirname(outFile), { recursive: true });
  writeFileSync(outFile, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`\n${table(scenarios)}\n\nStart-up to /readyz 200 on the embedded database: empty ${startup.empty_ms} ms, existing data ${startup.existing_ms} ms.`);
  console.log(`Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memory_gb} GiB, Node ${machine.node}, PostgreSQL ${machine.postgres}; ${machine.date}.`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
