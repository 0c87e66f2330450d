/**
 * The audiences a field can declare (`authScopes: { catalogWrite: true }`), each resolved from the
 * request's Authorization header into one principal — or the coded 401/403 of contract §2. Admin
 * scopes are the permissions of roles.ts (who holds them is that table's business) and an admin's
 * own account. One table, used by the Pothos scope check (before arguments are validated), the REST
 * routes (whose realm is derived from their field's scope) and the docs.
 */
import type { Realm } from '../errors/app-error.ts';
import type { RequestContext } from '../request-context.ts';
import { ADMIN_ROLES, type AdminRole, PERMISSIONS, type Permission } from './roles.ts';

const permit = (permission: Permission) => (ctx: RequestContext) => ctx.auth.permit(permission);

export const SCOPES = {
  customer: (ctx: RequestContext) => ctx.auth.customer(),
  /** A customer token expired by no more than the refresh grace (refreshToken only). */
  customerRefresh: (ctx: RequestContext) => ctx.auth.refreshClaims(),
  /** The caller's own admin account (sessions, turning two-factor login off): any role, not an API key. */
  admin: (ctx: RequestContext) => ctx.auth.adminAccount(),
  /** What an admin may do before ADMIN_REQUIRE_TOTP is satisfied: adminMe, enrolment, own password. */
  adminEnrolling: (ctx: RequestContext) => ctx.auth.adminAccount({ enrolling: true }),
  catalogRead: permit('catalogRead'),
  catalogWrite: permit('catalogWrite'),
  customersRead: permit('customersRead'),
  customersWrite: permit('customersWrite'),
  owner: permit('owner'),
} as const;

export type Scope = keyof typeof SCOPES;

const isPermission = (scope: Scope): scope is Scope & Permission => Object.hasOwn(PERMISSIONS, scope);

/** The token system (`WWW-Authenticate` realm) each scope belongs to. */
export const realmOfScope = (scope: Scope): Realm =>
  scope === 'customer' || scope === 'customerRefresh' ? 'customer' : 'admin';

/** The admin roles that satisfy any of `scopes` (every role for an admin's own account; none for a customer's). */
export function rolesOf(scopes: readonly Scope[]): AdminRole[] {
  const roles = new Set<AdminRole>();
  for (const scope of scopes) {
    if (isPermission(scope)) for (const role of PERMISSIONS[scope]) roles.add(role);
    else if (realmOfScope(scope) === 'admin') for (const role of ADMIN_ROLES) roles.add(role);
  }
  return ADMIN_ROLES.filter((role) => roles.has(role));
}

/** Whether an API key (which has no account of its own) can ever satisfy one of `scopes`. */
export const apiKeysMay = (scopes: readonly Scope[]): boolean => scopes.some(isPermission);

export const isScope = (name: string): name is Scope => Object.hasOwn(SCOPES, name);

/** The scopes a field declares (`authScopes: { owner: true }`), from its Pothos options. */
export function declaredScopes(authScopes: unknown): Scope[] {
  if (!authScopes || typeof authScopes !== 'object') return [];
  return Object.entries(authScopes)
    .filter(([name, on]) => on === true && isScope(name))
    .map(([name]) => name as Scope);
}

/** Resolves when any of `scopes` is satisfied (as Pothos' scope check), else throws the first one's coded error. */
export async function requireScopes(ctx: RequestContext, scopes: readonly Scope[]): Promise<void> {
  let first: unknown;
  for (const scope of scopes) {
    try {
      await SCOPES[scope](ctx);
      return;
    } catch (err) {
      first ??= err;
    }
  }
  if (first) throw first;
}

/** "Roles: owner, catalog_manager." for an operation's description, or nothing for a public one. */
export function rolesSentence(scopes: readonly Scope[]): string | undefined {
  if (scopes.length === 0 || scopes.every((s) => realmOfScope(s) === 'customer')) return undefined;
  const roles = rolesOf(scopes);
  const who = roles.length === ADMIN_ROLES.length ? 'every admin role' : roles.join(', ');
  return apiKeysMay(scopes)
    ? `Roles: ${who} (an admin token or an API key).`
    : `Roles: ${who} (an admin's own token; not an API key).`;
}
