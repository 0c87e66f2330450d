import type { SqlDriver } from '../db/database.ts';

/**
 * What the indexers (documents.ts, spec-summary.ts) run their statements on: a Prisma client or
 * transaction (a catalogue write's), or plain SQL through `indexerSql`.
 */
export interface IndexerSql {
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
  $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number>;
}

/**
 * Plain SQL (`query(text, params)` → rows) for the indexers: for the work outside a catalogue write's
 * transaction — at start-up, without the request statement limit — and the bench's bulk fill. (pg
 * and PGlite read `json` columns and integers as Prisma does.)
 */
export function indexerSql(query: (text: string, params: unknown[]) => Promise<unknown[]>): IndexerSql {
  return {
    $queryRawUnsafe: async <T>(text: string, ...params: unknown[]) => (await query(text, params)) as T,
    $executeRawUnsafe: async (text: string, ...params: unknown[]) => (await query(text, params)).length,
  };
}

/** The indexers over the maintenance connections (start-up, `reindex`): without the request statement limit. */
export const maintenanceIndexerSql = (sql: Pick<SqlDriver, 'queryUnbounded'>): IndexerSql =>
  indexerSql((text, params) => sql.queryUnbounded(text, params));
