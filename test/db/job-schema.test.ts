/**
 * The job queue's schema is created by our migration 20261204000000_jobs, as pg-boss's own construction
 * plan (the service starts pg-boss with `migrate: false`). This holds the file equal to the installed
 * library's plan, statement for statement, so an upgrade of pg-boss cannot leave the schema behind.
 */
import { readFileSync } from 'node:fs';
import PgBoss from 'pg-boss';
import { describe, expect, it } from 'vitest';
import { migrationsDir } from '../../src/db/migrate.ts';

/** A script's statements without comments, its transaction and its session settings, whitespace folded. */
const statements = (script: string): string[] =>
  script
    .replace(/^\s*--.*$/gm, '')
    .replace(/^\s*(BEGIN|COMMIT);\s*$/gm, '')
    .replace(/^\s*SET LOCAL[^\n]*$/gm, '')
    .replace(/SELECT pg_advisory_xact_lock\([\s\S]*?\);/, '')
    .split(/;\s*(?=\n|$)/)
    .map((s) => s.replace(/\s+/g, ' ').trim())
    .filter((s) => s !== '');

describe('the job queue schema', () => {
  it('when the migration is compared with the installed pg-boss construction plan, then they are the same statements', () => {
    const migration = readFileSync(`${migrationsDir()}20261204000000_jobs/migration.sql`, 'utf8');
    expect(statements(migration)).toEqual(statements(PgBoss.getConstructionPlans('pgboss')));
  });
});
