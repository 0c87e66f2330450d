/**
 * `npm run bench -- --quick` end to end: data set, both servers, every scenario, the result file.
 * It proves the benchmark works; it asserts no timings (figures vary with the machine).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TEST_DB } from '../helpers/test-database.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

describe.runIf(TEST_DB === 'postgres')('npm run bench -- --quick', () => {
  it('when run, then it measures every scenario on service and floor and writes the result file', { timeout: 600_000 }, () => {
    const out = join(mkdtempSync(join(tmpdir(), 'shop-bench-')), 'result.json');
    const server = new URL(process.env.TEST_DATABASE_URL!);
    server.pathname = '/shop_bench_quick';
    const run = spawnSync('npm', ['run', 'bench', '--', '--quick'], {
      cwd: ROOT,
      env: { ...process.env, BENCH_DATABASE_URL: server.toString(), BENCH_RESULTS_FILE: out },
      encoding: 'utf8',
      timeout: 590_000,
    });
    expect(run.status, run.stderr.slice(-3000)).toBe(0);
    expect(run.stdout).toMatch(/\| scenario \| server \| req\/s/);
    const result = JSON.parse(readFileSync(out, 'utf8'));
    expect(result.machine).toMatchObject({ mode: 'quick', items: 10_000, cores: expect.any(Number) });
    const names = result.scenarios.map((s: { name: string }) => s.name);
    expect(names).toEqual(['list', 'list_default', 'detail', 'search', 'categories', 'graphql_items', 'login']);
    for (const s of result.scenarios) {
      for (const figures of [s.service, s.floor].filter(Boolean)) {
        expect(Object.keys(figures).sort()).toEqual(
          ['cpu_us_per_req', 'errors', 'non_2xx', 'p50_ms', 'p99_ms', 'pg_cpu_us_per_req', 'rps', 'rss_peak_mb'].sort(),
        );
        expect(figures.rps).toBeGreaterThan(0);
        // Every request of a read scenario must have succeeded, or the figures measure errors.
        expect(figures.errors).toBe(0);
        expect(figures.non_2xx).toBe(0);
      }
      expect(s.floor === null).toBe(s.ratio === null);
    }
    expect(result.startup.empty_ms).toBeGreaterThan(0);
    expect(result.startup.existing_ms).toBeGreaterThan(0);
  });
});
