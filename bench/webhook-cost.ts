/**
 * What delivering webhooks costs, in CPU and statements, apart from the latency figures that a busy
 * shared machine blurs (`mixed_webhooks`): one service of this checkout (as in production, WORKERS=1)
 * on a fresh PostgreSQL database, an item written every 100 ms, in phases without and with N webhooks
 * (events `*`) on a local receiver, taken in turns (A B A B). Each phase lasts until every attempt has
 * arrived, and 1 s more. Per phase: CPU of the service's processes and of this database's PostgreSQL
 * backends (/proc), the statements the service sent (bench/count-statements.mjs, preloaded), the
 * writes' latency; then per attempt, (with − without) ÷ attempts.
 * From a checkout's root: `node --import tsx bench/webhook-cost.ts <database> [writes=200] [webhooks=3]`
 * (the database is created afresh on the local PostgreSQL; copy both files into another checkout to
 * compare two commits).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startWebhookReceiver } from '../test/helpers/webhook-receiver.ts';
import { cpuMeter, processTree } from './proc.ts';
import { adminToken, startBenchService } from './servers.ts';

const [name, writesArg = '200', hooksArg = '3'] = process.argv.slice(2);
if (!name) throw new Error('usage: webhook-cost.ts <database> [writes] [webhooks]');
const WRITES = Number(writesArg);
const HOOKS = Number(hooksArg);
/** BENCH_COST_WRITE_EVERY_MS: the writer's pace (default 100 ms: below a busy machine's write capacity). */
const EVERY_MS = Number(process.env.BENCH_COST_WRITE_EVERY_MS ?? 100);
const base = 'postgresql://postgres@127.0.0.1:5432';
const url = `${base}/${name}`;
const admin = new pg.Client({ connectionString: `${base}/postgres` });
await admin.connect();
await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
await admin.query(`CREATE DATABASE "${name}"`);

const countDir = mkdtempSync(join(tmpdir(), 'webhook-cost-'));
const receiver = await startWebhookReceiver();
const service = await startBenchService('service', url, {
  cache: 'on',
  workers: 1,
  env: {
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    NODE_OPTIONS: `--import ${fileURLToPath(new URL('./count-statements.mjs', import.meta.url))}`,
    STATEMENT_COUNT_DIR: countDir,
  },
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Statements sent so far by the service's processes, by application_name. */
const statements = () => {
  const sum: Record<string, number> = {};
  for (const file of readdirSync(countDir).filter((f) => f.endsWith('.json')))
    for (const [app, n] of Object.entries(JSON.parse(readFileSync(join(countDir, file), 'utf8')) as object))
      sum[app] = (sum[app] ?? 0) + (n as number);
  return sum;
};
// This database's backends, listed every 100 ms (a backend's CPU counts up to its last listing).
let backends: number[] = [];
const lister = setInterval(async () => {
  const { rows } = await admin.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
    [name],
  );
  backends = rows.map((r) => r.pid);
}, 100);

try {
  const token = await adminToken(service);
  const call = async (path: string, method: string, body?: unknown) => {
    const res = await fetch(`${service.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
  const gql = (query: string, variables = {}) => call('/graphql', 'POST', { query, variables });
  const category = (await gql('mutation { createCategory(input: { name: "Cost" }) { id } }')).data.createCategory.id;
  const items: number[] = [];
  for (let n = 0; n < 32; n++)
    items.push(
      (
        await call('/admin/api/items', 'POST', {
          name: `Cost ${n}`,
          category_id: category,
          price: 1,
          stock: 1,
          skus: [],
          images: [],
        })
      ).id,
    );
  const pct = (xs: number[], p: number) =>
    [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
  const f = (x: number) => Math.round(x * 10) / 10;

  async function phase(hooks: number) {
    const ids: number[] = [];
    for (let i = 0; i < hooks; i++)
      ids.push(
        (
          await gql('mutation($input:CreateWebhookInput!){createWebhook(input:$input){webhook{id}}}', {
            input: { url: `${receiver.url}/hook/${i}`, events: ['*'] },
          })
        ).data.createWebhook.webhook.id,
      );
    await sleep(1500);
    const received = receiver.received.length;
    const before = statements();
    const serviceCpu = cpuMeter(() => processTree(service.pid));
    const pgCpu = cpuMeter(() => backends);
    const sampler = setInterval(() => pgCpu.sample(), 100);
    const latencies: number[] = [];
    let failed = 0;
    const started = performance.now();
    const writes: Promise<void>[] = [];
    for (let n = 0; n < WRITES; n++) {
      const t = performance.now();
      writes.push(
        call(`/admin/api/items/${items[n % items.length]}`, 'PATCH', { price: 2 + (n % 90) }).then(
          () => void latencies.push(performance.now() - t),
          () => void failed++,
        ),
      );
      await sleep(Math.max(0, started + (n + 1) * EVERY_MS - performance.now()));
    }
    await Promise.all(writes);
    const expected = received + (WRITES - failed) * hooks;
    for (const until = Date.now() + 60_000; receiver.received.length < expected && Date.now() < until; )
      await sleep(20);
    const drainedMs = performance.now() - started - WRITES * EVERY_MS;
    await sleep(1000);
    clearInterval(sampler);
    const seconds = (performance.now() - started) / 1000;
    const serviceMs = serviceCpu.micros() / 1000;
    const pgMs = pgCpu.micros() / 1000;
    await sleep(300);
    const after = statements();
    const sent: Record<string, number> = {};
    for (const [app, n] of Object.entries(after)) sent[app] = n - (before[app] ?? 0);
    for (const id of ids) await gql('mutation($id:Int!){deleteWebhook(id:$id)}', { id });
    return {
      webhooks: hooks,
      writes: WRITES,
      writes_failed: failed,
      attempts: receiver.received.length - received,
      seconds: f(seconds),
      drained_ms_after_last_write: Math.round(drainedMs),
      write_p50_ms: f(pct(latencies, 50)),
      write_p99_ms: f(pct(latencies, 99)),
      service_cpu_ms: Math.round(serviceMs),
      postgres_cpu_ms: Math.round(pgMs),
      statements: sent,
    };
  }

  await phase(0); // warm-up (not reported)
  const phases: Array<Awaited<ReturnType<typeof phase>>> = [];
  for (const hooks of [0, HOOKS, 0, HOOKS]) phases.push(await phase(hooks));
  const sum = (hooks: number, key: 'service_cpu_ms' | 'postgres_cpu_ms' | 'attempts') =>
    phases.filter((p) => p.webhooks === hooks).reduce((n, p) => n + p[key], 0);
  const total = (p: (typeof phases)[number]) => Object.values(p.statements).reduce((a: number, b: number) => a + b, 0);
  const stmts = (hooks: number) => phases.filter((p) => p.webhooks === hooks).reduce((n, p) => n + total(p), 0);
  const attempts = sum(HOOKS, 'attempts');
  const writes = phases.filter((p) => p.webhooks === 0).reduce((n, p) => n + p.writes - p.writes_failed, 0);
  console.log(
    JSON.stringify(
      {
        db: name,
        phases,
        per_write_without: {
          service_cpu_us: Math.round((sum(0, 'service_cpu_ms') * 1000) / writes),
          postgres_cpu_us: Math.round((sum(0, 'postgres_cpu_ms') * 1000) / writes),
          statements: f(stmts(0) / writes),
        },
        per_attempt: {
          attempts,
          service_cpu_us: Math.round(((sum(HOOKS, 'service_cpu_ms') - sum(0, 'service_cpu_ms')) * 1000) / attempts),
          postgres_cpu_us: Math.round(((sum(HOOKS, 'postgres_cpu_ms') - sum(0, 'postgres_cpu_ms')) * 1000) / attempts),
          statements: f((stmts(HOOKS) - stmts(0)) / attempts),
        },
      },
      null,
      1,
    ),
  );
} finally {
  clearInterval(lister);
  await service.stop();
  await receiver.close();
  rmSync(countDir, { recursive: true, force: true });
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.end();
}
