/** The filters of `auditLog` (contract §10.2), with the paging of every list. */
import { z } from 'zod';
import { pageArgs } from '../validation/paging.ts';
import { INT32_MAX, rule, text } from '../validation/rules.ts';

const id = z.number().int().min(1, 'must be a positive integer').max(INT32_MAX, 'is out of range').nullish();
const name = (max: number) =>
  text()
    .trim()
    .max(max, rule(`must be at most ${max} characters`))
    .nullish()
    .transform((v) => v || undefined);

export const auditLogInput = z
  .object({
    ...pageArgs,
    actorType: name(16),
    actorId: id,
    action: name(64),
    targetType: name(32),
    targetId: id,
    from: z.date().nullish(),
    to: z.date().nullish(),
  })
  .refine((a) => !a.from || !a.to || a.from <= a.to, { path: ['from'], message: 'must not be after `to`' });
/** The parsed arguments (GraphQL's typing lets an omitted filter arrive as null). */
export type AuditLogInput = { page: number; limit: number } & {
  [K in Exclude<keyof z.output<typeof auditLogInput>, 'page' | 'limit'>]?: z.output<typeof auditLogInput>[K] | null;
};
