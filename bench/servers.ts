/**
 * The processes the benchmark measures: the service as a user starts it (`npm start`,
 * NODE_ENV=production) and the floor (bench/floor.ts), both spawned by the tests' helper
 * (test/helpers/service-process.ts) and ready once `/readyz` answers 200; what they use (CPU, RSS,
 * from /proc) while they are measured; and the start-up time on the embedded database.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isBackgroundProcess } from '../test/helpers/cluster-processes.ts';
import { type ServiceProcess, startProcess } from '../test/helpers/service-process.ts';
import { cpuMeter, postgresBackendPids, postgresPids, processTree, rssMb, waitForWorkers } from './proc.ts';

export interface Server extends ServiceProcess {
  name: string;
  /** A cluster primary with its workers (the service): memory is the serving worker's, the primary apart. */
  cluster?: boolean;
}

/** The bootstrap admin the service creates on the bench database (ADMIN_USERNAME / ADMIN_PASSWORD). */
export const BENCH_ADMIN = { username: 'bench-admin', password: 'bench-admin-password-0123' };

export interface ServiceOptions {
  /** `off`: CATALOG_CACHE_MB=0; `on`: the service's default (the variable unset). */
  cache: 'on' | 'off';
  workers: number;
  /** More of the service's environment (the `mixed_webhooks` scenario's WEBHOOK_ALLOW_*). */
  env?: Record<string, string>;
}

/** The bench service's environment, but for its database (DATABASE_URL or DATA_DIR). */
function benchEnv(opts: ServiceOptions): Record<string, string> {
  const env: Record<string, string> = {
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    CUSTOMER_JWT_SECRET: 'bench-customer-secret-0123456789abcdefghij',
    ADMIN_JWT_SECRET: 'bench-admin-secret-0123456789abcdefghijklmn',
    ADMIN_USERNAME: BENCH_ADMIN.username,
    ADMIN_PASSWORD: BENCH_ADMIN.password,
    // The benchmark logs in thousands of times from one IP, 8 at once as one customer; the limits would
    // turn that into 429s: per IP, and a failure reserved per attempt in flight (more than 5 at once).
    LOGIN_IP_PER_MINUTE: '1000000',
    LOGIN_MAX_FAILURES: '1000',
    LOGIN_USERNAME_MAX_FAILURES_PER_HOUR: '1000000',
    LOGIN_MAX_CONCURRENT_HASHES: '2',
    // Its 64 connections stand for 64 shoppers behind one address: facet searches are not bounded per client here.
    SEARCH_CONCURRENCY_PER_CLIENT: '1000',
    // One worker (under its primary), like the floor, unless the scenario compares worker counts.
    WORKERS: String(opts.workers),
  };
  if (opts.cache === 'off') env.CATALOG_CACHE_MB = '0';
  return { ...env, ...opts.env };
}

export async function startBenchService(name: string, databaseUrl: string, opts: ServiceOptions): Promise<Server> {
  const server = await startProcess({ env: { ...benchEnv(opts), DATABASE_URL: databaseUrl }, ready: 'readyz' });
  await waitForWorkers(server.pid, server.port, opts.workers);
  return { ...server, name, cluster: true };
}

/**
 * The same service on the embedded database in `dataDir` (one process: no cluster on PGlite), as in
 * production — so no demo catalogue on an empty database.
 */
export async function startEmbeddedBenchService(name: string, dataDir: string, cache: 'on' | 'off'): Promise<Server> {
  const env = benchEnv({ cache, workers: 1 });
  // No cluster on PGlite: WORKERS would only be ignored.
  delete env.WORKERS;
  env.DATA_DIR = dataDir;
  return { ...(await startProcess({ env, ready: 'readyz' })), name };
}

/** An access token of BENCH_ADMIN on `server` (GraphQL `adminLogin`). */
export async function adminToken(server: { url: string }): Promise<string> {
  const res = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      query: 'mutation($u:String!,$p:String!){adminLogin(username:$u,password:$p){accessToken}}',
      variables: { u: BENCH_ADMIN.username, p: BENCH_ADMIN.password },
    }),
  });
  const body = (await res.json()) as { data?: { adminLogin?: { accessToken?: string } } };
  const token = body.data?.adminLogin?.accessToken;
  if (!token) {
    throw new Error(
      `adminLogin as ${BENCH_ADMIN.username} failed (${res.status} ${JSON.stringify(body).slice(0, 300)}); the service creates that admin ` +
        'from ADMIN_USERNAME / ADMIN_PASSWORD only when the database has no admin yet',
    );
  }
  return token;
}

export async function startFloor(databaseUrl: string): Promise<Server> {
  return {
    ...(await startProcess({
      args: ['--import', 'tsx', 'bench/floor.ts'],
      env: { BENCH_DATABASE_URL: databaseUrl },
      ready: 'readyz',
    })),
    name: 'floor',
  };
}

export async function stopAll(servers: (Server | undefined)[]): Promise<void> {
  await Promise.all(servers.map((s) => s?.stop()));
}

/**
 * CPU of the servers' process trees (and of every PostgreSQL process) from now until `stop()`, and peak
 * RSS: of the service, its serving worker's (the largest, with several), the cluster primary — which
 * serves nothing — and the background process (imports, deliveries) apart, each also on its own; of
 * any other server (the floor), its whole process tree's. With `database`,
 * also the CPU of the PostgreSQL backends connected to it (the service's own statements: on a shared
 * server, every PostgreSQL process includes other people's work).
 */
export function usageMeter(servers: Server[], database?: string) {
  // Every process seen in each server's tree during the window (a worker replaced mid-run included).
  const trees = servers.map(() => new Set<number>());
  const peaks = new Map<number, number>();
  /** The background processes seen (a replaced one included): their RSS is not the serving workers'. */
  const background = new Set<number>();
  const discover = () => {
    for (const [i, s] of servers.entries())
      for (const pid of processTree(s.pid)) {
        if (trees[i]!.has(pid)) continue;
        trees[i]!.add(pid);
        if (s.cluster && isBackgroundProcess(pid)) background.add(pid);
      }
  };
  discover();
  const serverCpu = cpuMeter(() => trees.flatMap((tree) => [...tree]));
  const pgCpu = cpuMeter(postgresPids);
  const pgDatabaseCpu = database === undefined ? undefined : cpuMeter(() => postgresBackendPids(database));
  /** Per server: the peak of its whole tree's RSS (what counts for a server that is no cluster). */
  const treePeaks = servers.map(() => 0);
  /**
   * Every 100 ms the processes already seen (their CPU and RSS: a few files); every second also a look
   * for new ones (a replaced worker, a new backend: scans of all of /proc, ~15 ms). This runs in the load
   * generator's process: scanning /proc at every sample stalled its event loop ~15 % of the time, and
   * every answer arriving meanwhile counted the stall as latency.
   */
  let ticks = 0;
  const sample = (fresh: boolean) => {
    if (fresh) discover();
    for (const [i, tree] of trees.entries()) {
      treePeaks[i] = Math.max(treePeaks[i]!, rssMb([...tree]));
      for (const pid of tree) peaks.set(pid, Math.max(peaks.get(pid) ?? 0, rssMb([pid])));
    }
    for (const meter of [serverCpu, pgCpu, pgDatabaseCpu]) {
      if (fresh) meter?.sample();
      else meter?.sampleKnown();
    }
  };
  sample(true);
  const timer = setInterval(() => sample(++ticks % 10 === 0), 100);
  return {
    stop() {
      clearInterval(timer);
      sample(true);
      const peakOf = (pids: number[]) => Math.round(Math.max(0, ...pids.map((pid) => peaks.get(pid) ?? 0)));
      return {
        /** CPU in µs. */
        cpuMicros: serverCpu.micros(),
        pgCpuMicros: pgCpu.micros(),
        /** CPU in µs of the backends connected to `database`, when given. */
        pgDatabaseCpuMicros: pgDatabaseCpu?.micros(),
        /** Per server: the peak RSS of its serving process(es), MB. */
        rssPeakMb: servers.map((s, i) => {
          if (!s.cluster) return Math.round(treePeaks[i]!); // one server, whatever helpers it runs
          const workers = [...trees[i]!].filter((pid) => pid !== s.pid && !background.has(pid));
          return peakOf(workers.length ? workers : [s.pid]);
        }),
        /** Per server: its cluster primary's peak RSS, MB (undefined for a server that is no cluster). */
        rssPrimaryMb: servers.map((s) => (s.cluster ? peakOf([s.pid]) : undefined)),
        /** Per server: its background process's peak RSS, MB (undefined for a server that has none). */
        rssBackgroundMb: trees.map((tree) => {
          const own = [...tree].filter((pid) => background.has(pid));
          return own.length ? peakOf(own) : undefined;
        }),
        /** Per server: the peak of its whole process tree's RSS, summed (primary and workers), MB. */
        rssTreePeakMb: treePeaks.map((mb) => Math.round(mb)),
      };
    },
  };
}

/** Fails loudly when the floor and the service disagree on a body: the comparison would be meaningless. */
export async function assertSameBodies(service: Server, floor: Server, paths: string[]): Promise<void> {
  for (const path of paths) {
    const [a, b] = await Promise.all([fetch(service.url + path), fetch(floor.url + path)]);
    const [ja, jb] = [await a.json(), await b.json()];
    if (a.status !== b.status || JSON.stringify(ja) !== JSON.stringify(jb)) {
      throw new Error(
        `floor and ${service.name} differ on ${path}:\nservice ${a.status} ${JSON.stringify(ja).slice(0, 400)}\nfloor   ${b.status} ${JSON.stringify(jb).slice(0, 400)}`,
      );
    }
  }
}

/** Start-up to `/readyz` 200 on the embedded database: empty (migrations + demo seed), then on that data. */
export async function startupTimes(): Promise<{ empty_ms: number; existing_ms: number }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'shop-bench-startup-'));
  try {
    const env = { DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
    const first = await startProcess({ env, ready: 'readyz' });
    await first.stop();
    const second = await startProcess({ env, ready: 'readyz' });
    await second.stop();
    return { empty_ms: first.startupMs, existing_ms: second.startupMs };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
