/**
 * Contract §15's console figure: on the benchmark's 100,000 items, the items screen shows its first
 * page within 1 s of navigation. Fills (or reuses) the bench catalogue on the local PostgreSQL
 * (bench/data.ts, as `npm run bench` does), starts the service as `npm start` runs it, signs the bench
 * admin in once in Chromium, then measures, RUNS times each, from the start of a navigation to the
 * first row of the items table on screen:
 * - `load`: a full page load of /admin/items (HTML, scripts, the admin, the first page);
 * - `click`: a click on Items in the navigation from Categories (the screen’s chunk cached).
 * Run: `node --import tsx bench/console-items.ts` (BENCH_DATABASE_URL to use another database).
 */
import { chromium } from 'playwright-core';
import { CHROMIUM } from '../test/helpers/browser-availability.ts';
import { prepareBenchData } from './data.ts';
import { BENCH_ADMIN, startBenchService } from './servers.ts';

const RUNS = 7;
const url = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/shop_bench';

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const data = await prepareBenchData(url, 100_000);
console.error(`console-items: ${data.items} items ${data.reused ? 'reused' : `filled in ${data.fillMs} ms`}`);
const service = await startBenchService('service', url, { cache: 'on', workers: 1 });
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox'] });
try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await page.goto(`${service.url}/admin/login`);
  await page.getByLabel('Username').fill(BENCH_ADMIN.username);
  await page.getByLabel('Password').fill(BENCH_ADMIN.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  const firstRow = page.locator('table tbody tr').first();
  await firstRow.waitFor();

  const load: number[] = [];
  const click: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    await page.goto(`${service.url}/admin/categories`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    let started = performance.now();
    await page.goto(`${service.url}/admin/items`, { waitUntil: 'commit' });
    await firstRow.waitFor();
    load.push(performance.now() - started);

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Categories' }).click();
    await firstRow.waitFor({ state: 'detached' });
    started = performance.now();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Items' }).click();
    await firstRow.waitFor();
    click.push(performance.now() - started);
  }
  const ms = (values: number[]) => values.map((v) => Math.round(v)).join(', ');
  console.log(
    JSON.stringify({
      items: data.items,
      load_ms: { median: Math.round(median(load)), max: Math.round(Math.max(...load)), runs: ms(load) },
      click_ms: { median: Math.round(median(click)), max: Math.round(Math.max(...click)), runs: ms(click) },
    }),
  );
} finally {
  await browser.close();
  await service.stop();
}
