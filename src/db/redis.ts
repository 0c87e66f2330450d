/**
 * The optional Redis connection (REDIS_URL) that lets several instances share login rate-limit
 * counters. Start-up waits briefly for it; if Redis is down the service still starts (the limiters
 * fall back to memory) and the client keeps reconnecting in the background.
 */
import { Redis } from 'ioredis';
import type { Logger } from '../logger.ts';

const CONNECT_TIMEOUT_MS = 5_000;

export async function openRedis(url: string, log: Logger): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    // Rate-limit calls must not queue behind a reconnect: they fail fast to the in-memory fallback.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: CONNECT_TIMEOUT_MS,
  });
  let lastError = '';
  redis.on('error', (err: Error) => {
    // ioredis repeats the same error on every reconnect attempt; log each distinct one once.
    if (err.message !== lastError) log.warn({ err: err.message }, 'redis connection problem');
    lastError = err.message;
  });
  redis.on('ready', () => {
    if (lastError) log.info('redis connection restored');
    lastError = '';
  });
  try {
    await redis.connect();
  } catch (err) {
    log.warn({ err: (err as Error).message }, 'redis unreachable at start: login limits are counted per instance until it answers');
  }
  return redis;
}
