/**
 * The background process of an instance on PostgreSQL (contract §7.7, docs/architecture.md): the
 * primary forks it beside the WORKERS serving workers, and it alone of its instance does the work no
 * request waits for — import slices (§13), the webhook dispatch and deliveries (§14), the facet counts'
 * fold. The serving workers only queue jobs (a job they queue, the primary has this process look for
 * at once: JOBS_WAKE), so that work never lengthens their event loops, and it runs at a lower
 * scheduling priority (BACKGROUND_NICE): on a busy machine the serving workers get the CPU first
 * (issue 38: the writes' latency with webhooks, docs/performance.md). Jobs stay single per deployment
 * whatever runs them (pg-boss hands each to one process); a background process that dies is replaced
 * by the primary like a worker, and its jobs come back when their leases end.
 */
import cluster from 'node:cluster';
import { setPriority } from 'node:os';
import type { Config } from '../config/config.ts';
import { createLogger } from '../logger.ts';
import { workerClusterMetrics } from '../observability/cluster-metrics.ts';
import { openRuntime } from '../runtime.ts';
import { JOBS_WAKE } from './jobs-wake.ts';
import { STOP_ACCEPTING, STOPPED_ACCEPTING } from './shared-listener.ts';

/**
 * The background process's niceness. Linux's scheduler gives a runnable process a share of the CPU in
 * proportion to a weight: 1024 at nice 0, 335 at 5 — so on a saturated machine it still gets
 * about a third of a serving worker's share (its work stays timely: a webhook's first attempt within
 * a second), and the serving workers go first.
 */
export const BACKGROUND_NICE = 5;

export async function runBackground(config: Config): Promise<void> {
  const log = createLogger(config.logLevel, config.logFormat);
  try {
    setPriority(BACKGROUND_NICE);
  } catch (err) {
    // A container may forbid it; the work is the same, only not behind the serving workers.
    log.warn({ err }, 'background process: could not lower its priority');
  }
  const runtime = await openRuntime(config, { role: 'background', prepare: 'nothing', background: true, log });
  // The primary sums every worker's metrics, this one's too (statement timings of its jobs, its memory);
  // `shop_processes` counts the serving ones.
  runtime.metrics.processes.set(0);
  if (cluster.isWorker) workerClusterMetrics(runtime.metrics.registry);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'background process: stopping (running jobs finish their step)');
    await runtime.close();
    log.info('background process stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('message', (message: { type?: unknown; queue?: unknown }) => {
    // A stop begins by closing every worker's listening handles: this process holds none.
    if (message?.type === STOP_ACCEPTING) process.send?.({ type: STOPPED_ACCEPTING });
    else if (message?.type === JOBS_WAKE && typeof message.queue === 'string') {
      log.debug(
        { queue: message.queue, pid: process.pid },
        'background process: woken for a job a serving worker queued',
      );
      runtime.services.jobs.wake(message.queue);
    }
  });
  log.info({ pid: process.pid, nice: BACKGROUND_NICE }, 'background process running imports, webhooks and folds');
}
