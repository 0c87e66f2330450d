/** Builders for accounts and tokens in tests: real rows, real argon2 hashes, real signed tokens. */
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { passwordHasher } from '../../src/auth/password.ts';
import type { AdminRole, Customer } from '../../src/generated/prisma/client.ts';
import { type ApiResponse, TEST_ADMIN, type TestApp } from './test-app.ts';

// The test suite's cost (NODE_ENV=test): verifying reads the cost from the hash itself.
const { hash: hashPassword } = passwordHasher('test');

export const CUSTOMER_PASSWORD = 'correct horse battery staple';

/** A username no other test uses (limits and Redis keys are per username). */
export const uniqueEmail = (label = 'user') => `${label}-${randomUUID().slice(0, 8)}@example.com`;

/** Inserts a customer with an argon2id password hash (or none). */
export async function makeCustomer(
  app: TestApp,
  opts: {
    username?: string | null;
    password?: string | null;
    nickname?: string;
    disabled?: boolean;
    wxOpenid?: string;
  } = {},
): Promise<Customer> {
  const password = opts.password === undefined ? CUSTOMER_PASSWORD : opts.password;
  return app.db.prisma.customer.create({
    data: {
      username: opts.username === undefined ? uniqueEmail() : opts.username,
      passwordHash: password === null ? null : await hashPassword(password),
      nickname: opts.nickname ?? null,
      disabled: opts.disabled ?? false,
      wxOpenid: opts.wxOpenid,
    },
  });
}

/** Inserts an admin: an owner (who may do everything) unless `role` says otherwise. */
export async function makeAdmin(
  app: TestApp,
  opts: { username?: string; password?: string; disabled?: boolean; role?: AdminRole } = {},
) {
  return app.db.prisma.admin.create({
    data: {
      username: opts.username ?? `admin-${randomUUID().slice(0, 8)}`,
      passwordHash: await hashPassword(opts.password ?? 'admin-password-123'),
      disabled: opts.disabled ?? false,
      role: opts.role ?? 'owner',
    },
  });
}

/** POST /api/v1/auth/login. */
export const customerLogin = (app: TestApp, username: unknown, password: unknown, headers?: Record<string, string>) =>
  app.request('/api/v1/auth/login', { body: { username, password }, headers });

/** POST /admin/api/auth/login. */
export const adminLogin = (app: TestApp, username: unknown, password: unknown, headers?: Record<string, string>) =>
  app.request('/admin/api/auth/login', { body: { username, password }, headers });

/** POST /api/v1/auth/refresh with `token`. */
export const refresh = (app: TestApp, token?: string) => app.request('/api/v1/auth/refresh', { method: 'POST', token });

/** Logs a customer in over REST and returns the access token. */
export async function loginAsCustomer(app: TestApp, username: string, password = CUSTOMER_PASSWORD): Promise<string> {
  const res = await customerLogin(app, username, password);
  expect(res.status, res.text).toBe(200);
  return res.body.access_token as string;
}

/** Logs the bootstrap admin (or another) in over REST and returns the access token. */
export async function loginAsAdmin(
  app: TestApp,
  creds: { username: string; password: string } = TEST_ADMIN,
): Promise<string> {
  const res = await adminLogin(app, creds.username, creds.password);
  expect(res.status, res.text).toBe(200);
  return res.body.access_token as string;
}

/** Asserts a contract problem response (status, code, problem+json, request id). */
export function expectProblem(res: ApiResponse, status: number, code: string) {
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({ type: 'about:blank', status, code });
  expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
}

/** The problem body without its per-request id, for comparing two answers. */
export const withoutRequestId = (body: Record<string, unknown>) => {
  const { request_id: _ignored, ...rest } = body;
  return rest;
};

/** The first GraphQL error's code. */
export const gqlCode = (res: ApiResponse) => res.body?.errors?.[0]?.extensions?.code as string | undefined;
