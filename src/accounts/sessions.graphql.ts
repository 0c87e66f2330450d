/** Session lists for customers and admins (contract §10.4): one `Session` type for both. */
import { builder } from '../graphql/builder.ts';
import { adminIdInput, customerIdInput, sessionIdInput } from './admin-account.schema.ts';
import {
  adminSessions,
  mySessions,
  revokeAdminSession,
  revokeAllSessionsOfAdmin,
  revokeAllSessionsOfCustomer,
  revokeMyOtherSessions,
  revokeMySession,
  type SessionView,
} from './session-lists.service.ts';

const SessionType = builder.objectRef<SessionView>('Session').implement({
  description: 'One login of an account (a device or a browser); its tokens carry `id` as `sid`.',
  fields: (t) => ({
    id: t.exposeID('id'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    lastUsedAt: t.expose('lastUsedAt', { type: 'DateTime', description: 'Refreshed at most once a minute.' }),
    ip: t.exposeString('ip', { nullable: true }),
    userAgent: t.exposeString('userAgent', { nullable: true, description: 'The first 200 characters.' }),
    current: t.exposeBoolean('current', { description: "True for the session of this request's token." }),
  }),
});

builder.queryFields((t) => ({
  mySessions: t.field({
    type: [SessionType],
    description: "The customer's live sessions, newest first.",
    authScopes: { customer: true },
    resolve: (_root, _args, ctx) => mySessions(ctx),
  }),
  adminSessions: t.field({
    type: [SessionType],
    description: "The calling admin's live sessions, newest first.",
    authScopes: { admin: true },
    resolve: (_root, _args, ctx) => adminSessions(ctx),
  }),
}));

builder.mutationFields((t) => ({
  revokeMySession: t.boolean({
    description: "Ends one of the customer's sessions (its tokens answer TOKEN_REVOKED); another's is NOT_FOUND.",
    authScopes: { customer: true },
    args: t.validate({ id: t.arg.id({ required: true }) }, sessionIdInput),
    resolve: (_root, args, ctx) => revokeMySession(ctx, args.id),
  }),
  revokeMyOtherSessions: t.boolean({
    description: "Ends every session of the customer but this request's.",
    authScopes: { customer: true },
    resolve: (_root, _args, ctx) => revokeMyOtherSessions(ctx),
  }),
  revokeAdminSession: t.boolean({
    description: "Ends one of the calling admin's sessions; another admin's is NOT_FOUND.",
    authScopes: { admin: true },
    args: t.validate({ id: t.arg.id({ required: true }) }, sessionIdInput),
    resolve: (_root, args, ctx) => revokeAdminSession(ctx, args.id),
  }),
  revokeAllSessionsOfAdmin: t.boolean({
    description: 'Ends every session of an admin.',
    authScopes: { owner: true },
    args: t.validate({ adminId: t.arg.int({ required: true }) }, adminIdInput),
    resolve: (_root, args, ctx) => revokeAllSessionsOfAdmin(ctx, args.adminId),
  }),
  revokeAllSessionsOfCustomer: t.boolean({
    description: 'Ends every session of a customer.',
    authScopes: { customersWrite: true },
    args: t.validate({ customerId: t.arg.int({ required: true }) }, customerIdInput),
    resolve: (_root, args, ctx) => revokeAllSessionsOfCustomer(ctx, args.customerId),
  }),
}));
