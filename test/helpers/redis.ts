/**
 * The Redis the shared-limit tests use: REDIS_TEST_URL (CI sets it), else a local server if one
 * answers. `redisAvailable` is false only when neither is there, so those tests skip rather than fail.
 */
import { Redis } from 'ioredis';

export const REDIS_URL = process.env.REDIS_TEST_URL ?? 'redis://127.0.0.1:6379';

async function redisAnswers(): Promise<boolean> {
  const probe = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

export const redisAvailable = process.env.REDIS_TEST_URL !== undefined || (await redisAnswers());
