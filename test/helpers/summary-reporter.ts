// Prints one plain closing line ("Tests: N passed, N failed, N skipped") after vitest's own summary,
// per database project too, so CI logs state the counts in a form any tool can read. Skipped tests
// are listed by suite: they are skipped on purpose (a suite for the other database, or one that
// needs Redis when REDIS_TEST_URL is unset), and the list says which.
import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';
import { BROWSER_SKIPPED_LINE, skipBrowserTests } from './browser-availability.ts';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const perProject = new Map<string, { passed: number; failed: number; skipped: number }>();
    /** project → "file › suite" → skipped tests. */
    const skippedSuites = new Map<string, Map<string, number>>();
    const total = { passed: 0, failed: 0, skipped: 0 };
    for (const mod of modules) {
      const name = mod.project.name || 'default';
      const counts = perProject.get(name) ?? { passed: 0, failed: 0, skipped: 0 };
      perProject.set(name, counts);
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        const key = state === 'passed' ? 'passed' : state === 'failed' ? 'failed' : 'skipped';
        counts[key]++;
        total[key]++;
        if (key === 'skipped') {
          const suites = skippedSuites.get(name) ?? new Map<string, number>();
          skippedSuites.set(name, suites);
          const where = `${relative(process.cwd(), test.module.moduleId)} › ${test.fullName.split(' > ')[0]}`;
          suites.set(where, (suites.get(where) ?? 0) + 1);
        }
      }
      // A file that failed to load, or whose hook failed, may have no failed test but must count as a failure.
      if (mod.state() === 'failed' && ![...mod.children.allTests()].some((t) => t.result().state === 'failed')) {
        counts.failed++;
        total.failed++;
      }
    }
    const line = (c: typeof total) => `${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped`;
    for (const [name, counts] of perProject) {
      process.stdout.write(`  ${name}: ${line(counts)}\n`);
      const suites = skippedSuites.get(name);
      if (!suites) continue;
      process.stdout.write(
        `    skipped on purpose on ${name} (other database only, no Redis / PostgreSQL configured, or no browser):\n`,
      );
      for (const [where, n] of suites) process.stdout.write(`      ${where} (${n})\n`);
    }
    if (skipBrowserTests()) process.stdout.write(`${BROWSER_SKIPPED_LINE}\n`);
    process.stdout.write(`Tests: ${line(total)}\n`);
  }
}
