/** The Customer and Admin types, `me` / `adminMe`, and the admins' account mutations (contract §5). */
import { builder } from '../graphql/builder.ts';
import { asAdmin } from '../graphql/context.ts';
import {
  createAdmin,
  createCustomer,
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
  }),
});

export const AdminType = builder.prismaObject('Admin', {
  description: 'An administrator account.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    username: t.exposeString('username'),
    role: t.exposeString('role'),
  }),
});

const CreateCustomerInput = builder.inputType('CreateCustomerInput', {
  fields: (t) => ({
    username: t.string({ required: true, description: 'E-mail address; stored trimmed and lower-cased.' }),
    password: t.string({ required: true, description: '8..1024 characters.' }),
    nickname: t.string({ description: 'Up to 100 characters.' }),
  }),
});

const CreateAdminInput = builder.inputType('CreateAdminInput', {
  fields: (t) => ({
    username: t.string({ required: true, description: '3..64 characters.' }),
    password: t.string({ required: true, description: '8..1024 characters.' }),
  }),
});

builder.queryFields((t) => ({
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
    resolve: async (_root, args, ctx) => createCustomer(await asAdmin(ctx), args.input),
  }),
  setCustomerDisabled: t.field({
    type: CustomerType,
    description: "Admin: disables (revoking every session at once) or re-enables a customer.",
    authScopes: { admin: true },
    args: { id: t.arg.int({ required: true }), disabled: t.arg.boolean({ required: true }) },
    resolve: async (_root, args, ctx) => setCustomerDisabled(await asAdmin(ctx), args),
  }),
  createAdmin: t.field({
    type: AdminType,
    description: 'Admin: creates another administrator.',
    authScopes: { admin: true },
    args: { input: t.arg({ type: CreateAdminInput, required: true }) },
    resolve: async (_root, args, ctx) => createAdmin(await asAdmin(ctx), args.input),
  }),
  setAdminDisabled: t.field({
    type: AdminType,
    description: "Admin: disables or re-enables an administrator; the account's tokens stop working at once. Not one's own.",
    authScopes: { admin: true },
    args: { id: t.arg.int({ required: true }), disabled: t.arg.boolean({ required: true }) },
    resolve: async (_root, args, ctx) => setAdminDisabled(await asAdmin(ctx), args),
  }),
}));
