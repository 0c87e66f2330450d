import type pg from 'pg';

/**
 * Sessions of `client`'s database (other than its own) waiting for a heavyweight lock. The test that
 * holds the lock asks through the same session, inside its open transaction — where PostgreSQL answers
 * pg_stat_activity from a snapshot taken at the transaction's first look. Without clearing it, a first
 * look taken before the waiters arrived was the answer for ever (a CI flake).
 */
export async function lockWaiters(client: pg.Client): Promise<number> {
  await client.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await client.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
  );
  return rows[0]!.n;
}
