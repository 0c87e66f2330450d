/**
 * The audiences a field can declare (`authScopes: { admin: true }`), each resolved from the request's
 * Authorization header into one principal of that audience — or the coded 401/403 of contract §2.
 * One table, used by the Pothos scope check, the check that runs before arguments are validated,
 * and the REST routes (whose realm is derived from their field's scope).
 */
import type { Realm } from '../errors/app-error.ts';
import type { RequestContext } from '../request-context.ts';

export const SCOPES = {
  customer: (ctx: RequestContext) => ctx.auth.customer(),
  /** A customer token expired by no more than the refresh grace (refreshToken only). */
  customerRefresh: (ctx: RequestContext) => ctx.auth.refreshClaims(),
  admin: (ctx: RequestContext) => ctx.auth.admin(),
} as const;

export type Scope = keyof typeof SCOPES;

/** The token system (`WWW-Authenticate` realm) each scope belongs to. */
export const REALM_OF: Record<Scope, Realm> = { customer: 'customer', customerRefresh: 'customer', admin: 'admin' };

export const isScope = (name: string): name is Scope => Object.hasOwn(SCOPES, name);

/** The scopes a field declares (`authScopes: { admin: true }`), from its Pothos options. */
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
