// The whole suite runs on the embedded database (PGlite); when TEST_DATABASE_URL is set it runs a
// second time on that PostgreSQL server, each test file in a database of its own.
import { defineConfig } from 'vitest/config';
import { timeScale } from './test/helpers/time-scale.ts';

// Files about HTTP, GraphQL, the browser and configuration rather than the database: the second
// database would run the same code paths again, so they run once, on the embedded one.
const DATABASE_AGNOSTIC = [
  'test/architecture.test.ts',
  'test/browser/**',
  'test/config/**',
  'test/console/**',
  'test/graphql/**',
  'test/auth/concurrency-limit.test.ts',
  'test/auth/password-cost.test.ts',
  'test/faults/database-errors.test.ts',
  'test/hardening/browser-access.test.ts',
  'test/hardening/graphql-limits.test.ts',
  'test/hardening/http-edges.test.ts',
  'test/hardening/keep-alive.test.ts',
  'test/hardening/production-edges.test.ts',
  'test/hardening/representations.test.ts',
  'test/hostile/http-framing.test.ts',
  'test/http/console.test.ts',
  'test/http/docs.test.ts',
  'test/http/front-page.test.ts',
  'test/observability/compression.test.ts',
  'test/observability/request-log.test.ts',
  'test/search/text.test.ts',
  'test/unit/**',
];

// Files that speak HTTP about hostile input and errors run against the bundle that `npm start` runs
// (the `bundle` project: the embedded database, the app from dist/app-kit.js — test/helpers/app-kit.ts),
// so a difference between the build and the source cannot hide; PostgreSQL runs them from the source.
const BUNDLE = [
  'test/hostile/**/*.test.ts',
  'test/http/console.test.ts',
  'test/http/errors.test.ts',
  'test/hardening/hostile-strings.test.ts',
  'test/hardening/http-edges.test.ts',
];

const ALL = ['test/**/*.test.ts'];
// (`include` is given per project, not at the root: a project's list would be added to the root's.)
const projects = [
  { name: 'pglite', include: ALL, exclude: BUNDLE },
  { name: 'bundle', include: BUNDLE, env: { TEST_DB: 'pglite', TEST_APP: 'dist' } },
  ...(process.env.TEST_DATABASE_URL ? [{ name: 'postgres', include: ALL, exclude: DATABASE_AGNOSTIC }] : []),
];

export default defineConfig({
  // Node loads graphql's CommonJS build (its package has no "exports"); Vite would pick the .mjs one
  // and end up with two copies of graphql. Pin the CommonJS build so tests run what production runs.
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    projects: projects.map(({ name, include, exclude, env }) => ({
      extends: true,
      test: {
        name,
        env: env ?? { TEST_DB: name },
        include,
        ...(exclude ? { exclude } : {}),
      },
    })),
    reporters: ['default', './test/helpers/summary-reporter.ts'],
    // Longer on a busy machine (test/helpers/time-scale.ts): slow is not broken.
    testTimeout: 30_000 * timeScale(),
    hookTimeout: 60_000 * timeScale(),
    pool: 'forks',
    maxWorkers: 2,
    // Files share a worker's modules instead of importing the app again each (the app's import is
    // ~2 s of each file otherwise; measured: test/catalog + test/auth 89 s → 47 s). Nothing in the
    // app keeps state in a module that a test could leave behind: apps, databases and metrics are
    // made per test app.
    isolate: false,
    // Each file's temporary directories removed when it is done (temp-dirs.ts).
    setupFiles: ['test/helpers/no-outside-network.ts', 'test/helpers/temp-dirs.ts'],
    // A migrated database every file starts from (a PGlite snapshot, a PostgreSQL template).
    globalSetup: ['test/helpers/global-setup.ts'],
  },
});
