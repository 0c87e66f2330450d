// The whole suite runs on the embedded database (PGlite); when TEST_DATABASE_URL is set it runs a
// second time on that PostgreSQL server, each test file in a database of its own.
import { defineConfig } from 'vitest/config';
import { timeScale } from './test/helpers/time-scale.ts';

const databases = ['pglite', ...(process.env.TEST_DATABASE_URL ? ['postgres'] : [])];

// Files about HTTP, GraphQL, the browser and configuration rather than the database: the second
// database would run the same code paths again, so they run once, on the embedded one.
const DATABASE_AGNOSTIC = [
  'test/architecture.test.ts',
  'test/browser/**',
  'test/config/**',
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
  'test/http/docs.test.ts',
  'test/http/front-page.test.ts',
  'test/observability/compression.test.ts',
  'test/observability/request-log.test.ts',
  'test/search/text.test.ts',
  'test/unit/**',
];

export default defineConfig({
  // Node loads graphql's CommonJS build (its package has no "exports"); Vite would pick the .mjs one
  // and end up with two copies of graphql. Pin the CommonJS build so tests run what production runs.
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    projects: databases.map((db) => ({
      extends: true,
      test: { name: db, env: { TEST_DB: db }, ...(db === 'postgres' ? { exclude: DATABASE_AGNOSTIC } : {}) },
    })),
    include: ['test/**/*.test.ts'],
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
