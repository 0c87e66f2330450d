// The whole suite runs on the embedded database (PGlite); when TEST_DATABASE_URL is set it runs a
// second time on that PostgreSQL server, each test file in a database of its own.
import { defineConfig } from 'vitest/config';

const databases = ['pglite', ...(process.env.TEST_DATABASE_URL ? ['postgres'] : [])];

export default defineConfig({
  // Node loads graphql's CommonJS build (its package has no "exports"); Vite would pick the .mjs one
  // and end up with two copies of graphql. Pin the CommonJS build so tests run what production runs.
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    projects: databases.map((db) => ({
      extends: true,
      test: { name: db, env: { TEST_DB: db } },
    })),
    include: ['test/**/*.test.ts'],
    reporters: ['default', './test/helpers/summary-reporter.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    setupFiles: ['test/helpers/no-outside-network.ts'],
    // A migrated database every file starts from (a PGlite snapshot, a PostgreSQL template).
    globalSetup: ['test/helpers/global-setup.ts'],
  },
});
