/**
 * On PostgreSQL (contract §7.7): the primary process forks WORKERS serving workers sharing the port
 * (node:cluster) and one background process (background.ts: imports, webhooks, folds), replaces one
 * that dies, and on SIGTERM forwards it to every worker and exits 0 once all have drained and exited.
 * The primary itself serves nothing and loads none of the app; it passes a serving worker's word that
 * it queued a job on to the background process (jobs-wake.ts).
 *
 * The first worker prepares the database (migrations, bootstrap admin, demo data) before it
 * listens; the others start once it does, so preparation never runs twice at the same time.
 */
import cluster, { type Worker } from 'node:cluster';
import { keepCountersForWorkers } from '../auth/instance-counters.ts';
import type { Config } from '../config/config.ts';
import { listenFailure, servicePort } from '../errors/startup-error.ts';
import { createLogger } from '../logger.ts';
import { primaryClusterMetrics } from '../observability/cluster-metrics.ts';
import { listenForMetrics } from '../observability/metrics-endpoint.ts';
import { JOBS_WAKE } from './jobs-wake.ts';
import { BACKGROUND_ROLE, PROCESS_ROLE_ENV } from './process-role.ts';
import { bindListener, SERVING, STOP_ACCEPTING, STOPPED_ACCEPTING, shareListener } from './shared-listener.ts';
import { workerEnv, workerExecArgv } from './worker-runtime.ts';

/** A worker that dies within this long of its start counts as a crash loop: replacements slow down. */
const HEALTHY_AFTER_MS = 10_000;
const MAX_RESTART_DELAY_MS = 30_000;
/** How long a stop waits for every worker to close its handles before the drain goes ahead anyway. */
const STOP_ACCEPTING_TIMEOUT_MS = 2_000;

export async function supervise(config: Config): Promise<void> {
  const log = createLogger(config.logLevel, config.logFormat);
  // Bound here, before any worker exists, so a taken port is said at once (and not after migrations);
  // the workers accept on handles of it (shared-listener.ts), never the primary.
  const listener = shareListener(
    await bindListener(config.host, config.port).catch((err: unknown) => {
      throw listenFailure(err, servicePort(config));
    }),
  );
  // Rate limits count for the instance, not per worker (contract §11): the counters live here.
  keepCountersForWorkers();
  const metricsText = primaryClusterMetrics();
  const startedAt = new Map<number, number>();
  let stopping = false;
  /** Per role: a background process dying young (a job out of memory) never slows a worker's replacement. */
  const restartDelays = { serving: 0, background: 0 };

  // Every worker runs with the memory settings of worker-runtime.ts.
  cluster.setupPrimary({ execArgv: workerExecArgv() });
  /** The background process's worker id (one at a time; a replacement gets a new id). */
  let background: number | undefined;
  const fork = (role: 'serving' | 'background' = 'serving'): Worker => {
    const worker = cluster.fork({
      ...workerEnv(),
      ...(role === 'background' ? { [PROCESS_ROLE_ENV]: BACKGROUND_ROLE } : {}),
    });
    if (role === 'background') background = worker.id;
    startedAt.set(worker.id, Date.now());
    return worker;
  };
  const aliveCount = () => Object.values(cluster.workers ?? {}).filter((w) => w && !w.isDead()).length;
  // A serving worker queued a job: the background process looks for it now, not at its next poll.
  cluster.on('message', (_worker, message: { type?: unknown }) => {
    if (message?.type !== JOBS_WAKE || background === undefined) return;
    const runner = cluster.workers?.[background];
    if (runner?.isConnected()) runner.send(message);
  });

  const first = fork();
  let serving = false;
  const onServing = (message: { type?: unknown }) => {
    if (message?.type !== SERVING) return;
    first.off('message', onServing);
    serving = true;
    for (let i = 1; i < config.workers; i++) fork();
    fork('background');
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
    const role = worker.id === background ? 'background' : 'serving';
    if (role === 'background') background = undefined;
    const restartDelay =
      lived < HEALTHY_AFTER_MS ? Math.min(Math.max(restartDelays[role] * 2, 1_000), MAX_RESTART_DELAY_MS) : 0;
    restartDelays[role] = restartDelay;
    log.error(
      { worker_pid: worker.process.pid, role, code, signal, restart_in_ms: restartDelay },
      'worker died; replacing it',
    );
    setTimeout(() => !stopping && fork(role), restartDelay);
  });

  // First nobody accepts — the primary's copy of the socket closes, and every worker closes its
  // handles and says so — then the workers drain. A drain answers `Connection: close`, and its
  // clients reconnect at once: while any copy of the socket still listened, the kernel would queue
  // them, and reset them all when the last copy closed (contract §7.4: no request that reached the
  // service is reset). Once no copy listens, a reconnect is refused at once and goes elsewhere.
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down: no new connections, then draining every worker');
    listener.close();
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => !!w && !w.isDead());
    await Promise.all(workers.map(stoppedAccepting));
    for (const worker of workers) worker.process.kill('SIGTERM');
    if (aliveCount() === 0) process.exit();
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

/** Asks `worker` to close its handles of the socket; resolves when it did, exited, or took too long. */
function stoppedAccepting(worker: Worker): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('exit', done);
      resolve();
    };
    const onMessage = (message: { type?: unknown }) => message?.type === STOPPED_ACCEPTING && done();
    const timer = setTimeout(done, STOP_ACCEPTING_TIMEOUT_MS);
    worker.on('message', onMessage);
    worker.once('exit', done);
    try {
      worker.send({ type: STOP_ACCEPTING });
    } catch {
      done(); // its IPC channel is gone: it is exiting
    }
  });
}
