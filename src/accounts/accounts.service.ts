/**
 * Account management for admins (GraphQL) and operators (the CLI): create customers and admins,
 * disable and re-enable them. Disabling a customer revokes every session in the same transaction;
 * disabling an admin needs nothing more, because admin tokens are checked against the account on
 * every admin request.
 */
import { revokeCustomerSessions } from '../auth/sessions.service.ts';
import { likeLiteral } from '../db/like.ts';
import { isUniqueViolation } from '../db/prisma-errors.ts';
import { type AppError, notFound, validationFailed } from '../errors/app-error.ts';
import type { Admin, Customer, Prisma } from '../generated/prisma/client.ts';
import type { RequestContext } from '../request-context.ts';
import { type Page, pageOf, pageWindow } from '../validation/paging.ts';
import type { CreateAdminInput, CreateCustomerInput, ListCustomersInput, SetDisabledInput } from './accounts.schema.ts';

/** A unique-username violation as the field error a client can act on. */
export const usernameTaken = (err: unknown): AppError | undefined =>
  isUniqueViolation(err) ? validationFailed([{ field: 'username', message: 'is already taken' }]) : undefined;

export async function createCustomer(
  ctx: RequestContext,
  { username, password, nickname }: CreateCustomerInput,
): Promise<Customer> {
  const passwordHash = await ctx.services.passwords.hash(password);
  try {
    const customer = await ctx.db.prisma.customer.create({
      data: { username, passwordHash, nickname: nickname ?? null },
    });
    ctx.log.info({ customer_id: customer.id, by_admin: await ctx.auth.actingAdminId() }, 'customer created');
    return customer;
  } catch (err) {
    throw usernameTaken(err) ?? err;
  }
}

export async function createAdmin(ctx: RequestContext, { username, password }: CreateAdminInput): Promise<Admin> {
  const passwordHash = await ctx.services.passwords.hash(password);
  try {
    const admin = await ctx.db.prisma.admin.create({ data: { username, passwordHash, role: 'admin' } });
    ctx.log.info({ admin_id: admin.id, by_admin: await ctx.auth.actingAdminId() }, 'admin created');
    return admin;
  } catch (err) {
    throw usernameTaken(err) ?? err;
  }
}

/** `customers`: newest first; the keyword matches the username or the nickname, `%` and `_` literally. */
export async function listCustomers(
  ctx: RequestContext,
  { page, limit, keyword }: ListCustomersInput,
): Promise<Page<Customer>> {
  // Prisma sends `contains` as ILIKE '%…%' without escaping, so the wildcards are escaped here.
  const literal = keyword && likeLiteral(keyword);
  const where: Prisma.CustomerWhereInput = literal
    ? {
        OR: [
          { username: { contains: literal, mode: 'insensitive' } },
          { nickname: { contains: literal, mode: 'insensitive' } },
        ],
      }
    : {};
  const { offset, limit: take } = pageWindow({ page, limit });
  const [total, items] = await ctx.db.prisma.$transaction([
    ctx.db.prisma.customer.count({ where }),
    ctx.db.prisma.customer.findMany({ where, orderBy: { id: 'desc' }, skip: offset, take }),
  ]);
  return pageOf(items, { page, limit }, total);
}

/** Disables (revoking every session) or re-enables a customer. */
export async function setCustomerDisabled(ctx: RequestContext, { id, disabled }: SetDisabledInput): Promise<Customer> {
  const customer = await ctx.db.prisma.$transaction(async (tx) => {
    const { count } = await tx.customer.updateMany({ where: { id }, data: { disabled } });
    if (count === 0) throw notFound('customer');
    if (disabled) await revokeCustomerSessions(tx, id);
    return tx.customer.findUniqueOrThrow({ where: { id } });
  });
  ctx.log.info({ customer_id: id, disabled, by_admin: await ctx.auth.actingAdminId() }, 'customer access changed');
  return customer;
}

/** Disables or re-enables an admin; an admin cannot disable their own account (no self-lockout). */
export async function setAdminDisabled(ctx: RequestContext, { id, disabled }: SetDisabledInput): Promise<Admin> {
  const actingAdminId = await ctx.auth.actingAdminId();
  if (disabled && id === actingAdminId) {
    throw validationFailed([{ field: 'id', message: 'you cannot disable your own account' }]);
  }
  const { count } = await ctx.db.prisma.admin.updateMany({ where: { id }, data: { disabled } });
  if (count === 0) throw notFound('admin');
  ctx.log.info({ admin_id: id, disabled, by_admin: actingAdminId }, 'admin access changed');
  return ctx.db.prisma.admin.findUniqueOrThrow({ where: { id } });
}

/**
 * Sets a customer's password (CLI `reset-password`) and revokes every session in the same
 * transaction: whoever held the old password is logged out everywhere.
 */
export async function resetCustomerPassword(ctx: RequestContext, id: number, password: string): Promise<Customer> {
  const passwordHash = await ctx.services.passwords.hash(password);
  const customer = await ctx.db.prisma.$transaction(async (tx) => {
    const updated = await tx.customer.update({ where: { id }, data: { passwordHash } });
    await revokeCustomerSessions(tx, id);
    return updated;
  });
  ctx.log.info({ customer_id: id }, 'customer password reset; sessions revoked');
  return customer;
}

/** Sets an admin's password (CLI `reset-password`; the way to recover a lost bootstrap password). */
export async function resetAdminPassword(ctx: RequestContext, id: number, password: string): Promise<Admin> {
  const admin = await ctx.db.prisma.admin.update({
    where: { id },
    data: { passwordHash: await ctx.services.passwords.hash(password) },
  });
  ctx.log.info({ admin_id: id }, 'admin password reset');
  return admin;
}

/** Every admin account, by id (CLI `list-admins`). */
export function listAdmins(ctx: RequestContext): Promise<Admin[]> {
  return ctx.db.prisma.admin.findMany({ orderBy: { id: 'asc' } });
}

/** The id of the customer with this (normalised) username, for the CLI. */
export async function customerIdByUsername(ctx: RequestContext, username: string): Promise<number> {
  const customer = await ctx.db.prisma.customer.findUnique({
    where: { username: username.trim().toLowerCase() },
    select: { id: true },
  });
  if (!customer) throw notFound('customer');
  return customer.id;
}

/** The id of the admin with this username, for the CLI. */
export async function adminIdByUsername(ctx: RequestContext, username: string): Promise<number> {
  const admin = await ctx.db.prisma.admin.findUnique({ where: { username: username.trim() }, select: { id: true } });
  if (!admin) throw notFound('admin');
  return admin.id;
}
