/**
 * Which items a read shows (contract §12.1). The rule itself lives in the database, written once
 * (`item_visible` in prisma/migrations/20261203000000_item_visibility), whose result every write keeps
 * in `items.visible` and the postings' `visible`; here each read says which items it shows: the
 * public's (the default of every read), or — for admin reads — items of the given statuses.
 */
import type { IndexerSql } from './indexer-sql.ts';
import type { Param } from './keyword-sql.ts';

export type ItemStatusName = 'draft' | 'active' | 'archived';

/** `public`: the items the public sees now; a list of statuses: every item in one of them. */
export type Visibility = 'public' | readonly ItemStatusName[];

export const PUBLIC: Visibility = 'public';
/** Every item, whatever its status and schedule (the admin reads' default). */
export const EVERY_STATUS: Visibility = Object.freeze(['draft', 'active', 'archived'] as const);

export const isPublic = (visibility: Visibility | undefined): boolean => (visibility ?? PUBLIC) === PUBLIC;

/**
 * The condition on item `alias` for `visibility`, or undefined when it shows every item. The public
 * one is the kept flag: a boolean of a row the read visits anyway.
 */
export function visibilitySql(visibility: Visibility | undefined, p: Param, alias = 'i'): string | undefined {
  if (isPublic(visibility)) return `${alias}.visible`;
  const statuses = [...new Set(visibility as readonly ItemStatusName[])];
  if (statuses.length === EVERY_STATUS.length) return undefined;
  return `${alias}.status = ANY(${p(statuses)}::"ItemStatus"[])`;
}

/**
 * Whether each item of `ids` is visible now — the kept flag, read in the caller's transaction (a
 * write compares it before and after, for `item.published` / `item.unpublished`, §14.1).
 */
export async function visibleNow(sql: IndexerSql, ids: number[]): Promise<Map<number, boolean>> {
  if (ids.length === 0) return new Map();
  const rows = await sql.$queryRawUnsafe<Array<{ id: number; visible: boolean }>>(
    'SELECT id, visible FROM items WHERE id = ANY($1::int[])',
    ids,
  );
  return new Map(rows.map((row) => [row.id, row.visible]));
}
