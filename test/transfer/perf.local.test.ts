import { afterAll, beforeAll, expect, it } from 'vitest';
import { loginAsAdmin } from '../helpers/accounts.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { csv, runImport } from './import-helpers.ts';

let app: TestApp;
let owner: string;
beforeAll(async () => {
  app = await startTestApp({ IMPORT_MAX_BYTES: String(100 * 1024 * 1024) });
  owner = await loginAsAdmin(app);
});
afterAll(() => app?.close());

it('perf', async () => {
  const N = Number(process.env.N ?? 10000);
  const rows: Array<Array<string | number>> = [['handle', 'name', 'category', 'price', 'stock', 'sku_code', 'sku_stock', 'spec:color', 'spec:size']];
  for (let i = 0; i < N; i++) {
    rows.push([`perf-${i}`, `轻量跑鞋 Trail runner ${i}`, `Shoes > Running > R${i % 50}`, '19.90', 10, `P-${i}-A`, 5, 'red', '42']);
    rows.push([`perf-${i}`, '', '', '', '', `P-${i}-B`, 5, 'blue', '43']);
  }
  const file = csv(rows);
  const t0 = performance.now();
  const done = await runImport(app, owner, file, '', 'text/csv');
  const t1 = performance.now();
  console.log('import', N, 'items in', Math.round(t1 - t0), 'ms =', Math.round(N / ((t1 - t0) / 1000)), 'items/s', JSON.stringify(done.items));
  const again = await runImport(app, owner, file, '', 'text/csv');
  console.log('reimport', Math.round(performance.now() - t1), 'ms', JSON.stringify(again.items));
  expect(done.items.created).toBe(N);
}, 600_000);
