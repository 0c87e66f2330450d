/**
 * Long-lived collaborators built once at start-up (key material, limiters, upstream clients) and
 * handed to every request through the context. Domain services are functions taking the context first.
 */
import type { Redis } from 'ioredis';
import { createConcurrencyLimit, type ConcurrencyLimit } from './auth/concurrency-limit.ts';
import { createLoginLimiter, type LoginLimiter } from './auth/login-limiter.ts';
import { dummyHash } from './auth/password.ts';
import type { TokenSystems } from './auth/request-auth.ts';
import { createTokenSystem } from './auth/token-system.ts';
import { createWxClient, type WxClient } from './auth/wx-client.ts';
import type { Config } from './config/config.ts';
import { resolveJwtSecrets } from './config/dev-secrets.ts';
import type { Database } from './db/database.ts';
import { openRedis } from './db/redis.ts';
import type { Logger } from './logger.ts';

/** Logins that may wait for a hashing slot, per slot; beyond that a burst is refused with 429. */
const QUEUED_LOGINS_PER_HASH_SLOT = 32;

export interface Services {
  readonly config: Config;
  readonly tokens: TokenSystems;
  /** Brute-force limits on the login endpoints (memory, or Redis when REDIS_URL is set). */
  readonly loginLimiter: LoginLimiter;
  /** Caps the password hashes computed at once (argon2id holds ~19 MiB while it runs). */
  readonly passwordHashing: ConcurrencyLimit;
  /** The WeChat client, or undefined when WX_APPID / WX_SECRET are not configured. */
  readonly wx: WxClient | undefined;
  /** Releases what the services hold (connections, timers). */
  close(): Promise<void>;
}

export async function buildServices(config: Config, _db: Database, log: Logger): Promise<Services> {
  const secrets = await resolveJwtSecrets(config);
  const tokens: TokenSystems = {
    customer: createTokenSystem('customer', secrets.customer, config.jwt.customerTtl),
    admin: createTokenSystem('admin', secrets.admin, config.jwt.adminTtl),
  };
  await dummyHash();
  const redis: Redis | undefined = config.redisUrl ? await openRedis(config.redisUrl, log) : undefined;
  const { appId, secret, apiBase } = config.wx;
  return {
    config,
    tokens,
    loginLimiter: createLoginLimiter(config.login, redis),
    passwordHashing: createConcurrencyLimit(
      config.login.maxConcurrentHashes,
      config.login.maxConcurrentHashes * QUEUED_LOGINS_PER_HASH_SLOT,
    ),
    wx: appId && secret ? createWxClient({ appId, secret, apiBase, log }) : undefined,
    close: async () => {
      if (redis) await redis.quit().catch(() => redis.disconnect());
    },
  };
}
