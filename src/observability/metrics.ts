/**
 * Every Prometheus metric the service exports (contract §7.7), defined here and nowhere else. One
 * `Metrics` per runtime, on a registry of its own (never prom-client's global one), so tests may
 * run several apps in one process and each counts only its own traffic.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** One pool's connections, as pg reports them. */
export interface PoolUsage {
  /** `primary`, `maintenance` (migrations), `replica-1` … */
  pool: string;
  total: number;
  idle: number;
  /** Callers waiting for a connection. */
  waiting: number;
}

export interface MetricsOptions {
  /** Node's process metrics (CPU, memory, event loop, GC): for serving processes, not for tests. */
  processMetrics: boolean;
}

/** Seconds: from a fast cached answer (~1 ms) to the statement timeout (5 s) and beyond. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const STATEMENT_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

export function createMetrics(opts: MetricsOptions) {
  const registry = new Registry();
  if (opts.processMetrics) collectDefaultMetrics({ register: registry });
  const registers = [registry];
  let poolUsage: () => PoolUsage[] = () => [];
  const poolGauge = (name: string, help: string, pick: (u: PoolUsage) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['pool'] as const,
      registers,
      collect() {
        this.reset();
        for (const usage of poolUsage()) this.set({ pool: usage.pool }, pick(usage));
      },
    });
  const metrics = {
    registry,
    /** Set by each serving process to 1: summed across workers it says how many answered. */
    processes: new Gauge({
      name: 'shop_processes',
      help: 'Serving processes whose metrics are included (summed across workers)',
      registers,
    }),
    httpRequests: new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by route pattern, method and status',
      labelNames: ['method', 'route', 'status'] as const,
      registers,
    }),
    httpDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time from the request reaching the app to the last byte of its answer',
      labelNames: ['method', 'route', 'status'] as const,
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    graphqlOperations: new Counter({
      name: 'graphql_operations_total',
      help: 'GraphQL operations executed (POST /graphql and the REST routes alike), by root field and operation type',
      labelNames: ['field', 'type'] as const,
      registers,
    }),
    rateLimited: new Counter({
      name: 'shop_rate_limited_total',
      help: 'Root fields refused with RATE_LIMITED (login limits, hashing queue, WeChat quota)',
      labelNames: ['field'] as const,
      registers,
    }),
    loginFailures: new Counter({
      name: 'shop_login_failures_total',
      help: 'Logins refused for wrong credentials (password) or an invalid code (wechat)',
      labelNames: ['realm', 'method'] as const,
      registers,
    }),
    catalogCache: new Counter({
      name: 'shop_catalog_cache_lookups_total',
      help: 'Catalogue cache lookups: answers and list totals, hit or miss (off: the cache is disabled)',
      labelNames: ['kind', 'result'] as const,
      registers,
    }),
    searchZeroResults: new Counter({
      name: 'shop_search_zero_results_total',
      help: 'Item lists with a keyword that matched nothing (the keyword is never a label)',
      registers,
    }),
    statementDuration: new Histogram({
      name: 'shop_db_statement_duration_seconds',
      help: 'Database statements, from sending to the reply (Prisma and raw SQL)',
      labelNames: ['pool'] as const,
      buckets: STATEMENT_BUCKETS,
      registers,
    }),
    poolConnections: poolGauge(
      'shop_db_pool_connections',
      'Connections the pool holds, idle or in use',
      (u) => u.total,
    ),
    poolIdle: poolGauge('shop_db_pool_idle_connections', 'Connections the pool holds unused', (u) => u.idle),
    poolWaiting: poolGauge('shop_db_pool_waiting_requests', 'Callers waiting for a free connection', (u) => u.waiting),
    /** Where the pool gauges read from (the database, once it is open). */
    observePools(source: () => PoolUsage[]): void {
      poolUsage = source;
    },
  };
  metrics.processes.set(1);
  return metrics;
}

export type Metrics = ReturnType<typeof createMetrics>;
