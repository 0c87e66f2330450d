/**
 * On PostgreSQL (contract §7.7): the primary process forks WORKERS serving workers sharing the port
 * (node:cluster), replaces one that dies, and on SIGTERM forwards it to every worker and exits 0
 * once all have drained and exited. The primary itself serves nothing and loads none of the app.
 *
 * The first worker prepares the database (migrations, bootstrap admin, demo data) before it
 * listens; the others start once it does, so preparation never runs twice at the same time.
 */
import cluster, { type Worker } from 'node:cluster';
import type { Config } from '../config/config.ts';
import { createLogger } from '../logger.ts';
import { primaryClusterMetrics } from '../observability/cluster-metrics.ts';
import { listenForMetrics } from '../observability/metrics-endpoint.ts';
import { bindSharedListener, SERVING, shareListener } from './shared-listener.ts';
import { listenFailure, servicePort } from './startup-error.ts';

/** A worker that dies within this long of its start counts as a crash loop: replacements slow down. */
const HEALTHY_AFTER_MS = 10_000;
const MAX_RESTART_DELAY_MS = 30_000;

export async function supervise(config: Config): Promise<void> {
  const log = createLogger(config.logLevel, config.logFormat);
  // Bound here, before any worker exists, so a taken port is said at once (and not after migrations);
  // the workers accept on handles of it (shared-listener.ts), never the primary.
  const listener = await bindSharedListener(config.host, config.port).catch((err: unknown) => {
    throw listenFailure(err, servicePort(config));
  });
  shareListener(listener);
  const metricsText = primaryClusterMetrics();
  const startedAt = new Map<number, number>();
  let stopping = false;
  let restartDelay = 0;

  const fork = (): Worker => {
    const worker = cluster.fork();
    startedAt.set(worker.id, Date.now());
    return worker;
  };
  const aliveCount = () => Object.values(cluster.workers ?? {}).filter((w) => w && !w.isDead()).length;

  const first = fork();
  let serving = false;
  const onServing = (message: { type?: unknown }) => {
    if (message?.type !== SERVING) return;
    first.off('message', onServing);
    serving = true;
    for (let i = 1; i < config.workers; i++) fork();
    log.info({ workers: config.workers, primary_pid: process.pid }, 'workers started');
  };
  first.on('message', onServing);
  if (config.metrics.port !== undefined) {
    const { port, host } = config.metrics;
    listenForMetrics(port, host, metricsText).then(
      () => log.info({ metrics_port: port, metrics_host: host }, 'metrics listening'),
      (err: Error) => {
        // Before any worker could have been asked for much: stop them and say why, in one line.
        process.stderr.write(`shop service failed to start: ${err.message}\n`);
        stopping = true;
        for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
        process.exitCode = 1;
      },
    );
  }

  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (aliveCount() === 0) {
        log.info('stopped');
        process.exit(); // 0, or the exitCode a failure set
      }
      return;
    }
    if (!serving) {
      // The first worker could not start (configuration, database, migrations): nothing to replace.
      log.error({ code, signal }, 'the first worker failed to start');
      process.exit(code || 1);
    }
    const lived = Date.now() - (startedAt.get(worker.id) ?? 0);
    restartDelay = lived < HEALTHY_AFTER_MS ? Math.min(Math.max(restartDelay * 2, 1_000), MAX_RESTART_DELAY_MS) : 0;
    log.error(
      { worker_pid: worker.process.pid, code, signal, restart_in_ms: restartDelay },
      'worker died; replacing it',
    );
    setTimeout(() => !stopping && fork(), restartDelay);
  });

  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down: draining every worker');
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
    if (aliveCount() === 0) process.exit();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}
