/**
 * The optional Redis connection (REDIS_URL) that lets several instances share login rate-limit
 * counters. Start-up waits briefly for it; if Redis is down the service still starts (the limiters
 * fall back to memory) and the client keeps reconnecting in the background.
 *
 * Redis that stops answering (connection open, no bytes back) must not make a login wait (contract
 * §7.3). Measured before these options: every login hung for more than 40 s. Now a silence destroys
 * the socket within SOCKET_TIMEOUT_MS, failing the commands in flight, and while the client
 * reconnects it is not "ready", so the limiters (`rejectIfRedisNotReady`) go straight to their
 * in-memory insurance without even trying Redis. Once Redis answers again the client is ready again.
 */
import { Redis } from 'ioredis';
import type { Logger } from '../logger.ts';

const CONNECT_TIMEOUT_MS = 5_000;
// Longest a rate-limit command may take before the login counts in memory instead (§7.3).
const COMMAND_TIMEOUT_MS = 500;
const SOCKET_TIMEOUT_MS = 400;
// Reconnect soon after a failure, then at most every 2 s: recovery is noticed within seconds.
const RECONNECT_STEP_MS = 200;
const RECONNECT_MAX_MS = 2_000;

/** Connects to `url` (giving up after a few seconds: the client keeps trying in the background). */
export async function openRedis(url: string, log: Logger): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    // Rate-limit calls must not queue behind a reconnect: they fail fast to the in-memory fallback...
    enableOfflineQueue: false,
    // ...and calls in flight when the connection drops fail at once rather than wait to be resent.
    maxRetriesPerRequest: 0,
    connectTimeout: CONNECT_TIMEOUT_MS,
    // Every command, the ready check's INFO and `quit` at shutdown included, gives up this soon.
    commandTimeout: COMMAND_TIMEOUT_MS,
    // A connection that leaves a command unanswered this long is destroyed, which takes the client
    // out of "ready" until a reconnect gets answers again. A command timeout alone would leave it
    // "ready", and every login would wait out the timeout again, once per limiter call. Shorter
    // than the command timeout, so the calls in flight fail with the client already not ready and
    // the limiter's next call goes straight to memory.
    socketTimeout: SOCKET_TIMEOUT_MS,
    retryStrategy: (attempt) => Math.min(attempt * RECONNECT_STEP_MS, RECONNECT_MAX_MS),
  });
  // ioredis repeats its errors on every reconnect attempt (and a silent server alternates between
  // a few): log each distinct one once per outage. Messages name no password.
  const logged = new Set<string>();
  redis.on('error', (err: Error) => {
    if (logged.has(err.message)) return;
    logged.add(err.message);
    log.warn({ err: err.message }, 'redis connection problem');
  });
  redis.on('ready', () => {
    if (logged.size) log.info('redis connection restored');
    logged.clear();
  });
  try {
    await redis.connect();
  } catch (err) {
    log.warn(
      { err: (err as Error).message },
      'redis unreachable at start: login limits are counted per instance until it answers',
    );
  }
  return redis;
}
