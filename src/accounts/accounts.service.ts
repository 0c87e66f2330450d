/**
 * Account management for admins (GraphQL) and operators (the CLI): create customers and admins,
 * disable and re-enable them. Disabling a customer revokes every session in the same transaction;
 * disabling an admin needs nothing more, because admin tokens are checked against the account on
 * every admin request.
 */
import { hashPassword } from '../auth/password.ts';
import { revokeCustomerSessions } from '../auth/customer-session.service.ts';
import { AppError, notFound, validationFailed } from '../errors/app-error.ts';
import { Prisma, type Admin, type Customer } from '../generated/prisma/client.ts';
import type { ServiceContext } from '../graphql/context.ts';
import { parseInput } from '../validation/parse-input.ts';
import { createAdminInput, createCustomerInput, setDisabledInput } from './accounts.schema.ts';

/** Account operations run for an admin (GraphQL) or for an operator (the CLI, no admin). */
export type AccountsContext = ServiceContext;

/** A unique-username violation as the field error a client can act on. */
function usernameTaken(err: unknown): AppError | undefined {
  if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002') {
    return validationFailed([{ field: 'username', message: 'is already taken' }]);
  }
  return undefined;
}

export async function createCustomer(ctx: AccountsContext, input: unknown): Promise<Customer> {
  const { username, password, nickname } = parseInput(createCustomerInput, input);
  const passwordHash = await hashPassword(password);
  try {
    const customer = await ctx.db.prisma.customer.create({ data: { username, passwordHash, nickname: nickname ?? null } });
    ctx.log.info({ customer_id: customer.id, by_admin: ctx.actingAdminId }, 'customer created');
    return customer;
  } catch (err) {
    throw usernameTaken(err) ?? err;
  }
}

export async function createAdmin(ctx: AccountsContext, input: unknown): Promise<Admin> {
  const { username, password } = parseInput(createAdminInput, input);
  const passwordHash = await hashPassword(password);
  try {
    const admin = await ctx.db.prisma.admin.create({ data: { username, passwordHash, role: 'admin' } });
    ctx.log.info({ admin_id: admin.id, by_admin: ctx.actingAdminId }, 'admin created');
    return admin;
  } catch (err) {
    throw usernameTaken(err) ?? err;
  }
}

/** Disables (revoking every session) or re-enables a customer. */
export async function setCustomerDisabled(ctx: AccountsContext, args: unknown): Promise<Customer> {
  const { id, disabled } = parseInput(setDisabledInput, args);
  const customer = await ctx.db.prisma.$transaction(async (tx) => {
    const { count } = await tx.customer.updateMany({ where: { id }, data: { disabled } });
    if (count === 0) throw notFound('customer');
    if (disabled) await revokeCustomerSessions(tx, id);
    return tx.customer.findUniqueOrThrow({ where: { id } });
  });
  ctx.log.info({ customer_id: id, disabled, by_admin: ctx.actingAdminId }, 'customer access changed');
  return customer;
}

/** Disables or re-enables an admin; an admin cannot disable their own account (no self-lockout). */
export async function setAdminDisabled(ctx: AccountsContext, args: unknown): Promise<Admin> {
  const { id, disabled } = parseInput(setDisabledInput, args);
  if (disabled && id === ctx.actingAdminId) {
    throw validationFailed([{ field: 'id', message: 'you cannot disable your own account' }]);
  }
  const { count } = await ctx.db.prisma.admin.updateMany({ where: { id }, data: { disabled } });
  if (count === 0) throw notFound('admin');
  ctx.log.info({ admin_id: id, disabled, by_admin: ctx.actingAdminId }, 'admin access changed');
  return ctx.db.prisma.admin.findUniqueOrThrow({ where: { id } });
}

/** The id of the customer with this (normalised) username, for the CLI. */
export async function customerIdByUsername(ctx: AccountsContext, username: string): Promise<number> {
  const customer = await ctx.db.prisma.customer.findUnique({ where: { username: username.trim().toLowerCase() }, select: { id: true } });
  if (!customer) throw notFound('customer');
  return customer.id;
}

/** The id of the admin with this username, for the CLI. */
export async function adminIdByUsername(ctx: AccountsContext, username: string): Promise<number> {
  const admin = await ctx.db.prisma.admin.findUnique({ where: { username: username.trim() }, select: { id: true } });
  if (!admin) throw notFound('admin');
  return admin.id;
}
