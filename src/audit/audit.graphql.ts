/** `auditLog` (owner) and the AuditEntry type (contract §10.2). */
import type { AuditEntry } from '../generated/prisma/client.ts';
import { builder } from '../graphql/builder.ts';
import { pageType } from '../graphql/page-type.ts';
import { pageSizeCost } from '../validation/paging.ts';
import { auditLogInput } from './audit.schema.ts';
import { readAuditLog } from './audit.service.ts';

/** Who acted, as the audit log and the event log (§14.1) both name them. */
export type ActorFields = Pick<AuditEntry, 'actorType' | 'actorId' | 'actorName'>;

export const AuditActorType = builder.objectRef<ActorFields>('AuditActor').implement({
  description: 'Who acted: an admin, an API key, an operator at the CLI, or anonymous (a failed login).',
  fields: (t) => ({
    type: t.string({
      description:
        '`admin`, `api_key`, `cli`, `anonymous` (a failed login) or `system` (the service itself: a webhook disabled after 5 days of failures).',
      resolve: (e) => e.actorType,
    }),
    id: t.int({ nullable: true, resolve: (e) => e.actorId }),
    name: t.string({
      nullable: true,
      description: "The admin's username or the key's name.",
      resolve: (e) => e.actorName,
    }),
  }),
});

const AuditTargetType = builder.objectRef<AuditEntry>('AuditTarget').implement({
  description: 'What was acted on.',
  fields: (t) => ({
    type: t.string({
      description: '`item`, `category`, `customer`, `admin`, `api_key`, `synonym_group` or `webhook`.',
      resolve: (e) => e.targetType,
    }),
    id: t.int({ nullable: true, resolve: (e) => e.targetId }),
  }),
});

const AuditEntryType = builder.objectRef<AuditEntry>('AuditEntry').implement({
  description: 'One change (or admin login) as the audit log keeps it, append-only.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    at: t.expose('at', { type: 'DateTime' }),
    actor: t.field({ type: AuditActorType, resolve: (e) => e }),
    action: t.exposeString('action', { description: '`<target type>.<verb>`, e.g. `item.update`, `admin.login`.' }),
    target: t.field({ type: AuditTargetType, resolve: (e) => e }),
    changes: t.field({
      type: 'JSON',
      description: '`{ field: [before, after] }`; secrets appear as `"[redacted]"`.',
      resolve: (e) => e.changes,
    }),
    requestId: t.exposeString('requestId', { nullable: true }),
    ip: t.exposeString('ip', { nullable: true }),
  }),
});

const AuditPageType = pageType({
  name: 'AuditPage',
  description: 'One page of the audit log, newest first.',
  of: AuditEntryType,
  list: 'entries',
  total: 'Entries matching the filters, on every page.',
});

builder.queryField('auditLog', (t) =>
  t.field({
    type: AuditPageType,
    description: 'The audit log, newest first (`at`, then `id`); every filter is optional.',
    authScopes: { owner: true },
    complexity: (args) => ({ field: 1, multiplier: pageSizeCost(args.limit) }),
    args: t.validate(
      {
        actorType: t.arg.string(),
        actorId: t.arg.int(),
        action: t.arg.string({ description: 'Exact, e.g. `item.update`.' }),
        targetType: t.arg.string(),
        targetId: t.arg.int(),
        from: t.arg({ type: 'DateTime', description: 'Inclusive.' }),
        to: t.arg({ type: 'DateTime', description: 'Inclusive.' }),
        page: t.arg.int({ description: '>= 1, default 1.' }),
        limit: t.arg.int({ description: '1..100, default 20.' }),
      },
      auditLogInput,
    ),
    resolve: (_root, args, ctx) => readAuditLog(ctx, args),
  }),
);
