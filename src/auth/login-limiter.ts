/**
 * Brute-force limits of contract §3.1 (and §3.4, counted separately per token system) and the
 * mini-program login and sign-up quotas of §7.2 and §8.1, with rate-limiter-flexible: counted for the
 * whole instance (instance-counters.ts: this process, or the cluster primary for every worker), and
 * also in Redis when REDIS_URL is set so that every instance sees the same counts (CountedLimit says why both).
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Config } from '../config/config.ts';
import { AppError, type Realm } from '../errors/app-error.ts';
import { type CounterLimit, type InstanceCounter, instanceCounter } from './instance-counters.ts';

export interface LoginAttempt {
  realm: Realm;
  /** Normalised username (the key is a hash of it: Redis never holds usernames in clear). */
  username: string;
  ip: string;
}

export interface LoginLimiter {
  /**
   * Counts the attempt against the client IP, then reserves one failure for this username from this
   * IP and for this username overall — before any password is checked, so parallel attempts can never
   * get more checks than the limits (contract §7.2). Refuses (429 RATE_LIMITED with Retry-After) when
   * a limit is spent, also with the right password. A wrong password simply keeps the reservation.
   */
  reserve(attempt: LoginAttempt): Promise<void>;
  /** The password was right: the reservation is given back and this IP's failures for the username cleared. */
  succeeded(attempt: LoginAttempt): Promise<void>;
  /** The password was never checked (busy, database away): the reservation is given back. */
  release(attempt: LoginAttempt): Promise<void>;
  /** Counts a mini-program login against the client IP, before WeChat is called (contract §7.2). */
  admitWxLogin(ip: string): Promise<void>;
  /** Counts a sign-up against the client IP, before anything is hashed or written (contract §8.1). */
  admitRegistration(ip: string): Promise<void>;
}

const rateLimited = (msBeforeNext: number, what = 'login attempts') => {
  const retryAfter = Math.max(1, Math.ceil(msBeforeNext / 1000));
  return new AppError('RATE_LIMITED', `Too many ${what}; try again in ${retryAfter} s.`, { retryAfter });
};

const digest = (s: string) => createHash('sha256').update(s).digest('base64url');

/**
 * One limit, always counted for this instance and, with Redis, also across instances. The instance's
 * count is the floor: an instance never lets more through than the limit, even while Redis flaps
 * between answering and not (a slow reply, a reconnect), when a store-or-fallback design would split
 * the count between two stores and allow up to twice the limit. Redis adds the shared view; when it
 * cannot answer, the instance's count decides alone.
 */
class CountedLimit {
  readonly #local: InstanceCounter;
  readonly #shared?: RateLimiterRedis;

  constructor(limit: CounterLimit, redis: Redis | undefined) {
    this.#local = instanceCounter(limit);
    // Not ready (reconnecting after a silence): skip Redis at once rather than wait for it.
    if (redis) this.#shared = new RateLimiterRedis({ ...limit, storeClient: redis, rejectIfRedisNotReady: true });
  }

  /** Takes one point for `key`, or throws RATE_LIMITED (`what` names what was counted). */
  async consume(key: string, what?: string): Promise<void> {
    try {
      await this.#local.consume(key);
    } catch (rejection) {
      throw rejection instanceof RateLimiterRes ? rateLimited(rejection.msBeforeNext, what) : rejection;
    }
    if (!this.#shared) return;
    try {
      await this.#shared.consume(key);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) return; // Redis did not answer: the local count stands
      await this.#local.reward(key);
      throw rateLimited(rejection.msBeforeNext, what);
    }
  }

  /** Gives one point back. */
  async reward(key: string): Promise<void> {
    await Promise.all([this.#local.reward(key), this.#shared?.reward(key).catch(() => {})]);
  }

  /** Forgets `key`. */
  async delete(key: string): Promise<void> {
    await Promise.all([this.#local.delete(key), this.#shared?.delete(key).catch(() => {})]);
  }
}

export function createLoginLimiter(limits: Config['login'], redis?: Redis): LoginLimiter {
  const perIp = new CountedLimit({ points: limits.ipPerMinute, duration: 60, keyPrefix: 'shop:login:ip' }, redis);
  const perUserIp = new CountedLimit(
    { points: limits.maxFailures, duration: limits.failureWindow, keyPrefix: 'shop:login:fail:user-ip' },
    redis,
  );
  const perUser = new CountedLimit(
    { points: limits.usernameFailuresPerHour, duration: 3600, keyPrefix: 'shop:login:fail:user' },
    redis,
  );
  const wxPerIp = new CountedLimit(
    { points: limits.wxIpPerMinute, duration: 60, keyPrefix: 'shop:wx-login:ip' },
    redis,
  );
  const registerPerIp = new CountedLimit(
    { points: limits.registerIpPerHour, duration: 3600, keyPrefix: 'shop:register:ip' },
    redis,
  );
  const userKey = (a: LoginAttempt) => `${a.realm}:${digest(a.username)}`;
  const userIpKey = (a: LoginAttempt) => `${a.realm}:${digest(a.username)}:${a.ip}`;

  return {
    async reserve(attempt) {
      await perIp.consume(`${attempt.realm}:${attempt.ip}`);
      const [own, overall] = await Promise.allSettled([
        perUserIp.consume(userIpKey(attempt)),
        perUser.consume(userKey(attempt)),
      ]);
      if (own.status === 'fulfilled' && overall.status === 'fulfilled') return;
      // One limit refused: the other's point is given back, as no password will be checked.
      if (own.status === 'fulfilled') await perUserIp.reward(userIpKey(attempt));
      if (overall.status === 'fulfilled') await perUser.reward(userKey(attempt));
      throw own.status === 'rejected' ? own.reason : (overall as PromiseRejectedResult).reason;
    },
    async succeeded(attempt) {
      await Promise.all([perUserIp.delete(userIpKey(attempt)), perUser.reward(userKey(attempt))]);
    },
    async release(attempt) {
      await Promise.all([perUserIp.reward(userIpKey(attempt)), perUser.reward(userKey(attempt))]);
    },
    async admitWxLogin(ip) {
      await wxPerIp.consume(ip, 'mini-program logins');
    },
    async admitRegistration(ip) {
      await registerPerIp.consume(ip, 'sign-ups');
    },
  };
}
