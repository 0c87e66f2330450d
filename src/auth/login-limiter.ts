/**
 * Brute-force limits of contract §3.1 (and §3.4, counted separately per token system), with
 * rate-limiter-flexible: in this process's memory by default, in Redis when REDIS_URL is set so that
 * every instance sees the same counts. Should Redis be unreachable, an in-memory limiter with the
 * same limits takes over (the library's "insurance" limiter) rather than failing logins.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config } from '../config/config.ts';
import { AppError, type Realm } from '../errors/app-error.ts';

export interface LoginAttempt {
  realm: Realm;
  /** Normalised username (the key is a hash of it: Redis never holds usernames in clear). */
  username: string;
  ip: string;
}

export interface LoginLimiter {
  /**
   * Counts the attempt against the client IP, then refuses it (429 RATE_LIMITED with Retry-After)
   * when the IP, this username from this IP, or this username from all IPs is over its limit —
   * before any password is checked, so a locked username is refused even with the right password.
   */
  admit(attempt: LoginAttempt): Promise<void>;
  /** Records a failed attempt against the username (per IP and overall). */
  recordFailure(attempt: LoginAttempt): Promise<void>;
  /** A successful login clears this IP's failures for the username. */
  recordSuccess(attempt: LoginAttempt): Promise<void>;
}

interface Limit {
  points: number;
  duration: number;
  keyPrefix: string;
}

function limiterFor(limit: Limit, redis: Redis | undefined): RateLimiterAbstract {
  if (!redis) return new RateLimiterMemory(limit);
  return new RateLimiterRedis({
    ...limit,
    storeClient: redis,
    // Fail over to memory at once instead of queueing behind a reconnecting client.
    rejectIfRedisNotReady: true,
    insuranceLimiter: new RateLimiterMemory(limit),
  });
}

const rateLimited = (msBeforeNext: number) => {
  const retryAfter = Math.max(1, Math.ceil(msBeforeNext / 1000));
  return new AppError('RATE_LIMITED', `Too many login attempts; try again in ${retryAfter} s.`, { retryAfter });
};

const digest = (s: string) => createHash('sha256').update(s).digest('base64url');

export function createLoginLimiter(limits: Config['login'], redis?: Redis): LoginLimiter {
  const perIp = limiterFor({ points: limits.ipPerMinute, duration: 60, keyPrefix: 'shop:login:ip' }, redis);
  const perUserIp = limiterFor(
    { points: limits.maxFailures, duration: limits.failureWindow, keyPrefix: 'shop:login:fail:user-ip' },
    redis,
  );
  const perUser = limiterFor(
    { points: limits.usernameFailuresPerHour, duration: 3600, keyPrefix: 'shop:login:fail:user' },
    redis,
  );
  const userKey = (a: LoginAttempt) => `${a.realm}:${digest(a.username)}`;
  const userIpKey = (a: LoginAttempt) => `${a.realm}:${digest(a.username)}:${a.ip}`;

  /** Refuses when `limiter` has used up its points for `key`. */
  const refuseIfSpent = async (limiter: RateLimiterAbstract, key: string) => {
    const res = await limiter.get(key);
    if (res && res.consumedPoints >= limiter.points && res.msBeforeNext > 0) throw rateLimited(res.msBeforeNext);
  };

  return {
    async admit(attempt) {
      try {
        await perIp.consume(`${attempt.realm}:${attempt.ip}`);
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) throw rateLimited(rejection.msBeforeNext);
        throw rejection;
      }
      await refuseIfSpent(perUserIp, userIpKey(attempt));
      await refuseIfSpent(perUser, userKey(attempt));
    },
    async recordFailure(attempt) {
      await Promise.all([perUserIp.penalty(userIpKey(attempt)), perUser.penalty(userKey(attempt))]);
    },
    async recordSuccess(attempt) {
      await perUserIp.delete(userIpKey(attempt));
    },
  };
}
