/**
 * `npm run bench -- --quick --webhooks` end to end (issue 38): `mixed`, then `mixed_webhooks` with
 * 3 webhooks on the bench's local receiver. It asserts no timings (figures vary with the machine), but
 * every write must succeed, every event of the run must reach every webhook, signed as an event
 * (`webhook-id`, the body's `seq` and `timestamp`), and the bench's webhooks must be gone afterwards.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { TEST_DB } from '../helpers/test-database.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

describe.runIf(TEST_DB === 'postgres')('npm run bench -- --quick --webhooks', () => {
  it('when run, then mixed and mixed_webhooks are measured, every event reaches every webhook and the webhooks are deleted', {
    timeout: 600_000,
  }, async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'shop-bench-')), 'result.json');
    const server = new URL(process.env.TEST_DATABASE_URL!);
    server.pathname = '/shop_bench_webhooks_quick';
    const run = spawnSync('npm', ['run', 'bench', '--', '--quick', '--webhooks'], {
      cwd: ROOT,
      env: { ...process.env, BENCH_DATABASE_URL: server.toString(), BENCH_RESULTS_FILE: out },
      encoding: 'utf8',
      timeout: 590_000,
    });
    expect(run.status, run.stderr.slice(-3000)).toBe(0);
    const result = JSON.parse(readFileSync(out, 'utf8'));
    expect(result.machine).toMatchObject({ mode: 'webhooks', items: 2_000 });
    expect(result.scenarios.map((s: { name: string }) => s.name)).toEqual(['mixed', 'mixed_webhooks']);
    const [mixed, hooks] = result.scenarios;
    expect(mixed.webhooks).toBeUndefined();
    expect(hooks).toMatchObject({ instances: 2, webhooks: 3, bad_requests: 0 });
    for (const s of [mixed, hooks]) {
      expect(s.writes.count).toBeGreaterThan(0);
      expect(s.writes.errors).toBe(0);
      expect(s.service.errors).toBe(0);
      expect(s.service.non_2xx).toBe(0);
    }
    // One event per write, each delivered to each of the 3 webhooks (drained before the bench ended).
    expect(hooks.events).toBe(hooks.writes.count);
    expect(hooks.attempts_expected).toBe(3 * hooks.events);
    expect(hooks.first_attempts).toBe(hooks.attempts_expected);
    expect(hooks.requests).toBeGreaterThanOrEqual(hooks.first_attempts);
    expect(hooks.drained_ms).toEqual(expect.any(Number));
    for (const key of ['commit_to_attempt_p50_ms', 'commit_to_attempt_p99_ms', 'commit_to_attempt_max_ms']) {
      expect(hooks[key], key).toBeGreaterThanOrEqual(0);
    }
    expect(hooks.commit_to_attempt_p99_ms).toBeLessThanOrEqual(hooks.commit_to_attempt_max_ms);
    // Where the time went: every first attempt's job found, each stage measured.
    expect(hooks.stages.jobs).toBe(hooks.attempts_expected);
    for (const stage of ['dispatch_ms', 'queued_ms', 'attempt_ms']) {
      expect(hooks.stages[stage], stage).toEqual({
        p50: expect.any(Number),
        p99: expect.any(Number),
        max: expect.any(Number),
      });
    }
    expect(hooks.write_p99_ms_without).toBe(mixed.writes.p99_ms);
    expect(hooks.write_p99_ms_with).toBe(hooks.writes.p99_ms);
    expect(hooks.write_latency_ratio).toBeGreaterThan(0);
    expect(run.stdout).toMatch(/^\| mixed_webhooks \| on \| service ×2 instances, 3 webhooks \|/m);
    expect(run.stdout).toMatch(/mixed_webhooks: 3 webhooks .* commit → first attempt p50 [\d.]+ ms, p99 [\d.]+ ms/);

    const client = new pg.Client({ connectionString: server.toString() });
    await client.connect();
    try {
      const { rows } = await client.query(
        "SELECT count(*)::int AS n FROM webhooks WHERE description = 'bench mixed_webhooks'",
      );
      expect(rows[0].n).toBe(0);
    } finally {
      await client.end();
    }
  });
});
