/**
 * The service's configuration: the only reader of `process.env` (contract §6).
 * `loadConfig` returns a frozen, typed object or throws a `ConfigError` naming every bad variable.
 */
import { BlockList, isIP, isIPv4 } from 'node:net';
import { availableParallelism } from 'node:os';
import proxyaddr from 'proxy-addr';
import { z } from 'zod';

/** argon2id's cost (auth/password.ts): `owasp` everywhere but the test suite. */
export type PasswordCost = 'owasp' | 'test';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'must be true or false' })
  .transform((v) => v === 'true' || v === '1' || v === 'yes');
const seconds = (def: number) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a whole number of seconds')
    .transform(Number)
    .pipe(
      z
        .number()
        .int()
        .positive('must be at least 1')
        .max(10 * 365 * 86400),
    )
    .default(def);
const count = (def: number) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().positive('must be at least 1').max(1_000_000))
    .default(def);
/** A size in bytes, at most 2 GiB − 1 (what an import's byte count, an int, holds). */
const bytes = (def: number) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a whole number of bytes')
    .transform(Number)
    .pipe(
      z
        .number()
        .int()
        .positive('must be at least 1')
        .max(2 ** 31 - 1, 'must be less than 2 GiB'),
    )
    .default(def);
/** Comma-separated secrets: sign with the first, verify with any (rotation). */
const secretList = z
  .string()
  .transform((v) =>
    v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  )
  .pipe(z.array(z.string().min(32, 'each secret must be at least 32 bytes')).min(1, 'must hold at least one secret'))
  .optional();
const httpUrl = z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' });
const milliseconds = (def: number, min: number) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a whole number of milliseconds')
    .transform(Number)
    .pipe(z.number().int().min(min, `must be at least ${min}`).max(3_600_000))
    .default(def);
/** `*`, or comma-separated origins (`https://shop.example.com`), each exactly as a browser sends it. */
const corsOrigins = z
  .string()
  .transform((v) =>
    v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  )
  .pipe(
    z.array(
      z
        .string()
        .refine((o) => o === '*' || isOrigin(o), 'each entry must be * or an origin such as https://shop.example.com'),
    ),
  )
  .optional();

function isOrigin(value: string): boolean {
  try {
    const u = new URL(value);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.origin === value;
  } catch {
    return false;
  }
}

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z
    .string()
    .regex(/^\d+$/, 'must be a port number')
    .transform(Number)
    .pipe(z.number().int().min(0).max(65535, 'must be a port number'))
    .default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// URL')
    .optional(),
  MIGRATION_DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// URL')
    .optional(),
  DATA_DIR: z.string().min(1).default('./data'),
  DATA_DIR_STALE_AFTER: milliseconds(30_000, 1_000),
  CUSTOMER_JWT_SECRET: secretList,
  ADMIN_JWT_SECRET: secretList,
  CUSTOMER_TOKEN_TTL: seconds(7200),
  ADMIN_TOKEN_TTL: seconds(3600),
  REFRESH_GRACE: seconds(604800),
  SESSION_MAX_AGE: seconds(2592000),
  LOGIN_MAX_FAILURES: count(5),
  LOGIN_FAILURE_WINDOW: seconds(900),
  LOGIN_IP_PER_MINUTE: count(30),
  LOGIN_USERNAME_MAX_FAILURES_PER_HOUR: count(100),
  LOGIN_MAX_CONCURRENT_HASHES: count(4),
  WX_APPID: z.string().min(1).optional(),
  WX_SECRET: z.string().min(1).optional(),
  WX_API_BASE: httpUrl.default('https://api.weixin.qq.com'),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// URL')
    .optional(),
  ADMIN_USERNAME: z.string().min(3, 'must be 3..64 characters').max(64, 'must be 3..64 characters').optional(),
  ADMIN_PASSWORD: z.string().min(8, 'must be at least 8 characters').max(1024).optional(),
  SEED_DEMO: bool.optional(),
  ADMIN_REQUIRE_TOTP: bool.optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LOG_FORMAT: z.enum(['pretty', 'json'], { message: 'must be pretty or json' }).optional(),
  METRICS_PORT: z
    .string()
    .regex(/^\d+$/, 'must be a port number')
    .transform(Number)
    .pipe(z.number().int().min(1, 'must be a port number').max(65535, 'must be a port number'))
    .optional(),
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_CONNECT_TIMEOUT: milliseconds(30_000, 0),
  HTTP_KEEP_ALIVE_TIMEOUT: milliseconds(65_000, 1_000),
  TRUST_PROXY: z
    .string()
    .min(1)
    .transform((v, ctx) => {
      const trust = parseTrustProxy(v);
      if ('refused' in trust) {
        ctx.addIssue({ code: 'custom', message: trust.refused });
        return z.NEVER;
      }
      return trust.value;
    })
    .optional(),
  GRAPHIQL: bool.optional(),
  GRAPHQL_INTROSPECTION: bool.optional(),
  GRAPHQL_MAX_COST: count(5000),
  SEARCH_CONCURRENCY_PER_CLIENT: count(4),
  IMPORT_MAX_BYTES: bytes(200 * 1024 * 1024),
  IMPORT_UPLOAD_ABANDONED_AFTER: seconds(300),
  JOB_LEASE_SECONDS: seconds(30),
  JOB_MAINTENANCE_SECONDS: seconds(5),
  EVENT_RETENTION_DAYS: count(30),
  WEBHOOK_ALLOW_HTTP: bool.optional(),
  WEBHOOK_ALLOW_PRIVATE: bool.optional(),
  CORS_ORIGINS: corsOrigins,
  WX_LOGIN_IP_PER_MINUTE: count(30),
  REGISTER_IP_PER_HOUR: count(20),
  DATABASE_STATEMENT_TIMEOUT: milliseconds(5000, 100),
  DATABASE_POOL_SIZE: count(10),
  DATABASE_REPLICA_URLS: z
    .string()
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.string().regex(/^postgres(ql)?:\/\//, 'each entry must be a postgresql:// URL')))
    .optional(),
  CATALOG_CACHE_MB: z
    .string()
    .regex(/^\d+$/, 'must be a whole number of megabytes (0 turns the cache off)')
    .transform(Number)
    .pipe(z.number().int().min(0).max(65_536))
    .default(64),
  CATALOG_MAX_AGE: z
    .string()
    .regex(/^\d+$/, 'must be a whole number of seconds')
    .transform(Number)
    .pipe(z.number().int().min(0).max(31_536_000))
    .default(0),
  SHOP_NAME: z
    .string()
    .trim()
    .max(64, 'must be at most 64 characters')
    // Shown by authenticator apps; a colon would split the otpauth label ("issuer:account") in two.
    .regex(/^[^\p{C}:]+$/u, 'must be printable text without control characters or a colon')
    .default('Shop admin'),
  WORKERS: z
    .string()
    .regex(/^\d+$/, 'must be a whole number of processes')
    .transform(Number)
    .pipe(z.number().int().min(1, 'must be at least 1').max(256))
    .optional(),
});

type Env = z.infer<typeof envSchema>;

function buildConfig(env: Env, terminal: boolean) {
  const production = env.NODE_ENV === 'production';
  return {
    env: env.NODE_ENV,
    production,
    port: env.PORT,
    host: env.HOST,
    /** How long an idle keep-alive connection stays open: longer than load balancers' 60 s idle timeout. */
    keepAliveTimeoutMs: env.HTTP_KEEP_ALIVE_TIMEOUT,
    database: env.DATABASE_URL
      ? ({
          kind: 'postgres',
          url: env.DATABASE_URL,
          /**
           * The role that owns the tables and applies migrations; DATABASE_URL's role then only serves
           * (db/migration-role.ts). Unset: DATABASE_URL's role does both (the simple mode).
           */
          migrationUrl: env.MIGRATION_DATABASE_URL,
        } as const)
      : ({ kind: 'pglite' } as const),
    /** Per-statement limit: a statement still running after it fails and its connection is discarded. */
    statementTimeoutMs: env.DATABASE_STATEMENT_TIMEOUT,
    /** Connections per process to PostgreSQL. */
    poolSize: env.DATABASE_POOL_SIZE,
    /** Catalogue reads go to these replicas in turn (writes and read-backs of writes to the primary). */
    replicaUrls: env.DATABASE_REPLICA_URLS ?? [],
    catalog: {
      /** Bytes of catalogue answers cached per process; 0 turns the cache off. */
      cacheBytes: env.CATALOG_CACHE_MB * 1024 * 1024,
      /** `Cache-Control: public, max-age=N` on catalogue answers; 0 means `no-cache` (revalidate with the ETag). */
      maxAgeSeconds: env.CATALOG_MAX_AGE,
    },
    /** Serving processes (node:cluster); the embedded database allows one. */
    workers: env.WORKERS ?? (env.DATABASE_URL ? availableParallelism() : 1),
    dataDir: env.DATA_DIR,
    /** The embedded database's lock is taken over after this much heartbeat silence of its owner. */
    dataDirStaleAfterMs: env.DATA_DIR_STALE_AFTER,
    jwt: {
      /** Undefined until resolved: generated into the data directory in development. */
      customerSecrets: env.CUSTOMER_JWT_SECRET,
      adminSecrets: env.ADMIN_JWT_SECRET,
      customerTtl: env.CUSTOMER_TOKEN_TTL,
      adminTtl: env.ADMIN_TOKEN_TTL,
      refreshGrace: env.REFRESH_GRACE,
      sessionMaxAge: env.SESSION_MAX_AGE,
    },
    login: {
      maxFailures: env.LOGIN_MAX_FAILURES,
      failureWindow: env.LOGIN_FAILURE_WINDOW,
      ipPerMinute: env.LOGIN_IP_PER_MINUTE,
      usernameFailuresPerHour: env.LOGIN_USERNAME_MAX_FAILURES_PER_HOUR,
      maxConcurrentHashes: env.LOGIN_MAX_CONCURRENT_HASHES,
      wxIpPerMinute: env.WX_LOGIN_IP_PER_MINUTE,
      /** Sign-ups per client IP per hour (contract §8.1). */
      registerIpPerHour: env.REGISTER_IP_PER_HOUR,
    },
    wx: { appId: env.WX_APPID, secret: env.WX_SECRET, apiBase: env.WX_API_BASE.replace(/\/+$/, '') },
    redisUrl: env.REDIS_URL,
    /** argon2id's cost: OWASP's, but for the test suite (auth/password.ts). */
    passwordCost: (env.NODE_ENV === 'test' ? 'test' : 'owasp') as PasswordCost,
    /** Created when no admin exists; without a password one is generated and printed (development only). */
    bootstrapAdmin: { username: env.ADMIN_USERNAME ?? 'admin', password: env.ADMIN_PASSWORD },
    seedDemo: env.SEED_DEMO ?? !production,
    /** The shop's name: the issuer authenticator apps show for an admin's two-factor entry. */
    shopName: env.SHOP_NAME,
    /** Admins must turn two-factor login on before they may do anything but enrol (contract §10.3). */
    adminRequireTotp: env.ADMIN_REQUIRE_TOTP ?? false,
    logLevel: env.LOG_LEVEL,
    /** `pretty` for a developer's terminal, JSON lines for everything else (files, collectors). */
    logFormat: env.LOG_FORMAT ?? (env.NODE_ENV === 'development' && terminal ? 'pretty' : 'json'),
    metrics: {
      /** `/metrics` on the main port: development and tests only (production: `port` alone). */
      onMainPort: !production,
      /** A listener of its own for `/metrics`, e.g. reachable only from the host's scraper. */
      port: env.METRICS_PORT,
      host: env.METRICS_HOST,
    },
    /** How long start-up waits for an unreachable PostgreSQL (a container starting before its database). */
    databaseConnectTimeoutMs: env.DATABASE_CONNECT_TIMEOUT,
    trustProxy: env.TRUST_PROXY ?? false,
    graphiql: env.GRAPHIQL ?? !production,
    introspection: env.GRAPHQL_INTROSPECTION ?? !production,
    /** The most a GraphQL operation may cost (contract §7.2: page sizes multiply). */
    graphqlMaxCost: env.GRAPHQL_MAX_COST,
    /** Searches with facets or spec filters one client IP may run at once on the instance (search/search-slots.ts). */
    searchConcurrencyPerClient: env.SEARCH_CONCURRENCY_PER_CLIENT,
    /** The largest import file accepted (contract §13.2); a bigger one is 413. */
    importMaxBytes: env.IMPORT_MAX_BYTES,
    /**
     * How long an upload may go without a byte before its import is taken to be abandoned (its process
     * died mid-upload) and failed: longer than any pause of a client still sending.
     */
    importUploadAbandonedAfterSeconds: env.IMPORT_UPLOAD_ABANDONED_AFTER,
    jobs: {
      /**
       * How long a running job may go without finishing before another process may take it: its process
       * is taken to have died. A job (an import's slice, transfer/import-job.ts) runs far shorter.
       */
      leaseSeconds: env.JOB_LEASE_SECONDS,
      /** How often expired leases are looked for (by one process of the deployment at a time). */
      maintenanceSeconds: env.JOB_MAINTENANCE_SECONDS,
    },
    events: {
      /** How long the event log keeps an event (contract §14.1), and with it the deliveries' attempts. */
      retentionDays: env.EVENT_RETENTION_DAYS,
    },
    webhooks: {
      /** `http://` webhook URLs too (development: a receiver on the same machine without TLS). */
      allowHttp: env.WEBHOOK_ALLOW_HTTP ?? false,
      /** Receivers on loopback, private, link-local and multicast addresses (development, tests). */
      allowPrivate: env.WEBHOOK_ALLOW_PRIVATE ?? false,
    },
    /** Origins whose pages may call the API; `['*']` admits every origin. */
    corsOrigins: env.CORS_ORIGINS ?? (production ? [] : ['*']),
  };
}

export type Config = Readonly<ReturnType<typeof buildConfig>>;

/** The longest access-token lifetime production accepts, in seconds. */
export const MAX_PRODUCTION_TOKEN_TTL = 86_400;

/**
 * The longest a customer may stay signed in without logging in again, in production: 90 days, what
 * long-lived web sessions are commonly capped at; a stolen session's worth is bounded by it.
 */
export const MAX_PRODUCTION_SESSION_MAX_AGE = 90 * 86_400;
/** The longest an expired customer token may still be refreshed, in production: 30 days. */
export const MAX_PRODUCTION_REFRESH_GRACE = 30 * 86_400;

/** More proxies in front than any deployment has: a larger count would trust what clients forward. */
export const MAX_PROXY_HOPS = 10;
/** Documentation addresses (RFC 5737, RFC 3849) no proxy has: a setting that trusts them trusts everyone. */
const NOBODY = ['198.51.100.7', '2001:db8::7'];

/** The shortest subnet prefixes TRUST_PROXY accepts: a /7 of IPv4 is 1/128 of the Internet, no proxy fleet. */
export const MIN_TRUSTED_PREFIX = { ipv4: 8, ipv6: 32 } as const;
/** Private IPv6 ranges broader than /32 (unique local, link-local): trusting all of one is a private network. */
const PRIVATE_IPV6 = [
  ['fc00::', 7],
  ['fe80::', 10],
] as const;
const IPV4_MAPPED = new BlockList();
IPV4_MAPPED.addSubnet('::ffff:0:0', 96, 'ipv6');

/** The prefix length of `/24` or of a dotted mask `/255.255.255.0` (its set bits). */
const prefixLength = (suffix: string): number =>
  isIPv4(suffix)
    ? suffix.split('.').reduce((bits, octet) => bits + Number(octet).toString(2).replace(/0/g, '').length, 0)
    : Number(suffix);

/**
 * Why a TRUST_PROXY entry is refused, if it is: a hop count in a list or in another notation than plain
 * decimal (`1,2`, `0x2` — the IP parser would otherwise read them as addresses 0.0.0.1 and 0.0.0.2), an
 * address in a shorthand notation (`1.2.3`), or a subnet broader than MIN_TRUSTED_PREFIX that is not
 * private: those trust a good part of the Internet's clients to tell their own IP.
 */
function refusedProxyEntry(entry: string): string | undefined {
  if (['loopback', 'linklocal', 'uniquelocal'].includes(entry)) return undefined;
  if (/^(\d+|0x[\da-f]+)$/i.test(entry)) {
    return `"${entry}" is no address, and a hop count must be one plain decimal number such as 1, given alone`;
  }
  const [address = '', suffix, extra] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || extra !== undefined || (suffix !== undefined && !/^(\d+|\d+\.\d+\.\d+\.\d+)$/.test(suffix))) {
    return PROXY_ENTRY_FORMAT;
  }
  if (suffix === undefined) return undefined;
  const prefix = prefixLength(suffix);
  const tooBroad = `"${entry}" is too broad: a subnet must be at least /${MIN_TRUSTED_PREFIX.ipv4} (IPv4) or /${MIN_TRUSTED_PREFIX.ipv6} (IPv6, but for private ranges); list the proxies' own addresses or subnets`;
  if (version === 4) return prefix < MIN_TRUSTED_PREFIX.ipv4 ? tooBroad : undefined;
  if (IPV4_MAPPED.check(address, 'ipv6')) return prefix - 96 < MIN_TRUSTED_PREFIX.ipv4 ? tooBroad : undefined;
  if (prefix >= MIN_TRUSTED_PREFIX.ipv6) return undefined;
  const isPrivate = PRIVATE_IPV6.some(([net, bits]) => {
    const range = new BlockList();
    range.addSubnet(net, bits, 'ipv6');
    return prefix >= bits && range.check(address, 'ipv6');
  });
  return isPrivate ? undefined : tooBroad;
}

const PROXY_ENTRY_FORMAT =
  'each entry must be an IP address, a subnet (10.0.0.0/8) or loopback, linklocal, uniquelocal — or give a hop count';

/**
 * Express' `trust proxy` setting from TRUST_PROXY: `false`, a hop count, or the proxies' addresses
 * and subnets (`10.0.0.0/8, loopback`) — compiled here as Express will compile it, so a value Express
 * would choke on stops start-up naming the variable instead of failing later. Refused: `true` in any
 * spelling, hop counts past MAX_PROXY_HOPS or not in plain decimal, lists that trust every address
 * (`0.0.0.0/0`, `::/0`) and public subnets broader than MIN_TRUSTED_PREFIX (`0.0.0.0/1`): each would
 * let clients choose their own IP with `X-Forwarded-For` and walk around every per-IP limit (contract §7.2).
 */
function parseTrustProxy(v: string): { value: false | number | string } | { refused: string } {
  const refuse = (refused: string) => ({ refused });
  if (/^false$/i.test(v)) return { value: false };
  if (/^true$/i.test(v))
    return refuse("true would let clients choose their IP; give a hop count (1) or the proxies' addresses");
  if (/^\d+$/.test(v)) {
    const hops = Number(v);
    if (hops > MAX_PROXY_HOPS) {
      return refuse(`a hop count must be at most ${MAX_PROXY_HOPS} (the number of proxies in front of the service)`);
    }
    return { value: hops === 0 ? false : hops };
  }
  const entries = v.split(',').map((e) => e.trim());
  const catchAll = 'trusts every address (a catch-all subnet), which would let clients choose their IP';
  if (entries.some((e) => /\/(0|0\.0\.0\.0)$/.test(e))) return refuse(catchAll);
  let trusts: (address: string, hop: number) => boolean;
  try {
    trusts = proxyaddr.compile(entries);
  } catch {
    return refuse(entries.map(refusedProxyEntry).find(Boolean) ?? PROXY_ENTRY_FORMAT);
  }
  if (NOBODY.some((address) => trusts(address, 0))) return refuse(catchAll);
  // proxy-addr also reads shorthand and hex addresses, and any prefix: ours are held to a stricter rule.
  const refused = entries.map(refusedProxyEntry).find(Boolean);
  if (refused) return refuse(refused);
  return { value: entries.join(',') };
}

/**
 * Reads and validates the environment; throws `ConfigError` listing each bad variable. `terminal`:
 * stdout is a terminal (the default log format depends on it).
 */
export function loadConfig(
  env: Record<string, string | undefined> = process.env,
  terminal = Boolean(process.stdout.isTTY),
): Config {
  // Empty strings mean "unset", as in most deployment tools' env files.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${String(i.path[0])}: ${i.message}`);
    throw new ConfigError(`Invalid environment:\n${lines.join('\n')}`);
  }
  const config = buildConfig(parsed.data, terminal);
  const problems = crossCheck(config, parsed.data);
  if (problems.length) throw new ConfigError(`Invalid environment:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  return deepFreeze(config);
}

function crossCheck(c: ReturnType<typeof buildConfig>, env: Env): string[] {
  const problems: string[] = [];
  if (c.production) {
    if (!c.jwt.customerSecrets) problems.push('CUSTOMER_JWT_SECRET: is required in production (>= 32 bytes)');
    if (!c.jwt.adminSecrets) problems.push('ADMIN_JWT_SECRET: is required in production (>= 32 bytes)');
    // A token lives until it expires, whatever happens to the account meanwhile; a day is the most a
    // production deployment may hand out (refresh keeps customers signed in).
    for (const [name, ttl] of [
      ['CUSTOMER_TOKEN_TTL', c.jwt.customerTtl],
      ['ADMIN_TOKEN_TTL', c.jwt.adminTtl],
    ] as const) {
      if (ttl > MAX_PRODUCTION_TOKEN_TTL)
        problems.push(`${name}: must be at most ${MAX_PRODUCTION_TOKEN_TTL} s (24 h) in production`);
    }
    // A leaked token refreshes for as long as the grace and the session allow: years would make it a password.
    if (c.jwt.sessionMaxAge > MAX_PRODUCTION_SESSION_MAX_AGE)
      problems.push(`SESSION_MAX_AGE: must be at most ${MAX_PRODUCTION_SESSION_MAX_AGE} s (90 days) in production`);
    if (c.jwt.refreshGrace > MAX_PRODUCTION_REFRESH_GRACE)
      problems.push(`REFRESH_GRACE: must be at most ${MAX_PRODUCTION_REFRESH_GRACE} s (30 days) in production`);
  }
  const shared = c.jwt.customerSecrets?.filter((s) => c.jwt.adminSecrets?.includes(s)) ?? [];
  if (shared.length && c.production) {
    problems.push('ADMIN_JWT_SECRET: must differ from CUSTOMER_JWT_SECRET');
  }
  if (c.database.kind === 'pglite' && c.replicaUrls.length) {
    problems.push('DATABASE_REPLICA_URLS: replicas need DATABASE_URL (the embedded database has none)');
  }
  if (c.database.kind === 'pglite' && env.MIGRATION_DATABASE_URL) {
    problems.push('MIGRATION_DATABASE_URL: needs DATABASE_URL (the serving role); the embedded database has one role');
  }
  if (c.database.kind === 'pglite' && c.workers > 1) {
    problems.push('WORKERS: the embedded database belongs to one process; set DATABASE_URL to run several workers');
  }
  if (c.metrics.port !== undefined && c.metrics.port === c.port) {
    problems.push('METRICS_PORT: must differ from PORT');
  }
  if (Boolean(c.wx.appId) !== Boolean(c.wx.secret)) {
    problems.push(`${c.wx.appId ? 'WX_SECRET' : 'WX_APPID'}: WX_APPID and WX_SECRET must be set together`);
  }
  return problems;
}

function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object') {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}

/**
 * `npm run cli`: the password for `create-admin` / `create-customer` from `CLI_PASSWORD`, for scripts
 * that cannot use stdin. Passwords are never taken from the command line (argv shows in `ps`).
 */
export function cliPasswordFromEnv(env: Record<string, string | undefined> = process.env): string | undefined {
  return env.CLI_PASSWORD || undefined;
}
