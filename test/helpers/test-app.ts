/**
 * Starts the real Express app on 127.0.0.1:0 over a fresh database, exactly as src/server.ts wires
 * it, and offers a small fetch-based client for the tests.
 */
import type { Config } from '../../src/config/config.ts';
import type { Database } from '../../src/db/database.ts';
import type { Logger } from '../../src/logger.ts';
import type { Services } from '../../src/services.ts';
import { appKit } from './app-kit.ts';
import { openTestDatabase, type TestDatabaseOptions } from './test-database.ts';

export const TEST_ADMIN = { username: 'root', password: 'root-password-for-tests' } as const;

/** Environment every test app starts with; a test overrides what it is about. */
export const BASE_ENV = {
  NODE_ENV: 'test',
  LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
  CUSTOMER_JWT_SECRET: 'customer-secret-for-tests-0123456789abcdef',
  ADMIN_JWT_SECRET: 'admin-secret-for-tests-0123456789abcdef-xyz',
  ADMIN_USERNAME: TEST_ADMIN.username,
  ADMIN_PASSWORD: TEST_ADMIN.password,
  SEED_DEMO: 'false',
  DATA_DIR: '/nonexistent-data-dir-tests-must-not-write',
} satisfies Record<string, string>;

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  method?: string;
  body?: unknown;
  /** A raw body sent as is (with `contentType`). */
  rawBody?: string;
  contentType?: string;
  token?: string;
  headers?: Record<string, string>;
}

export interface TestApp {
  url: string;
  config: Config;
  db: Database;
  /** PostgreSQL only: the database's URL (a second app can be opened on it with `{ url }`). */
  databaseUrl?: string;
  services: Services;
  request<T = any>(path: string, opts?: RequestOptions): Promise<ApiResponse<T>>;
  graphql<T = any>(query: string, variables?: Record<string, unknown>, opts?: RequestOptions): Promise<ApiResponse<T>>;
  /**
   * Resolves once this app has heard every catalogue notification sent before the call (a write made
   * behind the service's back, or a late one from a set-up write): PostgreSQL delivers notifications in
   * order, so a marker of its own heard means the earlier ones were too.
   */
  catalogNotificationsHeard(): Promise<void>;
  close(): Promise<void>;
}

export interface TestAppOptions extends TestDatabaseOptions {
  /** Stands in for the serving process's SIGTERM flag (`/readyz` turns 503 while it is true). */
  isShuttingDown?: () => boolean;
  /** Where the app logs (default: LOG_LEVEL's, silent in tests). */
  log?: Logger;
}

export async function startTestApp(env: Record<string, string> = {}, opts: TestAppOptions = {}): Promise<TestApp> {
  const { buildApp, CATALOG_CHANNEL, createHttpServer, loadConfig, openRuntime, restRoutes, schema } = await appKit();
  const config = loadConfig({ ...BASE_ENV, ...env });
  const db = await openTestDatabase(opts);
  const runtime = await openRuntime(config, {
    role: 'test',
    prepare: 'everything',
    background: true,
    db,
    log: opts.log,
  });
  const { services } = runtime;
  const app = buildApp({ runtime, schema, routes: restRoutes, isShuttingDown: opts.isShuttingDown });
  const http = createHttpServer(app, { keepAliveTimeoutMs: config.keepAliveTimeoutMs });
  const { server } = http;
  const url = `http://127.0.0.1:${await http.listen(0, '127.0.0.1')}`;

  const request = async <T>(path: string, opts: RequestOptions = {}): Promise<ApiResponse<T>> => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    let body: string | undefined = opts.rawBody;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    if (opts.contentType) headers['content-type'] = opts.contentType;
    const res = await fetch(url + path, { method: opts.method ?? (body ? 'POST' : 'GET'), headers, body });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  };

  return {
    url,
    config,
    db,
    databaseUrl: db.url,
    services,
    request,
    graphql: (query, variables, opts = {}) =>
      request('/graphql', { ...opts, method: 'POST', body: { query, variables } }),
    catalogNotificationsHeard: async () => {
      const cache = services.catalogCache;
      const before = cache.generation;
      await db.sql.query(`SELECT pg_notify('${CATALOG_CHANNEL}', 'test')`);
      for (const until = Date.now() + 5000; cache.generation === before && Date.now() < until; ) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      if (cache.generation === before) throw new Error('the catalogue notification did not arrive within 5 s');
    },
    close: async () => {
      server.closeAllConnections();
      server.close();
      await services.close();
      await db.dispose();
    },
  };
}
