/**
 * Resolves the request's `Authorization` header into at most one principal of the system a field
 * asks for, once per request. Resolvers never look at tokens: they declare a scope (scopes.ts) and
 * read the principal from here.
 */
import type { Database } from '../db/database.ts';
import { AppError, accountDisabled, type Realm } from '../errors/app-error.ts';
import type { Services } from '../services.ts';
import { assertCurrentToken, loadSession } from './session-guard.ts';
import type { TokenClaims } from './token-system.ts';

export interface CustomerPrincipal {
  customerId: number;
  sessionId: string;
  claims: TokenClaims;
}

export interface AdminPrincipal {
  adminId: number;
  username: string;
  role: string;
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
  #principal?: string;

  private constructor(
    private readonly headers: readonly string[],
    private readonly services: Services,
    private readonly db: Database,
    /** An operator at a shell: trusted, acting for no account. */
    private readonly isOperator: boolean,
  ) {}

  /** The principal behind the request's Authorization headers (none, one, or — refused — several). */
  static fromHeaders(headers: readonly string[], services: Services, db: Database): RequestAuth {
    return new RequestAuth(headers, services, db, false);
  }

  /** The CLI's principal: no token, and no account to act for. */
  static operator(services: Services, db: Database): RequestAuth {
    return new RequestAuth([], services, db, true);
  }

  /** Who a token of this request was verified to be (`customer:7`, `admin:1`), for the request log. */
  get principal(): string | undefined {
    return this.#principal;
  }

  /** The presented bearer token, or UNAUTHENTICATED for `realm` (RFC 6750: no error attribute). */
  token(realm: Realm): string {
    if (this.headers.length > 1) {
      // Proxies and servers disagree on which of several headers wins: none of them does (§7.1).
      throw new AppError('TOKEN_INVALID', 'Send exactly one Authorization header.', { realm, tokenPresented: true });
    }
    const token = bearerToken(this.headers[0]);
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
   * expiry relaxed by the refresh grace. The session rules are the refresh's own (sessions.service.ts).
   */
  refreshClaims(): Promise<TokenClaims> {
    const { tokens, config } = this.services;
    return (this.#refresh ??= tokens.customer
      .verify(this.token('customer'), { acceptExpiredFor: config.jwt.refreshGrace })
      .then((claims) => {
        this.#principal = `customer:${claims.sub}`;
        return claims;
      }));
  }

  /** The enabled admin behind a valid admin token (cached for the request). */
  admin(): Promise<AdminPrincipal> {
    return (this.#admin ??= this.#resolveAdmin());
  }

  /** The admin an account operation acts for; undefined for an operator at the CLI. */
  async actingAdminId(): Promise<number | undefined> {
    return this.isOperator ? undefined : (await this.admin()).adminId;
  }

  async #resolveCustomer(): Promise<CustomerPrincipal> {
    const claims = await this.services.tokens.customer.verify(this.token('customer'));
    const session = await loadSession(this.db.prisma, claims);
    assertCurrentToken(session, claims);
    this.#principal = `customer:${session.customerId}`;
    return { customerId: session.customerId, sessionId: session.id, claims };
  }

  async #resolveAdmin(): Promise<AdminPrincipal> {
    const claims = await this.services.tokens.admin.verify(this.token('admin'));
    // Checked against the account on every request, so disabling an admin takes effect at once.
    const admin = await this.db.prisma.admin.findUnique({
      where: { id: Number(claims.sub) },
      select: { id: true, username: true, role: true, disabled: true },
    });
    if (!admin)
      throw new AppError('TOKEN_INVALID', 'The token names no account.', { realm: 'admin', tokenPresented: true });
    if (admin.disabled) throw accountDisabled();
    this.#principal = `admin:${admin.id}`;
    return { adminId: admin.id, username: admin.username, role: admin.role };
  }
}
