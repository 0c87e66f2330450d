/**
 * `npm run bench -- --quick` end to end: data set, the servers, every scenario, the result file.
 * It proves the benchmark works; it asserts no timings (figures vary with the machine), but every
 * request must succeed and every write of `mixed` must show on both instances.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TEST_DB } from '../helpers/test-database.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

/** Does the source serve the export route (contract §13.3)? The bench skips `export` where it answers 404. */
const exportRouteBuilt = (readdirSync(join(ROOT, 'src'), { recursive: true }) as string[]).some(
  (file) =>
    file.endsWith('.ts') &&
    !file.startsWith('generated') &&
    readFileSync(join(ROOT, 'src', file), 'utf8').includes("'/admin/api/exports/items'"),
);

describe.runIf(TEST_DB === 'postgres')('npm run bench -- --quick', () => {
  it('when run, then it measures every scenario (cache off and on, mixed, workers, import and export) and writes the result file', {
    timeout: 600_000,
  }, () => {
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
    expect(run.stdout).toMatch(/\| scenario \| cache \| server \| req\/s/);
    const result = JSON.parse(readFileSync(out, 'utf8'));
    expect(result.machine).toMatchObject({ mode: 'quick', items: 2_000, cores: expect.any(Number) });
    const names = result.scenarios.map((s: { name: string; cache: string }) => `${s.name}/${s.cache}`);
    expect(names).toEqual([
      ...[
        'list',
        'list_default',
        'list_sorted',
        'detail',
        'search',
        'search_facets',
        'suggestions',
        'categories',
        'graphql_items',
        'login',
      ].map((n) => `${n}/off`),
      // Quick mode leaves out list_hot and search_hot (the full run has them).
      ...['detail_hot', 'categories', 'mixed'].map((n) => `${n}/on`),
      'workers/off',
      // Quick mode leaves out import_embedded (the full run has it).
      'import/off',
      ...(exportRouteBuilt ? ['export/off'] : []),
    ]);
    const figureKeys = [
      'cpu_us_per_req',
      'errors',
      'non_2xx',
      'ok_rps',
      'p50_ms',
      'p99_ms',
      'pg_cpu_us_per_req',
      'rps',
      'rss_peak_mb',
    ].sort();
    for (const s of result.scenarios.filter((x: { kind?: string }) => x.kind !== 'transfer')) {
      for (const figures of [s.service, s.floor, s.reference, ...Object.values(s.by_workers ?? {})].filter(Boolean)) {
        expect(
          Object.keys(figures)
            .filter((k) => k !== 'rss_primary_mb' && k !== 'rss_background_mb')
            .sort(),
        ).toEqual(figureKeys);
        // The floor is one process: no primary or background process to report apart.
        if (figures === s.floor || figures === s.reference) {
          expect(figures.rss_primary_mb).toBeUndefined();
          expect(figures.rss_background_mb).toBeUndefined();
        }
        expect(figures.rss_peak_mb).toBeGreaterThan(0);
        expect(figures.rps).toBeGreaterThan(0);
        expect(figures.ok_rps).toBe(figures.rps);
        // Every request of a read scenario must have succeeded, or the figures measure errors.
        expect(figures.errors).toBe(0);
        expect(figures.non_2xx).toBe(0);
      }
      expect(s.floor === null).toBe(s.ratio === null);
      // Against the floor, the service is measured in turns (bench/load.ts); half a second is one stretch.
      if (s.floor) expect(s.turns).toBe(1);
    }
    // Search is also measured against revision 2's substring search (issue 18's reference), on the floor.
    const search = result.scenarios.find((s: { name: string }) => s.name === 'search');
    expect(search.reference.rps).toBeGreaterThan(0);
    expect(search.reference_ratio).toBeGreaterThan(0);
    // The service runs as a cluster primary with its worker(s): the primary's memory is reported apart
    // from the serving worker's.
    expect(result.scenarios.some((s: { service?: { rss_primary_mb?: number } }) => s.service?.rss_primary_mb)).toBe(
      true,
    );
    // And the background process's (src/process/background.ts) apart too.
    expect(
      result.scenarios.some((s: { service?: { rss_background_mb?: number } }) => s.service?.rss_background_mb),
    ).toBe(true);
    // The hot scenarios compare the cached service with the same (uncached) floor.
    for (const s of result.scenarios.filter(
      (x: { cache: string; name: string }) => x.cache === 'on' && x.name !== 'mixed',
    )) {
      expect(s.floor).not.toBeNull();
    }

    const mixed = result.scenarios.find((s: { name: string }) => s.name === 'mixed');
    expect(mixed.instances).toBe(2);
    expect(mixed.staleness_ms).toEqual({ writing: expect.any(Number), other: expect.any(Number) });
    expect(mixed.writes.count).toBeGreaterThan(0);
    expect(mixed.writes.errors).toBe(0);
    for (const instance of [mixed.staleness.writing, mixed.staleness.other]) {
      // Every write showed on both instances (how soon is a figure, not asserted here).
      expect(instance.writes_seen).toBe(mixed.writes.count);
      expect(instance.writes_unseen).toBe(0);
      expect(instance.read_errors).toBe(0);
    }

    const workers = result.scenarios.find((s: { name: string }) => s.name === 'workers');
    expect(workers.service).toEqual(workers.by_workers['2']);
    expect(workers.workers_ratio).toBeGreaterThan(0);
    expect(run.stdout).toMatch(/^\| workers \| off \| service, WORKERS=2 \|/m);
    expect(run.stdout).toMatch(/staleness on the other instance: +max [\d.]+ ms/);

    // import: 500 items × 2 SKUs into an empty catalogue, then again (the bench fails unless every item
    // was created, then unchanged), reads meanwhile and at rest; export of that catalogue.
    const imported = result.scenarios.find((s: { name: string }) => s.name === 'import');
    expect(imported).toMatchObject({
      kind: 'transfer',
      database: 'postgres',
      items: 500,
      rows: 1000,
      counts: { created: 500, updated: 0, unchanged: 0, failed: 0 },
      reimport_counts: { created: 0, updated: 0, unchanged: 500, failed: 0 },
    });
    for (const key of ['seconds', 'reimport_seconds', 'items_per_s', 'rss_peak_mb']) {
      expect(imported[key], key).toBeGreaterThan(0);
    }
    expect(imported.detail_p99_idle_ms).toEqual(expect.any(Number));
    expect(imported.progress_max_gap_s).toEqual(expect.any(Number));
    expect(imported.rss_total_peak_mb).toBeGreaterThan(imported.rss_peak_mb);
    // The import runs in the background process, whose memory is reported apart from the serving worker's.
    expect(imported.rss_background_peak_mb).toBeGreaterThan(0);
    for (const reads of [imported.detail_idle, imported.detail_during].filter(Boolean)) {
      expect(reads.rps).toBeGreaterThan(0);
      expect(reads.errors).toBe(0);
      expect(reads.non_2xx).toBe(0);
    }
    expect(run.stdout).toMatch(/^\| import \| postgres \| 500 \| 1000 \|/m);
    const exported = result.scenarios.find((s: { name: string }) => s.name === 'export');
    if (exportRouteBuilt) {
      expect(exported).toMatchObject({ kind: 'transfer', items: 500, rows: 1000 });
      expect(exported.bytes).toBeGreaterThan(0);
      expect(result.skipped).toBeUndefined();
    } else {
      expect(result.skipped).toEqual([{ name: 'export', reason: expect.stringContaining('404') }]);
    }
    // Quick mode leaves out the start-up times and the relevance scores (the suite measures both itself).
    expect(result.startup).toBeUndefined();
    expect(result.relevance).toBeUndefined();
  });
});
