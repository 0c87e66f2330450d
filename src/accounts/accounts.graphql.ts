/**
 * The Customer and Admin types, `me` / `adminMe`, the admins' account reads and mutations (contract §5,
 * §8.3). A customer's own operations are in own-account.graphql.ts.
 */
import { ADMIN_ROLES, ROLE_DESCRIPTIONS } from '../auth/roles.ts';
import { builder } from '../graphql/builder.ts';
import { pageType } from '../graphql/page-type.ts';
import { pageSizeCost } from '../validation/paging.ts';
import {
  accountIdInput,
  changePasswordInput,
  createAdminInput,
  createCustomerInput,
  listCustomersInput,
  setAdminRoleInput,
  setDisabledInput,
} from './accounts.schema.ts';
import {
  createAdmin,
  createCustomer,
  listCustomers,
  setAdminDisabled,
  setAdminRole,
  setCustomerDisabled,
} from './accounts.service.ts';
import { changeAdminPassword } from './admin-account.service.ts';

export const AdminRoleType = builder.enumType('AdminRole', {
  description: 'What an admin (or an API key) may do (contract §10.1).',
  values: Object.fromEntries(ADMIN_ROLES.map((role) => [role, { value: role, description: ROLE_DESCRIPTIONS[role] }])),
});

export const CustomerType = builder.prismaObject('Customer', {
  description: 'A storefront account. `username` (an e-mail address) is null for mini-program-only accounts.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    username: t.exposeString('username', { nullable: true }),
    nickname: t.exposeString('nickname', { nullable: true }),
    avatarUrl: t.exposeString('avatarUrl', { nullable: true }),
    // Account administration only (contract §8.3): a customer's own token does not see them.
    disabled: t.exposeBoolean('disabled', { authScopes: { customersRead: true }, description: 'Admin callers only.' }),
    createdAt: t.expose('createdAt', {
      type: 'DateTime',
      authScopes: { customersRead: true },
      description: 'Admin callers only.',
    }),
  }),
});

export const AdminType = builder.prismaObject('Admin', {
  description: 'An administrator account.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    username: t.exposeString('username'),
    role: t.expose('role', { type: AdminRoleType }),
    disabled: t.exposeBoolean('disabled', { authScopes: { adminEnrolling: true }, description: 'Admin callers only.' }),
    createdAt: t.expose('createdAt', {
      type: 'DateTime',
      authScopes: { adminEnrolling: true },
      description: 'Admin callers only.',
    }),
    // The console shows enrol or turn off, and leads an admin through enrolment at sign-in (§15). No
    // scope of their own: adminLogin's answer (no token yet) must carry them, and every other way to
    // an Admin (adminMe, admins, a key's creator) is already an admin's or an owner's.
    totpEnabled: t.boolean({
      select: { totpSecret: true },
      description: 'Two-factor login is on (contract §10.3).',
      resolve: (admin) => admin.totpSecret !== null,
    }),
    totpEnrollmentRequired: t.boolean({
      select: { totpSecret: true },
      description:
        'This server requires two-factor login (ADMIN_REQUIRE_TOTP) and it is not on yet: until confirmTotp, ' +
        "the admin's tokens may only read adminMe, enrol (enrollTotp, confirmTotp) and change the password.",
      resolve: (admin, _args, ctx) => ctx.services.config.adminRequireTotp && admin.totpSecret === null,
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
      role: t.field({ type: AdminRoleType, description: 'Default `viewer`.' }),
    }),
  })
  .validate(createAdminInput);

builder.queryFields((t) => ({
  customers: t.field({
    type: CustomerPageType,
    description:
      'Admin: customers, newest first; `keyword` is a case-insensitive substring of the username or nickname.',
    authScopes: { customersRead: true },
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
    authScopes: { customersRead: true },
    args: t.validate({ id: t.arg.int({ required: true }) }, accountIdInput),
    resolve: (query, _root, args, ctx) => ctx.db.prisma.customer.findUnique({ ...query, where: { id: args.id } }),
  }),
  admins: t.prismaField({
    type: [AdminType],
    description: 'Admin: every administrator account, by id.',
    authScopes: { owner: true },
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
    authScopes: { adminEnrolling: true },
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
    authScopes: { customersWrite: true },
    args: { input: t.arg({ type: CreateCustomerInput, required: true }) },
    resolve: (_root, args, ctx) => createCustomer(ctx, args.input),
  }),
  setCustomerDisabled: t.field({
    type: CustomerType,
    description: 'Admin: disables (revoking every session at once) or re-enables a customer.',
    authScopes: { customersWrite: true },
    args: t.validate(
      { id: t.arg.int({ required: true }), disabled: t.arg.boolean({ required: true }) },
      setDisabledInput,
    ),
    resolve: (_root, args, ctx) => setCustomerDisabled(ctx, args),
  }),
  createAdmin: t.field({
    type: AdminType,
    description: 'Creates another administrator (a `viewer` unless `role` says otherwise).',
    authScopes: { owner: true },
    args: { input: t.arg({ type: CreateAdminInput, required: true }) },
    resolve: (_root, args, ctx) => createAdmin(ctx, args.input),
  }),
  setAdminDisabled: t.field({
    type: AdminType,
    description:
      "Admin: disables or re-enables an administrator; the account's tokens stop working at once. Not one's own.",
    authScopes: { owner: true },
    args: t.validate(
      { id: t.arg.int({ required: true }), disabled: t.arg.boolean({ required: true }) },
      setDisabledInput,
    ),
    resolve: (_root, args, ctx) => setAdminDisabled(ctx, args),
  }),
  setAdminRole: t.field({
    type: AdminType,
    description:
      "Sets an admin's role; it takes effect on their next request. The last enabled owner cannot be demoted " +
      '(VALIDATION_FAILED on `role`).',
    authScopes: { owner: true },
    args: t.validate(
      { id: t.arg.int({ required: true }), role: t.arg({ type: AdminRoleType, required: true }) },
      setAdminRoleInput,
    ),
    resolve: (_root, args, ctx) => setAdminRole(ctx, args),
  }),
  changeAdminPassword: t.boolean({
    description:
      "Changes the calling admin's password; a wrong current password is INVALID_CREDENTIALS (a failed login). " +
      "The admin's other sessions are revoked.",
    authScopes: { adminEnrolling: true },
    args: t.validate(
      { currentPassword: t.arg.string({ required: true }), newPassword: t.arg.string({ required: true }) },
      changePasswordInput,
    ),
    resolve: (_root, args, ctx) => changeAdminPassword(ctx, args),
  }),
}));
