/**
 * Resolves the request's `Authorization` header into at most one principal of the system a field
 * asks for, once per request. Resolvers never look at tokens: they declare a scope (see builder.ts)
 * and read the principal from here.
 */
import { AppError, type Realm } from '../errors/app-error.ts';
import type { Prisma } from '../db/database.ts';
import { assertCurrentToken, loadSession } from './customer-session.service.ts';
import type { TokenClaims, TokenSystem } from './token-system.ts';

export interface CustomerPrincipal {
  customerId: number;
  sessionId: string;
  claims: TokenClaims;
}

export interface AdminPrincipal {
  adminId: number;
  username: string;
  role: string;
  claims: TokenClaims;
}

export interface TokenSystems {
  customer: TokenSystem;
  admin: TokenSystem;
}

/**
 * What an `Authorization` header presents: nothing usable (no header, another scheme, an empty
 * credential) or a bearer token, which is then verified — anything malformed is TOKEN_INVALID.
 */
export function bearerToken(header: string | undefined): string | undefined {
  const match = header?.match(/^Bearer(?:[ \t]+(.*))?$/i);
  const token = match?.[1]?.trim();
  return token ? token : undefined;
}

export class RequestAuth {
  #customer?: Promise<CustomerPrincipal>;
  #refresh?: Promise<TokenClaims>;
  #admin?: Promise<AdminPrincipal>;

  constructor(
    private readonly header: string | undefined,
    private readonly tokens: TokenSystems,
    private readonly prisma: Prisma,
    private readonly refreshGraceSeconds: number,
  ) {}

  /** The presented bearer token, or UNAUTHENTICATED for `realm` (RFC 6750: no error attribute). */
  token(realm: Realm): string {
    const token = bearerToken(this.header);
    if (!token) {
      throw new AppError('UNAUTHENTICATED', 'Send `Authorization: Bearer <access token>`.', { realm });
    }
    return token;
  }

  /** The customer behind a valid, current token of a live session (cached for the request). */
  customer(): Promise<CustomerPrincipal> {
    return (this.#customer ??= this.#resolveCustomer());
  }

  /**
   * The claims of a customer token presented for refresh: signature, system and claims checked, and
   * expiry relaxed by the refresh grace. The session rules are the refresh's own (rotateSession).
   */
  refreshClaims(): Promise<TokenClaims> {
    return (this.#refresh ??= this.tokens.customer.verify(this.token('customer'), { acceptExpiredFor: this.refreshGraceSeconds }));
  }

  /** The enabled admin behind a valid admin token (cached for the request). */
  admin(): Promise<AdminPrincipal> {
    return (this.#admin ??= this.#resolveAdmin());
  }

  async #resolveCustomer(): Promise<CustomerPrincipal> {
    const claims = await this.tokens.customer.verify(this.token('customer'));
    const session = await loadSession(this.prisma, claims);
    assertCurrentToken(session, claims);
    return { customerId: session.customerId, sessionId: session.id, claims };
  }

  async #resolveAdmin(): Promise<AdminPrincipal> {
    const claims = await this.tokens.admin.verify(this.token('admin'));
    // Checked against the account on every request, so disabling an admin takes effect at once.
    const admin = await this.prisma.admin.findUnique({
      where: { id: Number(claims.sub) },
      select: { id: true, username: true, role: true, disabled: true },
    });
    if (!admin) throw new AppError('TOKEN_INVALID', 'The token names no account.', { realm: 'admin', tokenPresented: true });
    if (admin.disabled) throw new AppError('ACCOUNT_DISABLED', 'The account is disabled.');
    return { adminId: admin.id, username: admin.username, role: admin.role, claims };
  }
}
