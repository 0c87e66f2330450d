/**
 * `last_used_at` of sessions and API keys (contract §10.4) is refreshed at most once a minute: a
 * request whose record was touched less than a minute ago writes nothing, so a busy client costs no
 * write per request, and the conditional update makes parallel requests write once.
 */
export const LAST_USED_RESOLUTION_MS = 60_000;

export const isStale = (lastUsedAt: Date | null, now = Date.now()): boolean =>
  lastUsedAt === null || now - lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS;

/** Rows last used before this are due a refresh. */
export const staleBefore = (now = Date.now()): Date => new Date(now - LAST_USED_RESOLUTION_MS + 1);
