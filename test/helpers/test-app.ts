/**
 * Starts the real Express app on 127.0.0.1:0 over a fresh database, exactly as src/server.ts wires
 * it, and offers a small fetch-based client for the tests.
 */
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import type { Server } from 'node:http';
import { buildApp } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config/config.ts';
import type { Database } from '../../src/db/database.ts';
import { prepareDatabase } from '../../src/db/prepare.ts';
import { schema } from '../../src/graphql/schema.ts';
import { restRoutes } from '../../src/http/routes.ts';
import { createLogger } from '../../src/logger.ts';
import { buildServices, type Services } from '../../src/services.ts';
import { openTestDatabase } from './test-database.ts';

export const TEST_ADMIN = { username: 'root', password: 'root-password-for-tests' } as const;

/** Environment every test app starts with; a test overrides what it is about. */
export const BASE_ENV: Record<string, string> = {
  NODE_ENV: 'test',
  LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
  CUSTOMER_JWT_SECRET: 'customer-secret-for-tests-0123456789abcdef',
  ADMIN_JWT_SECRET: 'admin-secret-for-tests-0123456789abcdef-xyz',
  ADMIN_USERNAME: TEST_ADMIN.username,
  ADMIN_PASSWORD: TEST_ADMIN.password,
  SEED_DEMO: 'false',
  DATA_DIR: '/nonexistent-data-dir-tests-must-not-write',
};

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
  services: Services;
  request<T = any>(path: string, opts?: RequestOptions): Promise<ApiResponse<T>>;
  graphql<T = any>(query: string, variables?: Record<string, unknown>, opts?: RequestOptions): Promise<ApiResponse<T>>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  /** PostgreSQL only: connect through this local port (a TCP proxy) instead of the server's own. */
  viaPort?: number;
}

export async function startTestApp(env: Record<string, string> = {}, opts: TestAppOptions = {}): Promise<TestApp> {
  const config = loadConfig({ ...BASE_ENV, ...env });
  const log = createLogger(config.logLevel);
  const db = await openTestDatabase(opts.viaPort);
  await prepareDatabase(db, config, log);
  const services = await buildServices(config, db, log);
  const app = buildApp({ config, db, log, services, schema, routes: restRoutes });
  const server: Server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

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
    let parsed: unknown = undefined;
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
    services,
    request,
    graphql: (query, variables, opts = {}) => request('/graphql', { ...opts, method: 'POST', body: { query, variables } }),
    close: async () => {
      server.closeAllConnections();
      server.close();
      await services.close();
      await db.dispose();
    },
  };
}
