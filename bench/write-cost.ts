/**
 * What the event log costs writes: the same item writes against a service of this checkout on a fresh
 * PostgreSQL database — 300 sequential PATCHes, then 600 PATCHes by 8 concurrent writers on distinct
 * items — p50/p99 latency and writes/s. From a checkout's root: `node --import tsx bench/write-cost.ts <database>`
 * (created afresh on the local PostgreSQL; copy the file into another checkout to compare two commits).
 */
import pg from 'pg';
import { startService } from '../test/helpers/service-process.ts';

const name = process.argv[2]!;
const base = 'postgresql://postgres@127.0.0.1:5432';
const admin = new pg.Client({ connectionString: `${base}/test` });
await admin.connect();
await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
await admin.query(`CREATE DATABASE "${name}"`);
await admin.end();
const ADMIN = { username: 'cost-root', password: 'cost-root-password' };
const service = await startService({
  DATABASE_URL: `${base}/${name}`,
  WORKERS: '1',
  LOG_LEVEL: 'info',
  ADMIN_USERNAME: ADMIN.username,
  ADMIN_PASSWORD: ADMIN.password,
  LOGIN_IP_PER_MINUTE: '10000',
});
const call = async (path: string, method: string, body?: unknown, token?: string) => {
  const res = await fetch(`${service.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
};
try {
  const { access_token: token } = await call('/admin/api/auth/login', 'POST', ADMIN);
  const gql = (query: string, variables = {}) => call('/graphql', 'POST', { query, variables }, token);
  const category = (await gql('mutation { createCategory(input: { name: "Cost" }) { id } }')).data.createCategory.id;
  const items: number[] = [];
  for (let n = 0; n < 16; n++) {
    const item = await call(
      '/admin/api/items',
      'POST',
      { name: `Cost ${n}`, category_id: category, price: 1, stock: 1, skus: [], images: [] },
      token,
    );
    items.push(item.id);
  }
  const patch = (id: number, price: number) => call(`/admin/api/items/${id}`, 'PATCH', { price }, token);
  const pct = (xs: number[], p: number) =>
    [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
  // Warm-up.
  for (let n = 0; n < 50; n++) await patch(items[n % 16]!, 2 + (n % 50));
  const sequential: number[] = [];
  for (let n = 0; n < 300; n++) {
    const t = performance.now();
    await patch(items[n % 16]!, 3 + (n % 90));
    sequential.push(performance.now() - t);
  }
  const concurrent: number[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: 8 }, async (_, w) => {
      for (let n = 0; n < 75; n++) {
        const t = performance.now();
        await patch(items[w * 2 + (n % 2)]!, 4 + (n % 90));
        concurrent.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const f = (x: number) => Math.round(x * 10) / 10;
  console.log(
    JSON.stringify({
      db: name,
      sequential: { p50: f(pct(sequential, 50)), p99: f(pct(sequential, 99)) },
      concurrent8: { p50: f(pct(concurrent, 50)), p99: f(pct(concurrent, 99)), writes_per_s: f(600 / seconds) },
    }),
  );
} finally {
  await service.stop();
}
