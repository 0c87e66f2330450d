/**
 * Long-lived collaborators built once at start-up (key material, limiters, upstream clients) and
 * handed to every request through the context. Domain services are functions taking the context first.
 */
import type { Redis } from 'ioredis';
import { type ConcurrencyLimit, createConcurrencyLimit } from './auth/concurrency-limit.ts';
import { createLoginLimiter, type LoginLimiter } from './auth/login-limiter.ts';
import { type PasswordHasher, passwordHasher } from './auth/password.ts';
import { createTokenSystem, type TokenSystems } from './auth/token-system.ts';
import { createWxClient, type WxClient } from './auth/wx-client.ts';
import { CATALOG_CHANNEL, CatalogCache } from './catalog/catalog-cache.ts';
import { watchVisibilitySchedule } from './catalog/visibility-schedule.ts';
import type { Config } from './config/config.ts';
import { resolveJwtSecrets } from './config/dev-secrets.ts';
import type { Database } from './db/database.ts';
import { openRedis } from './db/redis.ts';
import { type JobQueue, openJobQueue } from './jobs/job-queue.ts';
import type { Logger } from './logger.ts';
import type { Metrics } from './observability/metrics.ts';
import { ForgivingCache } from './search/forgiving.ts';
import { createSearchSlots, type SearchSlots } from './search/search-slots.ts';
import { SuggestionCategories } from './search/suggestions.ts';
import { SynonymIndexCache } from './search/synonym-index.ts';

/** Logins that may wait for a hashing slot, per slot; beyond that a burst is refused with 429. */
const QUEUED_LOGINS_PER_HASH_SLOT = 32;

export interface Services {
  readonly config: Config;
  readonly tokens: TokenSystems;
  /** Brute-force limits on the login endpoints (memory, or Redis when REDIS_URL is set). */
  readonly loginLimiter: LoginLimiter;
  /** argon2id at the configured cost. */
  readonly passwords: PasswordHasher;
  /** Caps the password hashes computed at once (argon2id holds ~19 MiB while it runs). */
  readonly passwordHashing: ConcurrencyLimit;
  /** The WeChat client, or undefined when WX_APPID / WX_SECRET are not configured. */
  readonly wx: WxClient | undefined;
  /** Public catalogue answers and list totals, emptied by every catalogue change (contract §7.6). */
  readonly catalogCache: CatalogCache;
  /** The synonym groups searches expand terms with, kept per catalogue generation (contract §9.4). */
  readonly synonyms: SynonymIndexCache;
  /** Forgiving search's spellings of a keyword (contract §9.6), kept per catalogue generation. */
  readonly forgiving: ForgivingCache;
  /** The categories suggestions match against (contract §9.3), kept per catalogue generation. */
  readonly suggestionCategories: SuggestionCategories;
  /** This process's Prometheus metrics (observability/metrics.ts). */
  readonly metrics: Metrics;
  /** Bounds the facet counts and spec-filtered lists each client runs at once (search/search-slots.ts). */
  readonly searchSlots: SearchSlots;
  /** Background work kept in the database (imports, webhook deliveries): jobs/job-queue.ts. */
  readonly jobs: JobQueue;
  /**
   * Calls `listener` at every catalogue change this instance hears (its own writes and every other
   * instance's): the webhook dispatch wakes on it (events/event-dispatch.ts).
   */
  onCatalogChange(listener: () => void): void;
  /** Releases what the services hold (connections, timers). */
  close(): Promise<void>;
}

/**
 * How long closing waits for a running job to finish its current step (a batch takes ~0.4 s): within
 * the stop's whole budget (contract §7.4), whatever the database does.
 */
const JOB_STOP_GRACE_MS = 3_000;

/** Catalogue notifications (their payloads) after which the next schedule time is looked up again. */
const MAY_MOVE_SCHEDULE = new Set(['items', 'reindex', '']);

export async function buildServices(
  config: Config,
  log: Logger,
  db: Database,
  metrics: Metrics,
  opts: { runsJobs: boolean },
): Promise<Services> {
  const secrets = await resolveJwtSecrets(config);
  const tokens: TokenSystems = {
    customer: createTokenSystem('customer', secrets.customer, config.jwt.customerTtl),
    admin: createTokenSystem('admin', secrets.admin, config.jwt.adminTtl),
  };
  const passwords = passwordHasher(config.passwordCost);
  await passwords.ready();
  const redis: Redis | undefined = config.redisUrl ? await openRedis(config.redisUrl, log) : undefined;
  const { appId, secret, apiBase } = config.wx;
  const catalogCache = new CatalogCache(
    config.catalog.cacheBytes,
    config.catalog.maxAgeSeconds,
    log,
    metrics.catalogCache,
  );
  // A schedule passing is a catalogue change without a write (contract §12.1): its own timer.
  const schedule = watchVisibilitySchedule(db.sql, () => catalogCache.invalidate(), log);
  // Every instance hears every catalogue change (a trigger notifies, also for writes from elsewhere);
  // a change of items (the payload names the table) may move the next schedule time.
  const catalogListeners: Array<() => void> = [];
  const stopListening = await db.listen(CATALOG_CHANNEL, {
    onNotify: (payload) => {
      catalogCache.invalidate();
      for (const listener of catalogListeners) listener();
      if (MAY_MOVE_SCHEDULE.has(payload)) schedule.refresh();
    },
    onHealth: (listening) => {
      catalogCache.channelHealth(listening);
      // Heard again: what was missed meanwhile may have moved it.
      if (listening) schedule.refresh();
    },
  });
  schedule.refresh();
  const jobs = await openJobQueue(db, config, log, opts);
  return {
    config,
    tokens,
    passwords,
    loginLimiter: createLoginLimiter(config.login, redis),
    passwordHashing: createConcurrencyLimit(
      config.login.maxConcurrentHashes,
      config.login.maxConcurrentHashes * QUEUED_LOGINS_PER_HASH_SLOT,
    ),
    wx: appId && secret ? createWxClient({ appId, secret, apiBase, log }) : undefined,
    catalogCache,
    synonyms: new SynonymIndexCache(catalogCache),
    forgiving: new ForgivingCache(catalogCache),
    suggestionCategories: new SuggestionCategories(catalogCache),
    metrics,
    searchSlots: createSearchSlots(config.searchConcurrencyPerClient),
    jobs,
    onCatalogChange: (listener) => void catalogListeners.push(listener),
    close: async () => {
      // A running job hands on the rest of its work after its current step (a batch).
      await jobs.stop(JOB_STOP_GRACE_MS);
      schedule.stop();
      await stopListening();
      if (redis) await redis.quit().catch(() => redis.disconnect());
    },
  };
}
