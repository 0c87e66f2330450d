/**
 * The service's configuration: the only reader of `process.env` (contract §6).
 * `loadConfig` returns a frozen, typed object or throws a `ConfigError` naming every bad variable.
 */
import { z } from 'zod';

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
    .pipe(z.number().int().positive('must be at least 1').max(10 * 365 * 86400))
    .default(def);
const count = (def: number) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().positive('must be at least 1').max(1_000_000))
    .default(def);
/** Comma-separated secrets: sign with the first, verify with any (rotation). */
const secretList = z
  .string()
  .transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean))
  .pipe(z.array(z.string().min(32, 'each secret must be at least 32 bytes')).min(1, 'must hold at least one secret'))
  .optional();
const httpUrl = z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' });

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
  DATA_DIR: z.string().min(1).default('./data'),
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
  REDIS_URL: z.string().regex(/^rediss?:\/\//, 'must be a redis:// URL').optional(),
  ADMIN_USERNAME: z.string().min(3, 'must be 3..64 characters').max(64, 'must be 3..64 characters').optional(),
  ADMIN_PASSWORD: z.string().min(8, 'must be at least 8 characters').max(1024).optional(),
  SEED_DEMO: bool.optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  TRUST_PROXY: z.string().min(1).optional(),
  GRAPHIQL: bool.optional(),
});

type Env = z.infer<typeof envSchema>;

function buildConfig(env: Env) {
  const production = env.NODE_ENV === 'production';
  return {
    env: env.NODE_ENV,
    production,
    port: env.PORT,
    host: env.HOST,
    database: env.DATABASE_URL
      ? ({ kind: 'postgres', url: env.DATABASE_URL } as const)
      : ({ kind: 'pglite' } as const),
    dataDir: env.DATA_DIR,
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
    },
    wx: { appId: env.WX_APPID, secret: env.WX_SECRET, apiBase: env.WX_API_BASE.replace(/\/+$/, '') },
    redisUrl: env.REDIS_URL,
    /** Created when no admin exists; without a password one is generated and printed (development only). */
    bootstrapAdmin: { username: env.ADMIN_USERNAME ?? 'admin', password: env.ADMIN_PASSWORD },
    seedDemo: env.SEED_DEMO ?? !production,
    logLevel: env.LOG_LEVEL,
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    graphiql: env.GRAPHIQL ?? !production,
  };
}

export type Config = Readonly<ReturnType<typeof buildConfig>>;

/** Express' `trust proxy` setting: a hop count, a boolean, or a list of addresses/subnets. */
function parseTrustProxy(v: string | undefined): boolean | number | string {
  if (v === undefined || v === 'false') return false;
  if (v === 'true') return true;
  if (/^\d+$/.test(v)) return Number(v);
  return v;
}

/** Reads and validates the environment; throws `ConfigError` listing each bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // Empty strings mean "unset", as in most deployment tools' env files.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${String(i.path[0])}: ${i.message}`);
    throw new ConfigError(`Invalid environment:\n${lines.join('\n')}`);
  }
  const config = buildConfig(parsed.data);
  const problems = crossCheck(config);
  if (problems.length) throw new ConfigError(`Invalid environment:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  return deepFreeze(config);
}

function crossCheck(c: ReturnType<typeof buildConfig>): string[] {
  const problems: string[] = [];
  if (c.production) {
    if (!c.jwt.customerSecrets) problems.push('CUSTOMER_JWT_SECRET: is required in production (>= 32 bytes)');
    if (!c.jwt.adminSecrets) problems.push('ADMIN_JWT_SECRET: is required in production (>= 32 bytes)');
  }
  const shared = c.jwt.customerSecrets?.filter((s) => c.jwt.adminSecrets?.includes(s)) ?? [];
  if (shared.length && c.production) {
    problems.push('ADMIN_JWT_SECRET: must differ from CUSTOMER_JWT_SECRET');
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
