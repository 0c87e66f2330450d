/**
 * Brute-force limits of contract §3.1 (and §3.4, counted separately per token system) and the
 * mini-program login and sign-up quotas of §7.2 and §8.1, with rate-limiter-flexible: counted for the
 * whole instance (instance-counters.ts: this process, or the cluster primary for every worker), and
 * also in Redis when REDIS_URL is set so that every instance sees the same counts (CountedLimit says why both).
 */
import { createHash, randomInt } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
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
   * a limit is spent by failures, also with the right password. A limit full only of other attempts'
   * reservations is not spent: the attempt waits for one to settle (FailureLimit).
   */
  reserve(attempt: LoginAttempt): Promise<void>;
  /** The password (or one-time code) was wrong: the reservation stays, as a failure. */
  failed(attempt: LoginAttempt): Promise<void>;
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

  /**
   * Takes one point for `key` if the limit has one left, else answers the refusal and counts nothing
   * (the refused point is given back: a waiting attempt retries, and must not fill the limit by retrying).
   */
  async tryConsume(key: string): Promise<RateLimiterRes | undefined> {
    try {
      await this.#local.consume(key);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      await this.#local.reward(key);
      return rejection;
    }
    if (!this.#shared) return undefined;
    try {
      await this.#shared.consume(key);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) return undefined; // Redis did not answer: the local count stands
      await Promise.all([this.#local.reward(key), this.#shared.reward(key).catch(() => {})]);
      return rejection;
    }
    return undefined;
  }

  /** The points taken for `key` in its window: the larger of this instance's count and Redis'. */
  async count(key: string): Promise<number> {
    const [local, shared] = await Promise.all([this.#local.get(key), this.#shared?.get(key).catch(() => null)]);
    return Math.max(local?.consumedPoints ?? 0, shared?.consumedPoints ?? 0);
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

/** How long an attempt waits for reservations in flight to settle before it is told to retry in 1 s. */
const SETTLE_WAIT_MS = 2_000;

/**
 * A failure limit counted by reservation (contract §7.2): `reserved` holds every attempt in flight and
 * every failure, so parallel attempts never get more checks than `points`; `failures` holds only the
 * failures, so that a full `reserved` can tell a spent limit (answer: the window's Retry-After) from
 * one full of attempts still being checked — whose passwords may well be right. Those are waited for.
 */
class FailureLimit {
  readonly #reserved: CountedLimit;
  readonly #failures: CountedLimit;

  constructor(
    private readonly limit: CounterLimit,
    redis: Redis | undefined,
  ) {
    this.#reserved = new CountedLimit(limit, redis);
    // Never refuses: it only counts, for `reserve` to read.
    this.#failures = new CountedLimit(
      { ...limit, points: Number.MAX_SAFE_INTEGER, keyPrefix: `${limit.keyPrefix}:settled` },
      redis,
    );
  }

  /**
   * Reserves one failure for `key`. When the limit is full but not of failures, polls (jittered, so
   * waiters do not retry in step) until a reservation settles — a right password gives its point back,
   * a wrong one makes the limit spent — for at most SETTLE_WAIT_MS, then says "retry in 1 s".
   */
  async reserve(key: string): Promise<void> {
    const until = Date.now() + SETTLE_WAIT_MS;
    for (;;) {
      const refused = await this.#reserved.tryConsume(key);
      if (!refused) return;
      if ((await this.#failures.count(key)) >= this.limit.points) throw rateLimited(refused.msBeforeNext);
      if (Date.now() >= until) throw rateLimited(1000);
      await sleep(randomInt(20, 80));
    }
  }

  /** The reserved attempt failed: its point stays, now counted as a failure too. */
  async fail(key: string): Promise<void> {
    await this.#failures.consume(key);
  }

  /** The reservation is given back (a right password, or no check made). */
  async giveBack(key: string): Promise<void> {
    await this.#reserved.reward(key);
  }

  /** Forgets every reservation and failure of `key`. */
  async forget(key: string): Promise<void> {
    await Promise.all([this.#reserved.delete(key), this.#failures.delete(key)]);
  }
}

export function createLoginLimiter(limits: Config['login'], redis?: Redis): LoginLimiter {
  const perIp = new CountedLimit({ points: limits.ipPerMinute, duration: 60, keyPrefix: 'shop:login:ip' }, redis);
  const perUserIp = new FailureLimit(
    { points: limits.maxFailures, duration: limits.failureWindow, keyPrefix: 'shop:login:fail:user-ip' },
    redis,
  );
  const perUser = new FailureLimit(
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
      // One after the other: an attempt waiting on one limit holds no reservation of the other's.
      await perUserIp.reserve(userIpKey(attempt));
      try {
        await perUser.reserve(userKey(attempt));
      } catch (err) {
        await perUserIp.giveBack(userIpKey(attempt));
        throw err;
      }
    },
    async failed(attempt) {
      await Promise.all([perUserIp.fail(userIpKey(attempt)), perUser.fail(userKey(attempt))]);
    },
    async succeeded(attempt) {
      await Promise.all([perUserIp.forget(userIpKey(attempt)), perUser.giveBack(userKey(attempt))]);
    },
    async release(attempt) {
      await Promise.all([perUserIp.giveBack(userIpKey(attempt)), perUser.giveBack(userKey(attempt))]);
    },
    async admitWxLogin(ip) {
      await wxPerIp.consume(ip, 'mini-program logins');
    },
    async admitRegistration(ip) {
      await registerPerIp.consume(ip, 'sign-ups');
    },
  };
}
