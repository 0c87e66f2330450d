/**
 * `npm run soak [-- --quick | --duration N]`: the service as a user starts it (the bundle,
 * NODE_ENV=production, PostgreSQL) under mixed load for a bounded time, all on 127.0.0.1:
 *
 * - 256 keep-alive connections on `GET /api/v1/items` (random pages, categories, keywords; autocannon);
 * - waves of 300 parallel logins (customer and admin, right and wrong passwords, spoofed forwarding
 *   headers) — 200, 401 and 429 are all fine answers;
 * - hostile documents and bytes (bench/soak-hostile.ts): expensive and deep GraphQL, huge bodies,
 *   invalid UTF-8, U+0000, corrupt gzip, broken framing, slowloris connections;
 * - a `/healthz` probe every 200 ms on a fresh connection, which must answer within 1 s every time.
 *
 * Before the load it waits (at most 30 s) for the CPUs to be 80% idle over a second, so that the tail
 * of whatever ran before (in CI, the test suite) is not measured with it. It samples the service's
 * process tree's RSS from /proc, prints a compact report (also written to
 * bench/results/soak.json), sends SIGTERM and expects exit 0 within 15 s. Exit code 0 on PASS.
 * FAIL on: a 5xx or connection error on any load (no answer within 10 s counts as one; the closes
 * the server causes deliberately — a slowloris, an oversized upload — do not), a `/healthz` probe
 * slower than 1 s or failed, a slowloris connection the server did not close in time (headers: 10 s,
 * whole request: 30 s, each plus 5 s), a wrong password accepted, the service crashing, or a
 * shutdown that is not exit 0 within 15 s. Answers that break the contract without being errors
 * (a wrong 4xx, a missing problem+json) are listed as deviations and do not fail the run.
 *
 * The database `shop_soak` on `SOAK_DATABASE_URL` (default postgresql://postgres@127.0.0.1:5432/postgres)
 * is dropped and recreated at start and dropped at the end.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { passwordHasher } from '../src/auth/password.ts';
import { waitForQuietMachine } from './proc.ts';
import {
  type HostileCase,
  hostileCases,
  judge,
  rawExchange,
  type Samples,
  type SlowlorisResult,
  slowloris,
} from './soak-hostile.ts';
import {
  build,
  listenOverflows,
  type ProbeResult,
  percentile,
  ROOT,
  recreateDatabase,
  redact,
  request,
  rng,
  round1,
  type Service,
  SOAK_WORDS,
  type SoakDatabase,
  seedCatalogue,
  serviceSampler,
  sleep,
  startProbe,
  startService,
  stopService,
  Tally,
} from './soak-support.ts';

// Production's argon2id cost, as the service hashes.
const { hash: hashPassword } = passwordHasher('owasp');

// ---------- settings ----------

function parseArgs(argv: string[]): { duration: number; quick: boolean } {
  const quick = argv.includes('--quick');
  let duration = quick ? 10 : 60;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const v = a === '--duration' ? argv[++i] : a.startsWith('--duration=') ? a.slice('--duration='.length) : undefined;
    if (a === '--duration' || a.startsWith('--duration=')) {
      duration = Number(v);
      if (!Number.isFinite(duration) || duration < 3 || duration > 3600) {
        console.error(`soak: --duration wants a number of seconds between 3 and 3600, not ${v}`);
        process.exit(2);
      }
    } else if (a !== '--quick') {
      console.error(`soak: unknown argument ${a} (use --quick or --duration N)`);
      process.exit(2);
    }
  }
  return { duration, quick };
}

const { duration: DURATION_S, quick: QUICK } = parseArgs(process.argv.slice(2));
const LIST_CONNECTIONS = 256;
const LOGIN_WAVE = 300;
/** Before the load: wait for the CPUs to be this idle over a second, for at most QUIET_WAIT_MS. */
const QUIET_IDLE_SHARE = 0.8;
const QUIET_WAIT_MS = 30_000;

// Contract §11: the guarantees hold for a primary and its workers, so the soak always runs two.
const WORKERS = 2;
const LOGIN_WAVE_EVERY_S = 15;
/** Hostile senders, each pausing between requests: a steady stream, every case at least once a minute even when each waits 10 s. */
const HOSTILE_CONCURRENCY = 8;
const HOSTILE_PAUSE_MS = 100;
const PROBE_EVERY_MS = 200;
const PROBE_LIMIT_MS = 1000;
const PROBE_GIVE_UP_MS = 5000;
const SHUTDOWN_GRACE_MS = 15_000;
/** A request without an answer after this long is an error (autocannon's default, used for the list too). */
const ANSWER_TIMEOUT_MS = 10_000;
/** Contract §7.4 (headers within 10 s, a whole request within 30 s) plus 5 s of slack. */
const SLOW_HEADERS_LIMIT_MS = 15_000;
const SLOW_BODY_LIMIT_MS = 35_000;
const ITEMS = 2000;
const LOGIN_IP_PER_MINUTE = 30; // the service's default, which the soak leaves alone
const DB_NAME = 'shop_soak';
const SERVER_URL = process.env.SOAK_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const RESULTS_FILE = process.env.SOAK_RESULTS_FILE ?? join(ROOT, 'bench/results/soak.json');

const CUSTOMERS = [1, 2, 3, 4].map((n) => ({
  username: `soak${n}@example.com`,
  password: `soak-password-${n}-a1b2c3`,
}));
const ADMIN = { username: 'soakadmin', password: 'soak-admin-password-0123' };

const log = (msg: string) => console.error(`soak: ${msg}`);

// ---------- clean-up, whatever happens ----------

let service: Service | undefined;
let database: SoakDatabase | undefined;

async function cleanup(): Promise<void> {
  if (service && !service.exited()) service.child.kill('SIGKILL');
  if (database) {
    await database.drop().catch((err: Error) => log(`could not drop database ${DB_NAME}: ${err.message}`));
  }
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping`);
    void cleanup().finally(() => process.exit(130));
  });
}
process.on('exit', () => {
  if (service && !service.exited()) service.child.kill('SIGKILL');
});

// ---------- loads ----------

type Clock = {
  t0: number;
  deadline: number;
  elapsedS(): number;
  /** True once the time is up or the service has gone (then the loops stop early). */
  over(): boolean;
};

function listPaths(categoryIds: number[]) {
  const r = rng(42);
  const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)]!;
  const word = () => encodeURIComponent(pick(SOAK_WORDS));
  const n = (max: number) => 1 + Math.floor(r() * max);
  return (): string => {
    const x = r();
    if (x < 0.35) return `/api/v1/items?page=${n(110)}`; // 100 pages, some past the end
    if (x < 0.65) return `/api/v1/items?category_id=${pick(categoryIds)}&page=${n(12)}`;
    if (x < 0.85) return `/api/v1/items?keyword=${word()}&page=${n(5)}`;
    if (x < 0.95) return `/api/v1/items?limit=100&page=${n(21)}`;
    return `/api/v1/items?category_id=${pick(categoryIds)}&keyword=${word()}&limit=50`;
  };
}

async function runList(s: Service, categoryIds: number[]): Promise<autocannon.Result> {
  const next = listPaths(categoryIds);
  return autocannon({
    url: s.url,
    connections: LIST_CONNECTIONS,
    duration: DURATION_S,
    timeout: ANSWER_TIMEOUT_MS / 1000,
    headers: { 'accept-encoding': 'gzip, deflate, br', accept: 'application/json' },
    requests: [{ method: 'GET', setupRequest: (req: autocannon.Request) => ({ ...req, method: 'GET', path: next() }) }],
  });
}

function listSummary(r: autocannon.Result) {
  const status: Record<string, number> = {};
  for (const [code, v] of Object.entries(r.statusCodeStats ?? {})) status[code] = v?.count ?? 0;
  const fiveXx = r['5xx'];
  return {
    requests: r.requests.total,
    rps: Math.round(r.requests.average),
    errors: fiveXx + r.errors,
    status,
    // autocannon's `errors` includes its `timeouts` (no answer within 10 s).
    connection_errors: Object.fromEntries(
      [
        ['connection', r.errors - r.timeouts],
        ['timeout (10 s)', r.timeouts],
      ].filter(([, v]) => Number(v) > 0),
    ) as Record<string, number>,
    non_2xx: r.non2xx,
    p50_ms: r.latency.p50,
    p99_ms: r.latency.p99,
    max_ms: r.latency.max,
    deviations: {} as Record<string, number>,
  };
}

interface LoginStats {
  tally: Tally;
  waves: number;
  /** Answers that checked a password (200 or 401): the per-IP limit bounds them. */
  passwordChecks: number;
  wrongPasswordAccepted: number;
}

async function runLogins(s: Service, clock: Clock): Promise<LoginStats> {
  const r = rng(99);
  const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)]!;
  const n = (max: number) => 1 + Math.floor(r() * max);
  const ip = () => `${n(223)}.${n(254)}.${n(254)}.${n(254)}`;
  const stats: LoginStats = { tally: new Tally(), waves: 0, passwordChecks: 0, wrongPasswordAccepted: 0 };
  const one = async () => {
    const admin = r() < 0.35;
    const right = r() < 0.3;
    let username: string;
    let password: string;
    if (admin) {
      username = r() < 0.7 ? ADMIN.username : pick(['root', 'administrator', 'Soakadmin']);
      password = right && username === ADMIN.username ? ADMIN.password : `wrong-${n(1e6)}`;
    } else {
      const c = pick(CUSTOMERS);
      const x = r();
      username = x < 0.6 ? c.username : x < 0.8 ? `ghost${n(50)}@example.com` : `  ${c.username.toUpperCase()} `;
      password = right && !username.startsWith('ghost') ? c.password : `wrong-${n(1e6)}`;
    }
    const correct = password === ADMIN.password || CUSTOMERS.some((c) => c.password === password);
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    const h = r();
    if (h < 0.2) headers['x-forwarded-for'] = ip();
    else if (h < 0.4) headers['x-forwarded-for'] = `${ip()}, ${ip()}, 127.0.0.1`;
    else if (h < 0.55) headers.forwarded = `for=${ip()};proto=https`;
    else if (h < 0.7) headers['x-real-ip'] = ip();
    else if (h < 0.75) headers['true-client-ip'] = ip();
    const a = await request(s.url, {
      method: 'POST',
      path: admin ? '/admin/api/auth/login' : '/api/v1/auth/login',
      headers,
      body: JSON.stringify({ username, password }),
      timeoutMs: ANSWER_TIMEOUT_MS,
    });
    if (a.status === undefined) return stats.tally.error(a.error ?? 'no answer', a.ms);
    stats.tally.answer(a.status, a.ms);
    if (a.status === 200 || a.status === 401) stats.passwordChecks++;
    if (a.status === 200 && !correct) {
      stats.wrongPasswordAccepted++;
      stats.tally.deviation('200 for a wrong password');
    }
    if (a.status < 500 && ![200, 401, 429].includes(a.status))
      stats.tally.deviation(`${a.status} (expected 200/401/429)`);
    if (a.status === 429 && !a.headers['retry-after']) stats.tally.deviation('429 without Retry-After');
  };
  const starts: number[] = [];
  for (let t = Math.min(1, DURATION_S / 4); t < DURATION_S - 3 || starts.length === 0; t += LOGIN_WAVE_EVERY_S)
    starts.push(t);
  const waves: Promise<void>[] = [];
  for (const t of starts) {
    await sleep(Math.max(0, clock.t0 + t * 1000 - performance.now()));
    if (clock.over()) break;
    stats.waves++;
    waves.push(Promise.all(Array.from({ length: LOGIN_WAVE }, one)).then(() => undefined));
  }
  await Promise.all(waves);
  return stats;
}

async function runHostile(s: Service, cases: HostileCase[], clock: Clock) {
  const perCase = new Map(cases.map((c) => [c.name, new Tally()]));
  const samples: Samples = new Map();
  let i = 0;
  const worker = async () => {
    while (!clock.over()) {
      const c = cases[i++ % cases.length]!;
      const a = await rawExchange(s.port, c.bytes, ANSWER_TIMEOUT_MS);
      judge(c, a, perCase.get(c.name)!, samples);
      await sleep(HOSTILE_PAUSE_MS);
    }
  };
  await Promise.all(Array.from({ length: HOSTILE_CONCURRENCY }, worker));
  return { perCase, samples };
}

async function runSlowloris(s: Service, clock: Clock): Promise<{ results: SlowlorisResult[]; skipped: string[] }> {
  const plan: Array<{ at: number; kind: 'headers' | 'body'; limit: number }> = [];
  const skipped: string[] = [];
  for (let t = 0.5; t === 0.5 || t * 1000 + SLOW_HEADERS_LIMIT_MS <= DURATION_S * 1000; t += 10)
    plan.push({ at: t, kind: 'headers', limit: SLOW_HEADERS_LIMIT_MS });
  if (DURATION_S * 1000 < SLOW_BODY_LIMIT_MS)
    skipped.push(`slow body (needs a run of at least ${SLOW_BODY_LIMIT_MS / 1000} s)`);
  else
    for (let t = 0.5; t * 1000 + SLOW_BODY_LIMIT_MS <= DURATION_S * 1000; t += 15)
      plan.push({ at: t, kind: 'body', limit: SLOW_BODY_LIMIT_MS });
  const runs = plan.map(async (p) => {
    await sleep(Math.max(0, clock.t0 + p.at * 1000 - performance.now()));
    return slowloris(s.port, p.kind, p.limit, clock.elapsedS());
  });
  return { results: await Promise.all(runs), skipped };
}

// ---------- the run ----------

async function adminToken(s: Service): Promise<string | undefined> {
  const a = await request(s.url, {
    method: 'POST',
    path: '/admin/api/auth/login',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(ADMIN),
  });
  if (a.status !== 200) {
    log(`admin login before the load answered ${a.status ?? a.error}: the admin hostile cases are skipped`);
    return undefined;
  }
  return (JSON.parse(a.body) as { access_token: string }).access_token;
}

/** `loadStart`: when the load began, ms since the epoch (probe times are reported relative to it). */
function probeSummary(all: ProbeResult[], loadStart: number) {
  const results = all.filter((p) => !p.keepAlive);
  const kept = all.filter((p) => p.keepAlive);
  const sorted = results.map((p) => p.ms).sort((a, b) => a - b);
  const keptSorted = kept.map((p) => p.ms).sort((a, b) => a - b);
  const bad = results.filter((p) => p.error || p.status !== 200 || p.ms > PROBE_LIMIT_MS);
  return {
    probes: results.length,
    failures: bad.length,
    p50_ms: round1(percentile(sorted, 50)),
    p99_ms: round1(percentile(sorted, 99)),
    max_ms: round1(sorted.at(-1) ?? 0),
    limit_ms: PROBE_LIMIT_MS,
    keep_alive: {
      probes: kept.length,
      p99_ms: round1(percentile(keptSorted, 99)),
      max_ms: round1(keptSorted.at(-1) ?? 0),
      over_limit: kept.filter((p) => p.error || p.status !== 200 || p.ms > PROBE_LIMIT_MS).length,
    },
    slowest: [...results]
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 5)
      .map((p) => ({ at_s: round1((p.at - loadStart) / 1000), ms: round1(p.ms) })),
    first_failures: bad.slice(0, 10).map((p) => ({
      at_s: round1((p.at - loadStart) / 1000),
      ms: round1(p.ms),
      status: p.status ?? null,
      error: p.error ?? null,
    })),
  };
}

async function main(): Promise<number> {
  const startedAt = new Date();
  const wall = performance.now();
  const loadBefore = round1(loadavg()[0]!);
  if (loadBefore > cpus().length)
    log(`warning: load average ${loadBefore} on ${cpus().length} cores before the run; latencies will suffer from it`);
  log(
    `${DURATION_S} s${QUICK ? ' (quick)' : ''}: ${LIST_CONNECTIONS} list connections, login waves of ${LOGIN_WAVE}, hostile documents, /healthz every ${PROBE_EVERY_MS} ms`,
  );
  log('building dist/server.js (node scripts/build.mjs)');
  build();
  database = await recreateDatabase(SERVER_URL, DB_NAME);
  log(`database ${redact(database.url)} created`);
  const customers = await Promise.all(
    CUSTOMERS.map(async (c) => ({ ...c, passwordHash: await hashPassword(c.password) })),
  );
  service = await startService(
    {
      NODE_ENV: 'production',
      DATABASE_URL: database.url,
      LOG_LEVEL: 'warn',
      // Stated rather than left to the default (the CPU count), so that the run waits for all of them.
      WORKERS: String(WORKERS),
      CUSTOMER_JWT_SECRET: `soak-customer-${randomBytes(24).toString('hex')}`,
      ADMIN_JWT_SECRET: `soak-admin-${randomBytes(24).toString('hex')}`,
      ADMIN_USERNAME: ADMIN.username,
      ADMIN_PASSWORD: ADMIN.password,
    },
    WORKERS,
  );
  const s = service;
  log(`service ready on ${s.url} in ${s.startupMs} ms (pid ${s.pid})`);
  const { categoryIds } = await seedCatalogue(database.url, ITEMS, customers);
  const first = await request(s.url, { path: '/api/v1/items?limit=1' });
  const visible = first.status === 200 ? (JSON.parse(first.body) as { total?: number }).total : undefined;
  if (visible !== ITEMS)
    log(
      `warning: after seeding, GET /api/v1/items says total ${visible ?? `${first.status ?? first.error}`}, not ${ITEMS}`,
    );
  log(`seeded ${categoryIds.length} categories, ${ITEMS} items, ${customers.length} customers`);
  const token = await adminToken(s);
  const cases = hostileCases(s.port, token);

  // The machine settles first (at most QUIET_WAIT_MS): after the test suite, its processes and
  // PostgreSQL's clean-up can hold both cores for a while, and the load would be measured on top.
  const idleBefore = await waitForQuietMachine(QUIET_IDLE_SHARE, QUIET_WAIT_MS);
  if (idleBefore !== undefined && idleBefore < QUIET_IDLE_SHARE)
    log(
      `warning: the CPUs were only ${Math.round(idleBefore * 100)}% idle before the load after ${QUIET_WAIT_MS / 1000} s of waiting`,
    );
  // The probe starts first, so that its kept-alive connection is open before the load arrives.
  const probe = startProbe(s.port, PROBE_EVERY_MS, PROBE_GIVE_UP_MS);
  await sleep(500);
  let crash: { at_s: number; code: number | null; signal: string | null } | undefined;
  const t0 = performance.now();
  const clock: Clock = {
    t0,
    deadline: t0 + DURATION_S * 1000,
    elapsedS: () => (performance.now() - t0) / 1000,
    over: () => crash !== undefined || performance.now() >= clock.deadline,
  };
  s.child.once('exit', (code, signal) => (crash = { at_s: round1(clock.elapsedS()), code, signal }));
  const overflowsBefore = listenOverflows();
  const memory = serviceSampler(s.pid, s.port, 250);
  // The load generator's own event-loop delay: a busy client inflates every latency it measures.
  const clientDelay = monitorEventLoopDelay({ resolution: 10 });
  clientDelay.enable();
  log('load running');
  const [list, logins, hostile, slow] = await Promise.all([
    runList(s, categoryIds),
    runLogins(s, clock),
    runHostile(s, cases, clock),
    runSlowloris(s, clock),
  ]);
  const loadS = round1(clock.elapsedS());
  const probes = await probe.stop();
  const sampled = memory.stop();
  const overflowsAfter = listenOverflows();
  clientDelay.disable();
  const crashedDuringLoad = crash;
  log('load done; SIGTERM');
  const shutdown = await stopService(s, SHUTDOWN_GRACE_MS);
  const serverLog = s.errorLines();

  // ---------- judgement ----------
  const hostileAll = new Tally();
  for (const t of hostile.perCase.values()) hostileAll.add(t);
  const loginSummary = { ...logins.tally.summary(), waves: logins.waves, wave_size: LOGIN_WAVE };
  const passwordCheckLimit = 2 * LOGIN_IP_PER_MINUTE * (Math.floor(loadS / 60) + 1);
  const report = {
    date: startedAt.toISOString(),
    mode: QUICK ? 'quick' : 'full',
    duration_s: DURATION_S,
    load_s: loadS,
    machine: {
      cpu: cpus()[0]?.model ?? 'unknown',
      cores: cpus().length,
      memory_gb: Math.round(totalmem() / 2 ** 30),
      node: process.version,
      // Other work on the machine competes with the service for CPU: the figures are only as quiet as it was.
      load_average_before: loadBefore,
      cpu_idle_before: idleBefore === undefined ? null : round1(idleBefore * 100),
      load_average_after: round1(loadavg()[0]!),
      accept_queue_peak: sampled.accept_queue_peak,
      listen_overflows:
        overflowsBefore === undefined || overflowsAfter === undefined ? null : overflowsAfter - overflowsBefore,
      client_event_loop_delay_ms: { p99: round1(clientDelay.percentile(99) / 1e6), max: round1(clientDelay.max / 1e6) },
    },
    service: {
      url: s.url,
      startup_ms: s.startupMs,
      items: ITEMS,
      categories: categoryIds.length,
      processes: sampled.processes,
    },
    list: { connections: LIST_CONNECTIONS, ...listSummary(list) },
    logins: {
      ...loginSummary,
      password_checks: logins.passwordChecks,
      password_check_limit: passwordCheckLimit,
      wrong_password_accepted: logins.wrongPasswordAccepted,
    },
    hostile: {
      concurrency: HOSTILE_CONCURRENCY,
      ...hostileAll.summary(),
      cases: Object.fromEntries([...hostile.perCase].map(([name, t]) => [name, t.summary()])),
      samples: Object.fromEntries(hostile.samples),
    },
    slowloris: { results: slow.results, skipped: slow.skipped },
    healthz: probeSummary(probes, performance.timeOrigin + t0),
    rss_mb: { start: sampled.start_mb, peak: sampled.peak_mb, end: sampled.end_mb },
    crash: crashedDuringLoad ?? null,
    shutdown: { ...shutdown, limit_ms: SHUTDOWN_GRACE_MS },
    server_error_log: serverLog,
    failures: [] as string[],
    deviations: [] as string[],
    pass: false,
    wall_s: 0,
  };
  const fail = (m: string) => report.failures.push(m);
  if (crashedDuringLoad)
    fail(
      `the service exited during the load at ${crashedDuringLoad.at_s} s (${crashedDuringLoad.code ?? crashedDuringLoad.signal})`,
    );
  for (const [name, sum] of [
    ['list', report.list],
    ['logins', report.logins],
    ['hostile', report.hostile],
  ] as const) {
    if (sum.errors) {
      const fiveXx = Object.entries(sum.status)
        .filter(([k]) => Number(k) >= 500)
        .map(([k, v]) => `${v}× ${k}`);
      const conn = Object.entries(sum.connection_errors).map(([k, v]) => `${v}× ${k}`);
      fail(`${name}: ${sum.errors} errors (${[...fiveXx, ...conn].join(', ')})`);
    }
  }
  const failedCases = [...hostile.perCase].filter(([, t]) => t.summary().errors).map(([name]) => name);
  if (failedCases.length) fail(`hostile: ${failedCases.length} of ${hostile.perCase.size} cases had errors`);
  const unsent = [...hostile.perCase].filter(([, t]) => !t.requests).map(([name]) => name);
  if (unsent.length)
    report.deviations.push(`hostile cases never sent (the run was too short for them): ${unsent.join(', ')}`);
  if (logins.wrongPasswordAccepted) fail(`logins: ${logins.wrongPasswordAccepted} wrong passwords accepted`);
  for (const r of slow.results.filter((x) => !x.pass))
    fail(`slowloris (${r.kind}, opened at ${r.started_at_s} s): still open after ${r.limit_s} s`);
  if (!report.healthz.probes) fail('healthz: no probe ran');
  if (report.healthz.failures)
    fail(
      `healthz: ${report.healthz.failures} of ${report.healthz.probes} probes failed or took over ${PROBE_LIMIT_MS} ms (max ${report.healthz.max_ms} ms)`,
    );
  if (!crashedDuringLoad && (shutdown.killed || shutdown.code !== 0)) {
    fail(
      shutdown.killed
        ? `shutdown: no exit within ${SHUTDOWN_GRACE_MS} ms of SIGTERM (killed)`
        : `shutdown: exit ${shutdown.code ?? shutdown.signal} after SIGTERM, not 0`,
    );
  }
  for (const sum of [report.list, report.logins, report.hostile]) {
    for (const [what, count] of Object.entries(sum.deviations)) report.deviations.push(`${count}× ${what}`);
  }
  for (const [code, count] of Object.entries(report.list.status))
    if (code !== '200' && Number(code) < 500) report.deviations.push(`list: ${count}× ${code}`);
  if (logins.passwordChecks > passwordCheckLimit) {
    report.deviations.push(
      `logins: ${logins.passwordChecks} attempts reached a password check; per-IP limits allow at most ${passwordCheckLimit} (§7.2)`,
    );
  }
  report.pass = report.failures.length === 0;
  report.wall_s = round1((performance.now() - wall) / 1000);

  printReport(report);
  mkdirSync(dirname(RESULTS_FILE), { recursive: true });
  writeFileSync(RESULTS_FILE, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`(written to ${RESULTS_FILE.replace(ROOT, '')})`);
  if (!report.pass && serverLog.count) {
    console.log(`\nserver error log (${serverLog.count} lines; first ${serverLog.first.length}):`);
    for (const l of serverLog.first) console.log(`  ${l.slice(0, 600)}`);
  }
  console.log(
    report.pass
      ? `\nPASS (${report.wall_s} s)`
      : `\nFAIL (${report.wall_s} s):\n${report.failures.map((f) => `  - ${f}`).join('\n')}`,
  );
  return report.pass ? 0 : 1;
}

type Summary = {
  requests: number;
  errors: number;
  status: Record<string, number>;
  connection_errors: Record<string, number>;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
};

function printReport(r: {
  duration_s: number;
  load_s: number;
  machine: {
    cores: number;
    load_average_before: number;
    cpu_idle_before: number | null;
    load_average_after: number;
    listen_overflows: number | null;
    accept_queue_peak: number;
    client_event_loop_delay_ms: { p99: number; max: number };
  };
  service: { url: string; startup_ms: number; processes: number };
  list: Summary & { rps: number };
  logins: Summary & { waves: number; password_checks: number; password_check_limit: number };
  hostile: Summary & { cases: Record<string, Summary & { deviations: Record<string, number> }> };
  slowloris: { results: SlowlorisResult[]; skipped: string[] };
  healthz: ReturnType<typeof probeSummary>;
  rss_mb: { start: number; peak: number; end: number };
  shutdown: { code: number | null; signal: string | null; ms: number; killed: boolean };
  server_error_log: { count: number };
  deviations: string[];
}): void {
  const pad = (v: unknown, n: number) => String(v).padStart(n);
  const statuses = (s: Summary) =>
    Object.entries({ ...s.status, ...s.connection_errors })
      .map(([k, v]) => `${k}:${v}`)
      .join(' ');
  const lines = [
    '',
    `Soak: ${r.duration_s} s (load ran ${r.load_s} s) against ${r.service.url} — NODE_ENV=production, PostgreSQL ${DB_NAME}, ${ITEMS} items; ready in ${r.service.startup_ms} ms; ${r.service.processes} process(es); load average before ${r.machine.load_average_before} on ${r.machine.cores} cores, CPUs ${r.machine.cpu_idle_before ?? '?'}% idle as the load began`,
    '',
    `${'load'.padEnd(9)}${pad('requests', 9)}${pad('errors', 8)}${pad('p50 ms', 9)}${pad('p99 ms', 9)}${pad('max ms', 9)}  answers`,
  ];
  for (const [name, s] of [
    ['list', r.list],
    ['logins', r.logins],
    ['hostile', r.hostile],
  ] as const) {
    lines.push(
      `${name.padEnd(9)}${pad(s.requests, 9)}${pad(s.errors, 8)}${pad(s.p50_ms, 9)}${pad(s.p99_ms, 9)}${pad(s.max_ms, 9)}  ${statuses(s)}`,
    );
  }
  lines.push(
    `${''.padEnd(9)}list ${r.list.rps} req/s on ${LIST_CONNECTIONS} connections; logins in ${r.logins.waves} wave(s) of ${LOGIN_WAVE}, ${r.logins.password_checks} reached a password check (per-IP limits allow ${r.logins.password_check_limit})`,
  );
  const badCases = Object.entries(r.hostile.cases).filter(([, c]) => c.errors);
  for (const [name, c] of badCases.slice(0, 8))
    lines.push(`  hostile ${name}: ${c.requests} sent, ${c.errors} errors — ${statuses(c)}`);
  if (badCases.length > 8) lines.push(`  … and ${badCases.length - 8} more hostile cases with errors (see the JSON)`);
  lines.push(
    `healthz  ${r.healthz.probes} probes, ${r.healthz.failures} failed or over ${r.healthz.limit_ms} ms; p50 ${r.healthz.p50_ms} ms, p99 ${r.healthz.p99_ms} ms, max ${r.healthz.max_ms} ms`,
  );
  const k = r.healthz.keep_alive;
  lines.push(
    `         diagnostic, on one kept-alive connection: ${k.probes} probes, ${k.over_limit} over ${r.healthz.limit_ms} ms or failed, p99 ${k.p99_ms} ms, max ${k.max_ms} ms`,
  );
  lines.push(`         slowest fresh probes: ${r.healthz.slowest.map((p) => `${p.ms} ms at ${p.at_s} s`).join(', ')}`);
  for (const f of r.healthz.first_failures.slice(0, 5))
    lines.push(`  probe at ${f.at_s} s: ${f.error ?? `status ${f.status}`}, ${f.ms} ms`);
  const slow = r.slowloris.results.map(
    (x) =>
      `${x.kind}@${x.started_at_s}s ${x.closed_after_s === null ? `OPEN after ${x.limit_s} s` : `closed after ${x.closed_after_s} s${x.status ? ` (${x.status})` : ''}`}`,
  );
  lines.push(
    `slowloris ${slow.join('; ')}${r.slowloris.skipped.length ? `; skipped: ${r.slowloris.skipped.join(', ')}` : ''}`,
  );
  lines.push(
    `client   load generator's event-loop delay p99 ${r.machine.client_event_loop_delay_ms.p99} ms, max ${r.machine.client_event_loop_delay_ms.max} ms; load average ${r.machine.load_average_before} before, ${r.machine.load_average_after} after; ${r.machine.listen_overflows ?? '?'} connections dropped by full accept queues (kernel, machine-wide)`,
  );
  lines.push(
    `accept   up to ${r.machine.accept_queue_peak} connections waited for the service to accept them (peak of the listening socket's accept queue)`,
  );
  lines.push(
    `RSS      peak ${r.rss_mb.peak} MB (start ${r.rss_mb.start}, end ${r.rss_mb.end}) — the service's process tree`,
  );
  lines.push(
    `shutdown SIGTERM → ${r.shutdown.killed ? `no exit within ${SHUTDOWN_GRACE_MS} ms (killed)` : `exit ${r.shutdown.code ?? r.shutdown.signal} in ${r.shutdown.ms} ms`}; ${r.server_error_log.count} error lines in the server log`,
  );
  if (r.deviations.length) {
    lines.push('', `contract deviations (reported, not failures): ${r.deviations.length}`);
    for (const d of r.deviations.slice(0, 40)) lines.push(`  ${d}`);
    if (r.deviations.length > 40) lines.push(`  … ${r.deviations.length - 40} more in the JSON`);
  }
  console.log(lines.join('\n'));
}

// A run that overstays its welcome is itself a failure (CI must not hang on it).
const watchdog = setTimeout(
  () => {
    log(`FAIL: still running ${DURATION_S + 120} s after start; giving up`);
    void cleanup().finally(() => process.exit(1));
  },
  (DURATION_S + 120) * 1000,
);
watchdog.unref();

main()
  .then(async (code) => {
    await cleanup();
    process.exit(code);
  })
  .catch(async (err: unknown) => {
    console.log(`\nFAIL: the soak could not run: ${(err as Error)?.message ?? String(err)}`);
    if (service) console.log(`\nservice output (tail):\n${service.output().slice(-4000)}`);
    try {
      mkdirSync(dirname(RESULTS_FILE), { recursive: true });
      writeFileSync(
        RESULTS_FILE,
        `${JSON.stringify({ date: new Date().toISOString(), pass: false, error: (err as Error)?.message ?? String(err) }, null, 2)}\n`,
      );
    } catch {
      /* the message above is what matters */
    }
    await cleanup();
    process.exit(1);
  });
