/** Reading the audit log (contract §10.2): newest first, filtered, paged as every list. */
import type { AuditEntry, Prisma } from '../generated/prisma/client.ts';
import type { RequestContext } from '../request-context.ts';
import { type Page, pageOf, pageWindow } from '../validation/paging.ts';
import type { AuditLogInput } from './audit.schema.ts';

export async function readAuditLog(ctx: RequestContext, input: AuditLogInput): Promise<Page<AuditEntry>> {
  const where: Prisma.AuditEntryWhereInput = {
    actorType: input.actorType ?? undefined,
    actorId: input.actorId ?? undefined,
    action: input.action ?? undefined,
    targetType: input.targetType ?? undefined,
    targetId: input.targetId ?? undefined,
    at: { gte: input.from ?? undefined, lte: input.to ?? undefined },
  };
  const { offset, limit } = pageWindow(input);
  const { prisma } = ctx.db;
  const [total, entries] = await prisma.$transaction([
    prisma.auditEntry.count({ where }),
    prisma.auditEntry.findMany({ where, orderBy: [{ at: 'desc' }, { id: 'desc' }], skip: offset, take: limit }),
  ]);
  return pageOf(entries, input, total);
}
