/**
 * A circuit breaker for a PostgreSQL that stops answering (contract §7.3, §11). Without it, every
 * request to a silent database waits out the whole statement timeout (5 s) before its 503, and
 * piles onto a pool whose connections are all stuck. Once a statement got no answer in time, or no
 * connection could be had in time, the breaker opens: requests fail at once (503) instead of
 * waiting, while ONE probe at a time — `SELECT 1` on a fresh connection, with a short timeout —
 * checks the database; the first probe that answers closes it, so the service is whole again within
 * a probe interval of the database coming back.
 *
 * Hand-written rather than opossum or cockatiel: those open on an error rate over a window and probe
 * with the next real request (a half-open call), which here would be a request waiting 5 s again;
 * this one opens on the one signal that means "silent" and probes out of band.
 *
 * The embedded database (PGlite) runs in-process and cannot go silent: it has no breaker.
 */
import pg from 'pg';

/** Time between probes while open; also the longest a probe waits for its connection and answer. */
const PROBE_INTERVAL_MS = 500;
const PROBE_TIMEOUT_MS = 1_000;

/** What a request sees while the breaker is open (to-app-error.ts maps it to 503 SERVICE_UNAVAILABLE). */
export class DatabaseSilentError extends Error {
  override name = 'DatabaseSilentError';
  readonly code = 'DATABASE_SILENT';
  constructor() {
    super('The database is not answering; failing fast until a probe gets an answer.');
  }
}

export interface SilenceBreaker {
  /** True while requests should fail at once. */
  readonly open: boolean;
  /** A statement or a connection timed out: open (if not yet) and start probing. */
  trip(): void;
  /** Stops probing (the pool is closing). */
  stop(): void;
}

export function createSilenceBreaker(
  connectionString: string,
  /** Told whenever the breaker opens (true) or closes (false). */
  onChange?: (open: boolean) => void,
): SilenceBreaker {
  let open = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  const probe = async (): Promise<boolean> => {
    const client = new pg.Client({
      connectionString,
      connectionTimeoutMillis: PROBE_TIMEOUT_MS,
      query_timeout: PROBE_TIMEOUT_MS,
    });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.query('SELECT 1');
      return true;
    } catch {
      return false;
    } finally {
      // A silent server never acknowledges the goodbye: do not wait for it.
      client.end().catch(() => {});
      setTimeout(() => client.connection.stream.destroy(), PROBE_TIMEOUT_MS).unref();
    }
  };

  const schedule = () => {
    timer = setTimeout(async () => {
      if (stopped) return;
      if (await probe()) {
        open = false;
        onChange?.(false);
      } else if (!stopped) schedule();
    }, PROBE_INTERVAL_MS);
    timer.unref();
  };

  return {
    get open() {
      return open;
    },
    trip() {
      if (open || stopped) return;
      open = true;
      onChange?.(true);
      schedule();
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
