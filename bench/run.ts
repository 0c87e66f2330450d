/**
 * `npm run bench [-- --quick]`: measures the service against the hand-written floor (bench/floor.ts)
 * on the same PostgreSQL data and the same request sequences, one server after the other, prints a
 * markdown table and writes bench/results/latest.json. See docs/performance.md.
 *
 * 1. Cache off (CATALOG_CACHE_MB=0), WORKERS=1: list, list_default, list_sorted, detail, search, categories
 *    against the floor; graphql_items and login on the service alone.
 * 2. Cache on (the default), WORKERS=1: detail_hot, list_hot, search_hot, categories against the
 *    same uncached floor (`--quick`: detail_hot and categories only).
 * 3. mixed: two cached instances under detail_hot while an admin writes (bench/mixed.ts).
 * 4. workers: detail, cache off, at WORKERS=1 and WORKERS=2.
 * 5. import / export (bench/transfer.ts): N items × 2 SKUs imported into an empty database, again
 *    (unchanged), exported; the same import on the embedded database (not in quick mode).
 * Then the start-up time on the embedded database and the relevance suite's scores (not in quick mode).
 * `--transfer`: step 5 alone (`--quick --transfer`: its quick version; `--no-embedded`: without the
 * embedded import); BENCH_TRANSFER_ITEMS sets its N.
 * 3b. mixed_webhooks (bench/mixed-webhooks.ts): right after `mixed`, the same with 3 webhooks on a local
 *    receiver: commit → first attempt, backlog, the writes' latency against `mixed`'s (contract §14.2).
 * `--webhooks[=N]`: `mixed` and `mixed_webhooks` (N webhooks, default 3) alone, on 20,000 items in
 * `shop_bench_webhooks`, 20 s each (`--quick --webhooks`: 2,000 items, 2 s each, as the suite runs it).
 * `--help`: these options.
 */
import { join } from 'node:path';
import pg from 'pg';
import { ensureBenchCustomer, maintenanceUrl, prepareBenchData } from './data.ts';
import { CONNECTIONS, LOGIN_CONNECTIONS, measure, measureInTurns, type Timing } from './load.ts';
import { mixedScenario, WRITE_EVERY_MS } from './mixed.ts';
import { mixedWebhooksScenario } from './mixed-webhooks.ts';
import { relevanceScore } from './relevance.ts';
import {
  type BenchResult,
  describeMachine,
  type LoadScenario,
  notes,
  ratio,
  type Scenario,
  table,
  writeResult,
} from './report.ts';
import { itemsByHeat, type Requests, scenarioRequests } from './requests.ts';
import {
  assertSameBodies,
  type Server,
  type ServiceOptions,
  startBenchService,
  startFloor,
  startupTimes,
} from './servers.ts';
import { type TransferResult, transferScenarios } from './transfer.ts';

const ROOT = new URL('../', import.meta.url).pathname;
const quick = process.argv.includes('--quick');
/** `--million`: the search scenarios alone, at 1,000,000 items (issue 18: how search scales). */
const million = process.argv.includes('--million');
/** `--search`: the search scenarios alone (at 100,000 items unless `--million`), for a change to search. */
const searchOnly = million || process.argv.includes('--search');
/** `--transfer`: the import and export scenarios alone (contract §13.4). */
const transferOnly = process.argv.includes('--transfer');
/** `--webhooks[=N]`: `mixed` and `mixed_webhooks` alone (issue 38), with N webhooks (default 3). */
const webhooksArg = process.argv.find((a) => a === '--webhooks' || a.startsWith('--webhooks='));
const webhooksOnly = webhooksArg !== undefined;
const webhookCount = webhooksArg?.includes('=') ? Number(webhooksArg.split('=')[1]) : 3;
if (!Number.isInteger(webhookCount) || webhookCount < 1)
  throw new Error(`${webhooksArg}: N must be a whole number ≥ 1`);
const mode = webhooksOnly
  ? 'webhooks'
  : quick && !transferOnly
    ? 'quick'
    : million
      ? 'million'
      : searchOnly
        ? 'search'
        : transferOnly
          ? 'transfer'
          : 'full';
// Quick mode proves every scenario runs (the test suite runs it); its figures are too short to compare,
// so each measurement lasts half a second: both cores are the load's meanwhile, and CI's time counts.
// `--webhooks`: a modest catalogue of its own (mixed reads hot items from the cache anyway) and long
// enough measurements for a p99 of the writes (20 s: 400 writes) and a backlog's trend.
const settings = webhooksOnly
  ? quick
    ? { items: 2_000, warmup: 0, duration: 2, db: 'shop_bench_webhooks_quick' }
    : { items: 20_000, warmup: 3, duration: 20, db: 'shop_bench_webhooks' }
  : quick
    ? { items: 2_000, warmup: 0, duration: 0.5, db: 'shop_bench_quick' }
    : million
      ? { items: 1_000_000, warmup: 3, duration: 10, db: 'shop_bench_1m' }
      : { items: 100_000, warmup: 3, duration: 10, db: 'shop_bench' };
const SEARCH_SCENARIOS = ['search', 'search_facets', 'suggestions'] as const;
/** Cache on. Quick mode (the test suite's) leaves out the two slowest, whose code path detail_hot covers. */
const HOT = quick
  ? (['detail_hot', 'categories'] as const)
  : (['detail_hot', 'list_hot', 'search_hot', 'categories'] as const);
const timing: Timing = { warmup: settings.warmup, duration: settings.duration };
/**
 * Items of the import and export scenarios: 100,000 (contract §13.4); quick: 500 — three batches of the
 * import, which writes ~100–300 items a second on this machine (its search indexing), so that the suite's
 * run stays short.
 */
const transferItems = Number(process.env.BENCH_TRANSFER_ITEMS ?? (quick ? 500 : 100_000));
const benchUrl = process.env.BENCH_DATABASE_URL ?? `postgresql://postgres@127.0.0.1:5432/${settings.db}`;

const began = performance.now();
const log = (msg: string) => console.error(`bench: [${Math.round((performance.now() - began) / 1000)} s] ${msg}`);

async function withService<T>(name: string, opts: ServiceOptions, fn: (s: Server) => Promise<T>): Promise<T> {
  const service = await startBenchService(name, benchUrl, opts);
  try {
    return await fn(service);
  } finally {
    await service.stop();
  }
}

/**
 * Waits (up to a minute) until PostgreSQL runs no statement but this one: a scenario whose requests
 * outlast its measurement (facets under 64 connections) leaves statements running after its clients
 * have gone, which the next measurement would otherwise pay for.
 */
async function postgresSettled(): Promise<void> {
  const client = new pg.Client({ connectionString: benchUrl });
  await client.connect();
  try {
    const until = performance.now() + 60_000;
    while (performance.now() < until) {
      const { rows } = await client.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND pid <> pg_backend_pid() AND backend_type = 'client backend'",
      );
      if (rows[0]!.n === 0) return;
      await new Promise((r) => setTimeout(r, 250));
    }
    log('PostgreSQL still busy after 60 s; measuring anyway');
  } finally {
    await client.end();
  }
}

/** The service and the floor on the same requests, taking turns (bench/load.ts), each on a settled PostgreSQL. */
async function versusFloor(
  name: string,
  cache: 'on' | 'off',
  service: Server,
  floor: Server,
  requests: Requests,
): Promise<LoadScenario> {
  log(`${name} (cache ${cache})`);
  const { figures, turns } = await measureInTurns([service, floor], requests, timing, postgresSettled);
  const [s, f] = figures;
  // Served answers compared (a fast 503 is not one); a floor that served nothing in the window (facets
  // under overload) gives no ratio, not service ÷ 1.
  return { name, cache, service: s, floor: f, ratio: f.ok_rps > 0 ? ratio(s.ok_rps, f.ok_rps) : null, turns };
}

/** The import and export scenarios (bench/transfer.ts): the embedded import not in quick mode. */
function transfer(): Promise<TransferResult> {
  log(`import / export (${transferItems} items × 2 SKUs)`);
  return transferScenarios({
    benchUrl,
    items: transferItems,
    // The reads at rest: as long as a measurement, at least 1 s (200 req/s: a p99 over 200 answers).
    idleSeconds: Math.max(1, settings.duration),
    embedded: !quick && !process.argv.includes('--no-embedded'),
    log,
  });
}

const HELP = `npm run bench [-- options]   (docs/performance.md)
  (none)           every scenario on 100,000 items, then import/export, start-up, relevance → bench/results/latest.json
  --quick          every scenario briefly on 2,000 items (what the test suite runs) → latest-quick.json
  --search         the search scenarios alone on 100,000 items → latest-search.json
  --million        the search scenarios alone on 1,000,000 items → latest-1m.json
  --transfer       import and export alone (--no-embedded: without the embedded import; BENCH_TRANSFER_ITEMS=N) → latest-transfer.json
  --webhooks[=N]   mixed, then mixed_webhooks with N webhooks (default 3) on a local receiver, 20,000 items → latest-webhooks.json
                   (--turns: then mixed_webhooks_2 and mixed_2 — A B B A — and the two sides' ratios)
                   (--quick --webhooks: 2,000 items, 2 s each → latest-webhooks-quick.json)
  BENCH_DATABASE_URL   the bench database (default postgresql://postgres@127.0.0.1:5432/shop_bench…)
  BENCH_RESULTS_FILE   where to write the result instead
  BENCH_MIXED_WRITE_EVERY_MS   mixed's writer pace (default 50 ms: 20 writes a second)`;

/**
 * `--webhooks --turns`: the pair, then again in the other order — mixed, mixed_webhooks,
 * mixed_webhooks_2, mixed_2 (A B B A) — so that a drift of the machine during the run weighs on both
 * sides alike: in one pair the webhooks' phase always runs second, and a second plain `mixed` served 19 %
 * fewer reads than an identical first one (docs/performance.md, "A slower machine").
 */
const turns = process.argv.includes('--turns');

/** `mixed`, then `mixed_webhooks` right after it (the same sitting: its writes' reference); `--turns`: A B B A. */
async function mixedPair(detailHot: Requests, heat: number[], hooks: number): Promise<Scenario[]> {
  log(`mixed (cache on, two instances, an admin writing every ${WRITE_EVERY_MS} ms)`);
  const mixed = await mixedScenario(benchUrl, detailHot, heat, timing);
  log(`mixed_webhooks (mixed again, ${hooks} webhooks on a local receiver)`);
  const withHooks = await mixedWebhooksScenario(benchUrl, detailHot, heat, timing, hooks, mixed);
  if (!turns) return [mixed, withHooks];
  log('mixed_webhooks again, then mixed again (A B B A)');
  const withHooks2 = await mixedWebhooksScenario(benchUrl, detailHot, heat, timing, hooks, mixed);
  const mixed2 = await mixedScenario(benchUrl, detailHot, heat, timing);
  // Each side's two phases averaged; the webhooks' over the plain.
  const sides = (pick: (s: LoadScenario) => number) =>
    ((pick(withHooks) + pick(withHooks2)) / (pick(mixed) + pick(mixed2))).toFixed(3);
  log(
    `A B B A, with ÷ without webhooks: writes p50 ${sides((s) => s.writes!.p50_ms)}, p99 ${sides((s) => s.writes!.p99_ms)}; ` +
      `reads/s ${sides((s) => s.service.ok_rps)}`,
  );
  return [mixed, withHooks, { ...withHooks2, name: 'mixed_webhooks_2' }, { ...mixed2, name: 'mixed_2' }];
}

async function main(): Promise<void> {
  const startedAt = new Date();
  if (process.argv.includes('--help')) return void console.log(HELP);
  if (transferOnly) {
    const { scenarios, skipped } = await transfer();
    return finish(startedAt, scenarios, { skipped });
  }
  log(`${mode} mode, ${settings.items} items, ${settings.warmup}s warm-up + ${settings.duration}s per measurement`);
  const data = await prepareBenchData(benchUrl, settings.items);
  log(`data ${data.reused ? 'reused' : `filled in ${data.fillMs} ms`} (${benchUrl.replace(/\/\/[^@]*@/, '//')})`);
  await ensureBenchCustomer(benchUrl);
  const requests = scenarioRequests(data);
  const heat = itemsByHeat(data);
  if (webhooksOnly) return finish(startedAt, await mixedPair(requests.detail_hot, heat, webhookCount));
  const samples = [
    '/api/v1/items',
    `/api/v1/items?category_id=${data.categoryIds[0]}&page=2`,
    `/api/v1/items?category_id=${data.categoryIds.at(-1)}&page=50`,
    `/api/v1/items?keyword=${encodeURIComponent(data.words.at(-1)!)}`,
    `/api/v1/items?keyword=${encodeURIComponent(data.hotKeywords.at(-1)!)}`,
    `/api/v1/items?keyword=${encodeURIComponent(data.words[0]!)}&facets=true`,
    `/api/v1/items?keyword=${encodeURIComponent(data.words.at(-1)!)}&facets=true&page=2`,
    '/api/v1/search/suggestions?q=pao',
    `/api/v1/search/suggestions?q=${encodeURIComponent(data.words[1]!.slice(0, 2))}`,
    '/api/v1/items?sort=price_desc&min_price=100&max_price=150.5&in_stock=true&page=3',
    '/api/v1/items?sort=name_asc&max_price=20',
    '/api/v1/items/7',
    `/api/v1/items/${heat[0]}`,
    '/api/v1/categories',
  ];
  const scenarios: Scenario[] = [];

  const floor = await startFloor(benchUrl);
  try {
    await withService('service (cache off)', { cache: 'off', workers: 1 }, async (service) => {
      await assertSameBodies(service, floor, samples);
      const uncached = searchOnly
        ? SEARCH_SCENARIOS
        : (['list', 'list_default', 'list_sorted', 'detail', ...SEARCH_SCENARIOS, 'categories'] as const);
      for (const name of uncached) {
        scenarios.push(await versusFloor(name, 'off', service, floor, requests[name]));
      }
      // Issue 18's reference: revision 2's substring search (the floor's), on the same keywords.
      log('search_reference (revision 2 substring search, floor)');
      const search = scenarios.find((s): s is LoadScenario => s.name === 'search')!;
      search.reference = (await measure([floor], requests.search_reference, timing)).figures;
      search.reference_ratio = ratio(search.service.ok_rps, search.reference.ok_rps);
      if (searchOnly) return;
      log('graphql_items (cache off)');
      scenarios.push({
        name: 'graphql_items',
        cache: 'off',
        service: (await measure([service], requests.graphql_items, timing)).figures,
        floor: null,
        ratio: null,
      });
      log('login');
      const login = await measure([service], requests.login, timing, { connections: LOGIN_CONNECTIONS });
      scenarios.push({ name: 'login', cache: 'off', service: login.figures, floor: null, ratio: null });
    });
    if (!searchOnly)
      await withService('service (cache on)', { cache: 'on', workers: 1 }, async (service) => {
        // Twice: the second answers may come from the cache.
        for (let i = 0; i < 2; i++) await assertSameBodies(service, floor, samples);
        for (const name of HOT) {
          scenarios.push(await versusFloor(name, 'on', service, floor, requests[name]));
        }
      });
  } finally {
    await floor.stop();
  }
  if (searchOnly) return finish(startedAt, scenarios);

  // Quick mode (the suite's) keeps plain `mixed`: `--quick --webhooks` is the suite's run of the pair.
  if (quick) {
    log('mixed (cache on, two instances, an admin writing every 50 ms)');
    scenarios.push(await mixedScenario(benchUrl, requests.detail_hot, heat, timing));
  } else scenarios.push(...(await mixedPair(requests.detail_hot, heat, 3)));

  log('workers (detail, cache off, WORKERS=1 then 2)');
  const one = await withService(
    'service (1 worker)',
    { cache: 'off', workers: 1 },
    async (s) => (await measure([s], requests.detail, timing)).figures,
  );
  const two = await withService(
    'service (2 workers)',
    { cache: 'off', workers: 2 },
    async (s) => (await measure([s], requests.detail, timing)).figures,
  );
  scenarios.push({
    name: 'workers',
    cache: 'off',
    service: two,
    floor: null,
    ratio: null,
    by_workers: { '1': one, '2': two },
    workers_ratio: ratio(two.rps, one.rps),
  });

  const transferred = await transfer();
  scenarios.push(...transferred.scenarios);
  const { skipped } = transferred;

  // Quick mode (the test suite's) leaves these two out: the suite runs both itself
  // (test/server/start.test.ts, test/search/relevance.test.ts), and CI's time is better spent there.
  if (quick) return finish(startedAt, scenarios, { skipped });
  log('start-up on the embedded database');
  const startup = await startupTimes();
  log('relevance suite');
  const score = await relevanceScore();
  const relevance = {
    queries: score.queries,
    mrr: Math.round(score.mrr * 1000) / 1000,
    precision_at_3: Math.round(score.precisionAt3 * 1000) / 1000,
    misses: score.misses.map((m) => m.q),
  };

  return finish(startedAt, scenarios, { startup, relevance, skipped });
}

/** Writes latest.json (latest-quick.json, latest-1m.json, latest-transfer.json) and prints the table. */
async function finish(
  startedAt: Date,
  scenarios: Scenario[],
  more: Pick<BenchResult, 'startup' | 'relevance' | 'skipped'> = {},
): Promise<void> {
  // The server's own database: a `--transfer` run never creates the bench's.
  const machine = await describeMachine(maintenanceUrl(benchUrl), {
    date: startedAt.toISOString(),
    mode,
    items: transferOnly ? transferItems : settings.items,
    connections: CONNECTIONS,
    warmup_s: settings.warmup,
    duration_s: settings.duration,
  });
  const result: BenchResult = { machine, scenarios, ...more };
  if (!result.skipped?.length) delete result.skipped;
  // Quick runs (the test suite's) keep their own file, so they never overwrite a full run's figures.
  const file = {
    quick: 'latest-quick',
    million: 'latest-1m',
    search: 'latest-search',
    transfer: quick ? 'latest-transfer-quick' : 'latest-transfer',
    webhooks: quick ? 'latest-webhooks-quick' : 'latest-webhooks',
    full: 'latest',
  }[mode];
  writeResult(process.env.BENCH_RESULTS_FILE ?? join(ROOT, `bench/results/${file}.json`), result);
  console.log(`\n${table(scenarios)}\n\n${notes(result)}`);
  log('done');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
