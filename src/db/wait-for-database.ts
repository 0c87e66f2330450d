/**
 * Start-up against a PostgreSQL that does not answer yet — a container started before its database:
 * the first statement is retried for DATABASE_CONNECT_TIMEOUT, with a line every few seconds saying
 * what is awaited, then start-up stops with one line naming DATABASE_URL. What waiting cannot fix (a
 * wrong password, a database that does not exist) stops it at once. The URL's password is never shown.
 */

import { StartupError } from '../errors/startup-error.ts';
import type { Logger } from '../logger.ts';
import type { SqlReader } from './database.ts';

const RETRY_EVERY_MS = 500;
const PROGRESS_EVERY_MS = 5_000;
/** The server is there but busy starting or full: worth waiting for, unlike its other refusals. */
const TRANSIENT_SERVER_CODES = new Set(['57P03', '53300']);

export interface WaitOptions {
  url: string;
  timeoutMs: number;
  log: Logger;
}

/** `url` with its password replaced by `***`, as it may be shown. */
export function maskedUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(not a valid URL)';
  }
}

/** An answer from PostgreSQL itself (pg's DatabaseError carries a severity), rather than the network's. */
const isServerRefusal = (err: unknown) =>
  typeof err === 'object' &&
  err !== null &&
  'severity' in err &&
  !TRANSIENT_SERVER_CODES.has(String((err as { code?: unknown }).code));

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Resolves once `db` answers `SELECT 1`; throws a StartupError when it will not (in time). */
export async function waitForDatabase(db: SqlReader, { url, timeoutMs, log }: WaitOptions): Promise<void> {
  const shown = `DATABASE_URL=${maskedUrl(url)}`;
  const password = (() => {
    try {
      return decodeURIComponent(new URL(url).password);
    } catch {
      return '';
    }
  })();
  // An error's text may quote what it was given; never the password.
  const describe = (err: unknown) => {
    const text = err instanceof Error ? err.message : String(err);
    return password ? text.split(password).join('***') : text;
  };
  const started = performance.now();
  let nextProgress = 0;
  for (;;) {
    const waited = performance.now() - started;
    try {
      await db.query('SELECT 1');
      if (nextProgress > 0) log.info(`the database at ${shown} answers after ${Math.round(waited / 1000)} s`);
      return;
    } catch (err) {
      if (isServerRefusal(err)) {
        throw new StartupError(`the database at ${shown} refused the connection: ${describe(err)} — fix DATABASE_URL`);
      }
      const elapsed = performance.now() - started;
      if (elapsed >= timeoutMs) {
        throw new StartupError(
          `the database at ${shown} did not answer within ${Math.round(timeoutMs / 1000)} s (${describe(err)}) — ` +
            'start it or fix DATABASE_URL; DATABASE_CONNECT_TIMEOUT sets how long to wait (ms)',
        );
      }
      if (elapsed >= nextProgress) {
        log.warn(
          `waiting for the database at ${shown}: ${describe(err)} — ` +
            `${Math.round(elapsed / 1000)} s of ${Math.round(timeoutMs / 1000)} s`,
        );
        nextProgress = elapsed + PROGRESS_EVERY_MS;
      }
      await sleep(Math.min(RETRY_EVERY_MS, Math.max(0, timeoutMs - elapsed)));
    }
  }
}
