/**
 * The Customer and Admin types, `me` / `adminMe`, the admins' account reads and mutations (contract §5,
 * §8.3). A customer's own operations are in own-account.graphql.ts.
 */
import { builder } from '../graphql/builder.ts';
import { pageType } from '../graphql/page-type.ts';
import { pageSizeCost } from '../validation/paging.ts';
import {
  accountIdInput,
  createAdminInput,
  createCustomerInput,
  listCustomersInput,
  setDisabledInput,
} from './accounts.schema.ts';
import {
  createAdmin,
  createCustomer,
  listCustomers,
  setAdminDisabled,
  setCustomerDisabled,
} from './accounts.service.ts';

export const CustomerType = builder.prismaObject('Customer', {
  description: 'A storefront account. `username` (an e-mail address) is null for mini-program-only accounts.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    username: t.exposeString('username', { nullable: true }),
    nickname: t.exposeString('nickname', { nullable: true }),
    avatarUrl: t.exposeString('avatarUrl', { nullable: true }),
    // Account administration only (contract §8.3): a customer's own token does not see them.
    disabled: t.exposeBoolean('disabled', { authScopes: { admin: true }, description: 'Admin callers only.' }),
    createdAt: t.expose('createdAt', {
      type: 'DateTime',
      authScopes: { admin: true },
      description: 'Admin callers only.',
    }),
  }),
});

export const AdminType = builder.prismaObject('Admin', {
  description: 'An administrator account.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    username: t.exposeString('username'),
    role: t.exposeString('role'),
    disabled: t.exposeBoolean('disabled', { authScopes: { admin: true }, description: 'Admin callers only.' }),
    createdAt: t.expose('createdAt', {
      type: 'DateTime',
      authScopes: { admin: true },
      description: 'Admin callers only.',
    }),
  }),
});

const CustomerPageType = pageType({
  name: 'CustomerPage',
  description: 'One page of customers, newest first.',
  of: CustomerType,
  total: 'Customers matching the keyword, on every page.',
});

const CreateCustomerInput = builder
  .inputType('CreateCustomerInput', {
    fields: (t) => ({
      username: t.string({ required: true, description: 'E-mail address; stored trimmed and lower-cased.' }),
      password: t.string({ required: true, description: '8..1024 characters.' }),
      nickname: t.string({ description: 'Up to 100 characters.' }),
    }),
  })
  .validate(createCustomerInput);

const CreateAdminInput = builder
  .inputType('CreateAdminInput', {
    fields: (t) => ({
      username: t.string({ required: true, description: '3..64 characters.' }),
      password: t.string({ required: true, description: '8..1024 characters.' }),
    }),
  })
  .validate(createAdminInput);

builder.queryFields((t) => ({
  customers: t.field({
    type: CustomerPageType,
    description:
      'Admin: customers, newest first; `keyword` is a case-insensitive substring of the username or nickname.',
    authScopes: { admin: true },
    // Like `items`: what is selected of each customer costs `limit` times (contract §7.2).
    complexity: (args) => ({ field: 1, multiplier: pageSizeCost(args.limit) }),
    args: t.validate(
      {
        page: t.arg.int({ description: '>= 1, default 1.' }),
        limit: t.arg.int({ description: '1..100, default 20.' }),
        keyword: t.arg.string({ description: 'Trimmed, at most 100 characters; `%` and `_` are literal.' }),
      },
      listCustomersInput,
    ),
    resolve: (_root, args, ctx) => listCustomers(ctx, args),
  }),
  customer: t.prismaField({
    type: CustomerType,
    nullable: true,
    description: 'Admin: one customer, or null when there is no such customer.',
    authScopes: { admin: true },
    args: t.validate({ id: t.arg.int({ required: true }) }, accountIdInput),
    resolve: (query, _root, args, ctx) => ctx.db.prisma.customer.findUnique({ ...query, where: { id: args.id } }),
  }),
  admins: t.prismaField({
    type: [AdminType],
    description: 'Admin: every administrator account, by id.',
    authScopes: { admin: true },
    resolve: (query, _root, _args, ctx) => ctx.db.prisma.admin.findMany({ ...query, orderBy: { id: 'asc' } }),
  }),
  me: t.prismaField({
    type: CustomerType,
    nullable: true,
    description: 'The customer the (customer) access token belongs to.',
    authScopes: { customer: true },
    resolve: async (query, _root, _args, ctx) => {
      const { customerId } = await ctx.auth.customer();
      return ctx.db.prisma.customer.findUnique({ ...query, where: { id: customerId } });
    },
  }),
  adminMe: t.prismaField({
    type: AdminType,
    nullable: true,
    description: 'The administrator the (admin) access token belongs to.',
    authScopes: { admin: true },
    resolve: async (query, _root, _args, ctx) => {
      const { adminId } = await ctx.auth.admin();
      return ctx.db.prisma.admin.findUnique({ ...query, where: { id: adminId } });
    },
  }),
}));

builder.mutationFields((t) => ({
  createCustomer: t.field({
    type: CustomerType,
    description: 'Admin: creates an e-mail customer account.',
    authScopes: { admin: true },
    args: { input: t.arg({ type: CreateCustomerInput, required: true }) },
    resolve: (_root, args, ctx) => createCustomer(ctx, args.input),
  }),
  setCustomerDisabled: t.field({
    type: CustomerType,
    description: 'Admin: disables (revoking every session at once) or re-enables a customer.',
    authScopes: { admin: true },
    args: t.validate(
      { id: t.arg.int({ required: true }), disabled: t.arg.boolean({ required: true }) },
      setDisabledInput,
    ),
    resolve: (_root, args, ctx) => setCustomerDisabled(ctx, args),
  }),
  createAdmin: t.field({
    type: AdminType,
    description: 'Admin: creates another administrator.',
    authScopes: { admin: true },
    args: { input: t.arg({ type: CreateAdminInput, required: true }) },
    resolve: (_root, args, ctx) => createAdmin(ctx, args.input),
  }),
  setAdminDisabled: t.field({
    type: AdminType,
    description:
      "Admin: disables or re-enables an administrator; the account's tokens stop working at once. Not one's own.",
    authScopes: { admin: true },
    args: t.validate(
      { id: t.arg.int({ required: true }), disabled: t.arg.boolean({ required: true }) },
      setDisabledInput,
    ),
    resolve: (_root, args, ctx) => setAdminDisabled(ctx, args),
  }),
}));
