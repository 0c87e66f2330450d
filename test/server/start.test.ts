/**
 * `npm start` as a user runs it: a fresh data directory (or an empty PostgreSQL database) becomes a
 * working shop with demo data; SIGTERM exits 0; a second start reuses the data, seeds nothing twice
 * and keeps the same secrets. The second start needs the first one's data directory: it says so
 * when the first did not complete, rather than failing on a missing file.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.ts';
import { startService } from '../helpers/service-process.ts';
import { createTestDatabase, TEST_DB, type TestDatabase } from '../helpers/test-database.ts';
import { scaled } from '../helpers/time-scale.ts';

let dataDir: string;
let database: TestDatabase | undefined;
let env: Record<string, string>;
/** Set once the first start has served and stopped: what the second start's test starts from. */
let firstStartDone = false;

// A first start creates the database, migrates, hashes the bootstrap admin's password at OWASP's cost
// and seeds the demo catalogue: ~10 s on an idle laptop, several times that on a busy one.
const COLD_START_MS = scaled(90_000);
const START_MS = scaled(60_000);

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'shop-start-'));
  env = { DATA_DIR: dataDir, LOG_LEVEL: 'info' };
  if (TEST_DB === 'postgres') {
    // Empty, as a first `npm start` finds it: no tables, no migrations applied.
    database = await createTestDatabase(undefined, { empty: true });
    env.DATABASE_URL = database.url!;
  }
});
afterAll(async () => {
  await database?.drop();
});

const getJson = async (url: string) => {
  const res = await fetch(url);
  return { status: res.status, body: await res.json() };
};

describe('npm start', () => {
  it('when started on an empty database, then it serves probes and the demo catalogue, and stops cleanly on SIGTERM', {
    // Longer than the start's own bound, so a slow start fails with the service's output, not a bare timeout.
    timeout: COLD_START_MS + scaled(30_000),
  }, async () => {
    const service = await startService(env, COLD_START_MS);
    try {
      expect((await getJson(`${service.url}/healthz`)).status).toBe(200);
      expect((await getJson(`${service.url}/readyz`)).status).toBe(200);
      const categories = await getJson(`${service.url}/api/v1/categories`);
      expect(categories.status).toBe(200);
      expect(categories.body.categories.length).toBeGreaterThanOrEqual(8);
      expect(categories.body.categories.some((c: { parent_id: number | null }) => c.parent_id !== null)).toBe(true);
      expect(categories.body.categories.some((c: { name: string }) => /[\u4e00-\u9fff]/.test(c.name))).toBe(true);
      expect(service.output()).toMatch(/Bootstrap admin created — username: admin {2}password: \S{12,}/);
      expect(service.output()).toMatch(/demo catalogue seeded/);
      // A first start takes seconds; it says what it is doing as it goes (contract §11), in order.
      const steps = [
        ...(TEST_DB === 'pglite' ? ['opening the embedded database'] : []),
        'applying migration',
        'migrations applied',
        'bootstrap admin created',
        'seeding the demo catalogue',
        'demo catalogue seeded',
        'shop service listening',
      ];
      const at = steps.map((step) => service.output().indexOf(`"msg":"${step}"`));
      expect(
        at.every((i) => i >= 0),
        JSON.stringify(Object.fromEntries(steps.map((s, i) => [s, at[i]]))),
      ).toBe(true);
      expect([...at].sort((a, b) => a - b)).toEqual(at);
      // Development listens without the production warm-up (no load balancer is waiting for it).
      expect(service.output()).not.toMatch(/"msg":"warmed up"/);
    } finally {
      expect(await service.stop()).toBe(0);
    }
    expect(service.output()).toMatch(/"msg":"stopped"/);
    // What `npm start` stored for the bootstrap admin: argon2id at OWASP's cost (the suite's own
    // NODE_ENV=test cost never reaches a real start).
    const db = await openDatabase(database ? database.target : { kind: 'pglite', dataDir });
    try {
      const [admin] = await db.prisma.admin.findMany({ select: { passwordHash: true } });
      expect(admin?.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    } finally {
      await db.close();
    }
    firstStartDone = true;
  });

  it('when started again on the same data, then nothing is seeded twice and the secrets stay the same', {
    timeout: START_MS + scaled(30_000),
  }, async () => {
    expect(
      firstStartDone,
      'this test starts on the data directory of the first start (the test above), which did not complete',
    ).toBe(true);
    const secretsBefore = readFileSync(join(dataDir, 'jwt-secrets.json'), 'utf8');
    const service = await startService(env, START_MS);
    try {
      const categories = await getJson(`${service.url}/api/v1/categories`);
      expect(categories.body.categories.length).toBeGreaterThanOrEqual(8);
      const again = await getJson(`${service.url}/api/v1/categories`);
      expect(again.body).toEqual(categories.body);
      expect(service.output()).not.toMatch(/Bootstrap admin created|demo catalogue seeded|migrations applied/);
    } finally {
      expect(await service.stop()).toBe(0);
    }
    expect(readFileSync(join(dataDir, 'jwt-secrets.json'), 'utf8')).toBe(secretsBefore);
  });

  it('when the configuration is invalid, then it exits 1 naming the variable', async () => {
    await expect(startService({ ...env, CUSTOMER_TOKEN_TTL: 'soon' }, 20_000)).rejects.toThrow(
      /exited with 1[\s\S]*CUSTOMER_TOKEN_TTL/,
    );
  });
});
