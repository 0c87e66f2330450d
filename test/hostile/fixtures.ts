/**
 * The world every hostile suite fuzzes against: a few categories, items and accounts, and tokens of
 * every kind (valid of each system, disabled, expired, over-long, signed with the wrong key, `alg:
 * none`). Rows the fuzzers must not destroy — the customer and admin whose tokens they use, the
 * category and item that valid bodies point at — get ids far above anything a generator draws
 * (1..12, int32 edges), so generated deletes and disables hit only the sacrificial rows with small ids.
 */
import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { afterAll, beforeAll } from 'vitest';
import { passwordHasher } from '../../src/auth/password.ts';
import { loginAsAdmin, loginAsCustomer } from '../helpers/accounts.ts';
import { makeCategory, makeItem } from '../helpers/catalog.ts';
import { signAdminToken } from '../helpers/catalog-admin.ts';
import { DbWatch, Tally } from '../helpers/hostile.ts';
import { BASE_ENV, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { authorizationLines, type PresentedAuth, type TokenLabel } from './arbitraries.ts';

// The test suite's cost (NODE_ENV=test): verifying reads the cost from the hash itself.
const { hash: hashPassword } = passwordHasher('test');

export const PROTECTED = {
  customerId: 987_654,
  adminId: 987_650,
  categoryId: 987_000,
  childCategoryId: 987_001,
  itemId: 987_002,
} as const;
export const FIXTURE_CUSTOMER = {
  username: 'fuzz-customer@example.com',
  password: 'fuzz customer password 1',
} as const;
export const FIXTURE_DISABLED_ADMIN = { username: 'fuzz-disabled-admin', password: 'fuzz disabled admin pw' } as const;

export interface Fixtures {
  /** The token a label stands for now (the customer's rotates on every successful refresh). */
  token(label: TokenLabel, garbage?: string): string | undefined;
  /** Records the successor after a successful refresh, so later cases present the live token. */
  refreshed(accessToken: string): void;
  /** The `Authorization` lines of `auth` with the token its label stands for now. */
  authLines(auth: PresentedAuth): Array<[string, string]>;
  /** The header lines of a JSON POST presenting `auth` (if any), plus `extra`. */
  jsonHeaders(auth: PresentedAuth | undefined, extra?: Array<[string, string]>): Array<[string, string]>;
  /** Ids of the sacrificial rows (small, from the sequences): near-valid ids for updates and deletes. */
  ids: { items: number[]; categories: number[]; customers: number[]; admins: number[] };
}

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

export async function prepareFixtures(app: TestApp): Promise<Fixtures> {
  const prisma = app.db.prisma;
  // Protected rows, with explicit ids far from the sequences.
  await prisma.category.create({ data: { id: PROTECTED.categoryId, name: 'Fuzz shoes', sortOrder: 0 } });
  await prisma.category.create({
    data: { id: PROTECTED.childCategoryId, name: 'Fuzz boots', parentId: PROTECTED.categoryId },
  });
  await prisma.item.create({
    data: {
      id: PROTECTED.itemId,
      name: 'Fuzz anchor item',
      categoryId: PROTECTED.childCategoryId,
      price: '1.00',
      stock: 1,
    },
  });
  await prisma.customer.create({
    data: {
      id: PROTECTED.customerId,
      username: FIXTURE_CUSTOMER.username,
      passwordHash: await hashPassword(FIXTURE_CUSTOMER.password),
    },
  });
  await prisma.admin.create({
    data: {
      id: PROTECTED.adminId,
      username: FIXTURE_DISABLED_ADMIN.username,
      passwordHash: await hashPassword(FIXTURE_DISABLED_ADMIN.password),
    },
  });

  // Sacrificial rows with small ids: generated updates and deletes succeed on these.
  const categories = [];
  for (let i = 0; i < 4; i++) categories.push(await makeCategory(app, { name: `Sacrificial ${i}`, sortOrder: i }));
  const items = [];
  for (let i = 0; i < 6; i++) {
    items.push(
      await makeItem(app, {
        categoryId: categories[i % 2]!.id,
        name: i % 2 ? `跑鞋 ${i}` : `Sneaker ${i}`,
        skus: [{ skuCode: `S-${i}`, specs: { size: String(40 + i) } }],
        images: ['https://cdn.example.com/s.jpg'],
      }),
    );
  }
  const customers = [];
  for (let i = 0; i < 3; i++) {
    // No password hash: argon2 costs ~30 ms and these accounts are never logged into.
    customers.push(
      await prisma.customer.create({ data: { username: `sacrificial-${i}@example.com`, nickname: `S${i}` } }),
    );
  }

  const adminToken = await loginAsAdmin(app);
  const disabledAdminToken = await loginAsAdmin(app, FIXTURE_DISABLED_ADMIN);
  await prisma.admin.update({ where: { id: PROTECTED.adminId }, data: { disabled: true } });
  let customerToken = await loginAsCustomer(app, FIXTURE_CUSTOMER.username, FIXTURE_CUSTOMER.password);

  const now = Math.floor(Date.now() / 1000);
  const adminExpired = await signAdminToken({ sub: '1', iat: now - 7200, exp: now - 3600 });
  const adminLongLived = await signAdminToken({ sub: '1', iat: now, exp: now + 10 * 365 * 86400 });
  // The customer system's header and claims, signed with the admin key: a signature that cannot verify.
  const customerWithAdminKey = await new SignJWT({ sid: randomUUID() })
    .setProtectedHeader({ alg: 'HS256', typ: 'customer+jwt' })
    .setIssuer('shop-service:customer')
    .setAudience('shop-storefront')
    .setSubject(String(PROTECTED.customerId))
    .setJti(randomUUID())
    .setIssuedAt(now)
    .setExpirationTime(now + 600)
    .sign(new TextEncoder().encode(BASE_ENV.ADMIN_JWT_SECRET));
  const algNone = `${b64({ alg: 'none', typ: 'admin+jwt' })}.${b64({ iss: 'shop-service:admin', aud: 'shop-admin', sub: '1', sid: randomUUID(), jti: randomUUID(), iat: now, exp: now + 600 })}.`;

  const fixtures: Fixtures = {
    token(label, garbage = 'garbage') {
      switch (label) {
        case 'none':
          return undefined;
        case 'admin':
          return adminToken;
        case 'customer':
          return customerToken;
        case 'admin-disabled':
          return disabledAdminToken;
        case 'admin-expired':
          return adminExpired;
        case 'admin-long-lived':
          return adminLongLived;
        case 'customer-signed-by-admin-key':
          return customerWithAdminKey;
        case 'alg-none':
          return algNone;
        case 'garbage':
          return garbage;
      }
    },
    refreshed(accessToken) {
      customerToken = accessToken;
    },
    authLines: (auth) => authorizationLines(fixtures.token(auth.label, auth.garbage), auth.style, auth.garbage),
    jsonHeaders: (auth, extra = []) => [
      ['content-type', 'application/json'],
      ...extra,
      ...(auth ? fixtures.authLines(auth) : []),
    ],
    ids: {
      items: items.map((i) => i.id),
      categories: categories.map((c) => c.id),
      customers: customers.map((c) => c.id),
      admins: [1],
    },
  };
  return fixtures;
}

/** A service that a suite's app talks to (the fake WeChat): its environment for the app, and its end. */
export interface SideService {
  env: Record<string, string>;
  close(): Promise<void>;
}

export interface HostileSuite {
  readonly app: TestApp;
  readonly fx: Fixtures;
  readonly tally: Tally;
  /** What each case runs against: the app's URL, the database watch and the tally. */
  ctx(): { url: string; watch: DbWatch; tally: Tally };
}

/**
 * Registers a hostile suite's set-up and tear-down: an app (with `env`, and `side`'s if given), the
 * fixtures, a database watch, and a tally printed as `label` at the end.
 */
export function hostileSuite(
  label: string,
  opts: { env?: Record<string, string>; side?: () => Promise<SideService> } = {},
): HostileSuite {
  let app: TestApp | undefined;
  let fx: Fixtures | undefined;
  let watch: DbWatch | undefined;
  let side: SideService | undefined;
  const tally = new Tally();
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the hostile suite is used before its beforeAll ran');
    return value;
  };

  beforeAll(async () => {
    side = await opts.side?.();
    app = await startTestApp({ ...side?.env, ...opts.env });
    fx = await prepareFixtures(app);
    watch = await DbWatch.start(app);
  }, 120_000);

  afterAll(async () => {
    console.log(tally.report(label));
    await app?.close();
    await side?.close();
  });

  return {
    get app() {
      return ready(app);
    },
    get fx() {
      return ready(fx);
    },
    tally,
    ctx: () => ({ url: ready(app).url, watch: ready(watch), tally }),
  };
}
