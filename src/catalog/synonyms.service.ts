/**
 * Synonym groups (contract §9.4): written through catalog-write.ts like every catalogue change, so
 * the cached answers and synonym indexes of every instance are dropped (the table's trigger notifies).
 */
import { isRecordMissing } from '../db/prisma-errors.ts';
import { notFound } from '../errors/app-error.ts';
import type { RequestContext } from '../request-context.ts';
import { catalogWrite } from './catalog-write.ts';

export interface SynonymGroupRow {
  id: number;
  terms: string[];
}

const SELECT = { id: true, terms: true } as const;
// Creating and replacing a group are one action to the audit log: `synonym_group.save` (contract §10.2).
const SAVED = { action: 'synonym_group.save', idOf: (g: SynonymGroupRow) => g.id } as const;
const DELETED = { action: 'synonym_group.delete', idOf: (id: number) => id } as const;

export function listSynonymGroups(ctx: RequestContext): Promise<SynonymGroupRow[]> {
  return ctx.db.prisma.synonymGroup.findMany({ select: SELECT, orderBy: { id: 'asc' } });
}

/** Creates a group, or (with `id`) replaces that group's terms. */
export async function saveSynonymGroup(ctx: RequestContext, id: number | undefined, terms: string[]) {
  if (id === undefined) {
    return catalogWrite(ctx, SAVED, (tx) => tx.synonymGroup.create({ data: { terms }, select: SELECT }));
  }
  try {
    return await catalogWrite(ctx, { ...SAVED, id }, (tx) =>
      tx.synonymGroup.update({ where: { id }, data: { terms }, select: SELECT }),
    );
  } catch (err) {
    throw isRecordMissing(err) ? notFound('synonym group') : err;
  }
}

export async function deleteSynonymGroup(ctx: RequestContext, id: number): Promise<true> {
  await catalogWrite(ctx, { ...DELETED, id }, async (tx) => {
    const { count } = await tx.synonymGroup.deleteMany({ where: { id } });
    if (count === 0) throw notFound('synonym group');
    return id;
  });
  return true;
}
