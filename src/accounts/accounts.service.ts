/**
 * Account management for admins (GraphQL) and operators (the CLI): create customers and admins,
 * disable and re-enable them, set an admin's role. Every change goes through the admin-write helper
 * (one transaction with its audit entry). Disabling a customer revokes every session in that
 * transaction; disabling an admin needs nothing more, because admin tokens are checked against the
 * account on every admin request. The last enabled owner can be neither demoted nor disabled.
 */
import { type Audit, adminWrite, type Tx } from '../audit/admin-write.ts';
import { type AuditRecord, changesBetween } from '../audit/audit-log.ts';
import type { AdminRole } from '../auth/roles.ts';
import { revokeAdminSessions, revokeCustomerSessions } from '../auth/sessions.service.ts';
import { likeLiteral } from '../db/like.ts';
import { isUniqueViolation } from '../db/prisma-errors.ts';
import { type AppError, notFound, validationFailed } from '../errors/app-error.ts';
import type { Admin, Customer, Prisma } from '../generated/prisma/client.ts';
import type { RequestContext } from '../request-context.ts';
import { type Page, pageOf, pageWindow } from '../validation/paging.ts';
import type {
  CreateAdminInput,
  CreateCustomerInput,
  ListCustomersInput,
  SetAdminRoleInput,
  SetDisabledInput,
} from './accounts.schema.ts';

/** A unique-username violation as the field error a client can act on. */
export const usernameTaken = (err: unknown): AppError | undefined =>
  isUniqueViolation(err) ? validationFailed([{ field: 'username', message: 'is already taken' }]) : undefined;

export async function createCustomer(
  ctx: RequestContext,
  { username, password, nickname }: CreateCustomerInput,
): Promise<Customer> {
  const passwordHash = await ctx.services.passwords.hash(password);
  try {
    return await adminWrite(ctx, async (tx, audit) => {
      const customer = await tx.customer.create({ data: { username, passwordHash, nickname: nickname ?? null } });
      audit({
        action: 'customer.create',
        target: { type: 'customer', id: customer.id },
        changes: changesBetween(null, { username, nickname: customer.nickname, password: true }),
      });
      return customer;
    });
  } catch (err) {
    throw usernameTaken(err) ?? err;
  }
}

export async function createAdmin(ctx: RequestContext, { username, password, role }: CreateAdminInput): Promise<Admin> {
  const passwordHash = await ctx.services.passwords.hash(password);
  try {
    return await adminWrite(ctx, async (tx, audit) => {
      const admin = await tx.admin.create({ data: { username, passwordHash, role } });
      audit({
        action: 'admin.create',
        target: { type: 'admin', id: admin.id },
        changes: changesBetween(null, { username, role, password: true }),
      });
      return admin;
    });
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
export function setCustomerDisabled(ctx: RequestContext, { id, disabled }: SetDisabledInput): Promise<Customer> {
  return adminWrite(ctx, async (tx, audit) => {
    const before = await tx.customer.findUnique({ where: { id }, select: { disabled: true } });
    if (!before) throw notFound('customer');
    const customer = await tx.customer.update({ where: { id }, data: { disabled } });
    const revoked = disabled ? await revokeCustomerSessions(tx, id) : 0;
    audit({
      action: disabled ? 'customer.disable' : 'customer.enable',
      target: { type: 'customer', id },
      changes: changesBetween(before, { disabled }),
    });
    if (revoked) ctx.log.info({ customer_id: id, sessions_revoked: revoked }, 'customer sessions revoked');
    return customer;
  });
}

/**
 * Locks the enabled owners' rows for the rest of the transaction and refuses, on `field`, a change
 * that would leave none (contract §10.1). The lock makes two owners demoting each other take turns.
 */
async function keepAnOwner(tx: Tx, id: number, field: 'role' | 'disabled'): Promise<void> {
  const owners = await tx.$queryRaw<{ id: number }[]>`
    SELECT id FROM admins WHERE role = 'owner' AND NOT disabled ORDER BY id FOR UPDATE`;
  if (owners.length === 1 && owners[0]!.id === id) {
    throw validationFailed([{ field, message: 'is the last enabled owner; make another admin owner first' }]);
  }
}

/** Sets one field of an admin and records it (`action`) with its value before and after. */
async function changeAdmin(
  tx: Tx,
  audit: Audit,
  id: number,
  action: AuditRecord['action'],
  data: { role: AdminRole } | { disabled: boolean },
): Promise<Admin> {
  const select = Object.fromEntries(Object.keys(data).map((field) => [field, true]));
  const before = await tx.admin.findUnique({ where: { id }, select });
  if (!before) throw notFound('admin');
  const admin = await tx.admin.update({ where: { id }, data });
  audit({ action, target: { type: 'admin', id }, changes: changesBetween(before, data) });
  return admin;
}

/** Disables or re-enables an admin; not one's own account, nor the last enabled owner. */
export function setAdminDisabled(ctx: RequestContext, { id, disabled }: SetDisabledInput): Promise<Admin> {
  return adminWrite(ctx, async (tx, audit) => {
    if (disabled && id === (await ctx.auth.actingAdminId())) {
      throw validationFailed([{ field: 'id', message: 'you cannot disable your own account' }]);
    }
    if (disabled) await keepAnOwner(tx, id, 'disabled');
    return changeAdmin(tx, audit, id, disabled ? 'admin.disable' : 'admin.enable', { disabled });
  });
}

/** `setAdminRole`: takes effect on the admin's next request (tokens carry no role). */
export function setAdminRole(ctx: RequestContext, { id, role }: SetAdminRoleInput): Promise<Admin> {
  return adminWrite(ctx, async (tx, audit) => {
    if (role !== 'owner') await keepAnOwner(tx, id, 'role');
    return changeAdmin(tx, audit, id, 'admin.role', { role });
  });
}

/**
 * Sets a customer's password (CLI `reset-password`) and revokes every session in the same
 * transaction: whoever held the old password is logged out everywhere.
 */
export async function resetCustomerPassword(ctx: RequestContext, id: number, password: string): Promise<Customer> {
  const passwordHash = await ctx.services.passwords.hash(password);
  return adminWrite(ctx, async (tx, audit) => {
    const updated = await tx.customer.update({ where: { id }, data: { passwordHash } });
    const revoked = await revokeCustomerSessions(tx, id);
    audit({
      action: 'customer.password',
      target: { type: 'customer', id },
      changes: { password: [true, true], revokedSessions: [0, revoked] },
    });
    return updated;
  });
}

/**
 * Sets an admin's password (CLI `reset-password`; the way to recover a lost bootstrap password) and
 * ends every session of the admin in the same transaction, as for a customer.
 */
export async function resetAdminPassword(ctx: RequestContext, id: number, password: string): Promise<Admin> {
  const passwordHash = await ctx.services.passwords.hash(password);
  return adminWrite(ctx, async (tx, audit) => {
    const admin = await tx.admin.update({ where: { id }, data: { passwordHash } });
    const revoked = await revokeAdminSessions(tx, id);
    audit({
      action: 'admin.password',
      target: { type: 'admin', id },
      changes: { password: [true, true], revokedSessions: [0, revoked] },
    });
    return admin;
  });
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

export type { AdminRole };
