/**
 * Resolves the request's `Authorization` header into at most one principal of the system a field
 * asks for, once per request. Resolvers never look at tokens: they declare a scope (scopes.ts) and
 * read the principal from here.
 */
import type { Database } from '../db/database.ts';
import { AppError, accountDisabled, type Realm } from '../errors/app-error.ts';
import type { Services } from '../services.ts';
import { apiKeyMatches, apiKeyPrefix, looksLikeApiKey } from './api-key-secret.ts';
import { isStale, staleBefore } from './last-used.ts';
import { type AdminRole, forbidden, mayDo, type Permission } from './roles.ts';
import { assertCurrentToken, loadSession, tokenError } from './session-guard.ts';
import type { TokenClaims } from './token-system.ts';

export interface CustomerPrincipal {
  customerId: number;
  sessionId: string;
  claims: TokenClaims;
}

/** Who did something, as the audit log names them (contract §10.2). */
export interface Actor {
  type: 'admin' | 'api_key' | 'cli' | 'anonymous';
  id: number | null;
  name: string | null;
}

/** How logs, the request line and per-actor keys name an actor: `admin:1`, `api_key:3`, `cli:cli`. */
export const actorLabel = (actor: Actor): string => `${actor.type}:${actor.id ?? actor.name}`;

/** An admin token's account, or an API key acting with its role (contract §10.5). */
export interface AdminPrincipal {
  actor: Actor & { type: 'admin' | 'api_key'; id: number; name: string };
  role: AdminRole;
  /** The admin's account and session; absent for an API key, which has neither. */
  adminId?: number;
  sessionId?: string;
  /** Two-factor login is on for the admin (always true for a key: ADMIN_REQUIRE_TOTP is about people). */
  totpOn: boolean;
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

  /** The enabled admin behind a valid admin token, or a live API key (cached for the request). */
  admin(): Promise<AdminPrincipal> {
    return (this.#admin ??= this.#resolveAdmin());
  }

  /**
   * An admin operation needing `permission` (roles.ts): the caller's role must hold it, and an admin
   * whom ADMIN_REQUIRE_TOTP concerns must have two-factor login on. FORBIDDEN otherwise.
   */
  async permit(permission: Permission): Promise<AdminPrincipal> {
    const principal = await this.admin();
    if (!mayDo(principal.role, permission)) throw forbidden(permission, principal.role);
    this.#assertTotpRequirement(principal);
    return principal;
  }

  /**
   * An admin's own account (adminMe, password, two-factor login, sessions): a person's token, never an
   * API key. `enrolling` admits an admin still to turn on two-factor login where it is required.
   */
  async adminAccount({ enrolling = false } = {}): Promise<AdminPrincipal & { adminId: number }> {
    const principal = await this.admin();
    if (principal.adminId === undefined) {
      throw new AppError('FORBIDDEN', "An API key has no account of its own: this needs an admin's token.");
    }
    if (!enrolling) this.#assertTotpRequirement(principal);
    return principal as AdminPrincipal & { adminId: number };
  }

  /** Who acts, for the audit log: the admin or API key of the request, or the operator at the CLI. */
  async actor(): Promise<Actor> {
    if (this.isOperator) return { type: 'cli', id: null, name: 'cli' };
    return (await this.admin()).actor;
  }

  /** The admin an account operation acts for; undefined for an operator at the CLI or an API key. */
  async actingAdminId(): Promise<number | undefined> {
    return this.isOperator ? undefined : (await this.admin()).adminId;
  }

  #assertTotpRequirement(principal: AdminPrincipal): void {
    if (this.services.config.adminRequireTotp && !principal.totpOn) {
      throw new AppError(
        'FORBIDDEN',
        'This server requires two-factor login: turn it on with enrollTotp and confirmTotp first.',
      );
    }
  }

  async #resolveCustomer(): Promise<CustomerPrincipal> {
    const claims = await this.services.tokens.customer.verify(this.token('customer'));
    const session = await loadSession(this.db.prisma, claims);
    assertCurrentToken(session, claims);
    if (isStale(session.lastUsedAt)) {
      await this.db.prisma.customerSession.updateMany({
        where: { id: session.id, lastUsedAt: { lt: staleBefore() } },
        data: { lastUsedAt: new Date() },
      });
    }
    this.#principal = `customer:${session.customerId}`;
    return { customerId: session.customerId, sessionId: session.id, claims };
  }

  async #resolveAdmin(): Promise<AdminPrincipal> {
    const credential = this.token('admin');
    const principal = looksLikeApiKey(credential)
      ? await this.#resolveApiKey(credential)
      : await this.#resolveAdminToken(credential);
    this.#principal = actorLabel(principal.actor);
    return principal;
  }

  async #resolveAdminToken(token: string): Promise<AdminPrincipal> {
    const claims = await this.services.tokens.admin.verify(token);
    // One statement: the session and its account, checked on every request, so revoking a session
    // or disabling an admin takes effect at once. (Prisma would read the relation in a second one.)
    const [session] = await this.db.prisma.$queryRaw<AdminSessionRow[]>`
      SELECT s.admin_id AS "adminId", s.revoked_at AS "revokedAt", s.last_used_at AS "lastUsedAt",
             a.username, a.role::text AS role, a.disabled, a.totp_secret IS NOT NULL AS "totpOn"
        FROM admin_sessions s JOIN admins a ON a.id = s.admin_id
       WHERE s.id = ${claims.sid}::uuid`;
    if (!session || String(session.adminId) !== claims.sub) {
      throw tokenError('TOKEN_INVALID', 'The token names no session.', 'admin');
    }
    if (session.revokedAt) throw tokenError('TOKEN_REVOKED', 'The session was revoked; log in again.', 'admin');
    if (session.disabled) throw accountDisabled();
    if (isStale(session.lastUsedAt)) {
      await this.db.prisma.adminSession.updateMany({
        where: { id: claims.sid, lastUsedAt: { lt: staleBefore() } },
        data: { lastUsedAt: new Date() },
      });
    }
    return {
      actor: { type: 'admin', id: session.adminId, name: session.username },
      role: session.role,
      adminId: session.adminId,
      sessionId: claims.sid,
      totpOn: session.totpOn,
    };
  }

  async #resolveApiKey(secret: string): Promise<AdminPrincipal> {
    const prefix = apiKeyPrefix(secret);
    // One statement: the key and whether the admin who created it is disabled (checked on every request).
    const [key] = prefix
      ? await this.db.prisma.$queryRaw<ApiKeyRow[]>`
          SELECT k.id, k.name, k.role::text AS role, k.secret_hash AS "secretHash", k.expires_at AS "expiresAt",
                 k.last_used_at AS "lastUsedAt", k.revoked_at AS "revokedAt",
                 COALESCE(a.disabled, false) AS "creatorDisabled"
            FROM api_keys k LEFT JOIN admins a ON a.id = k.created_by_id
           WHERE k.prefix = ${prefix}`
      : [];
    if (!key || !apiKeyMatches(secret, key.secretHash)) throw tokenError('TOKEN_INVALID', 'No such API key.', 'admin');
    if (key.revokedAt) throw tokenError('TOKEN_REVOKED', 'The API key was revoked.', 'admin');
    // The creator saw the secret and may have kept it: disabling someone must also stop the keys they
    // could still use. Checked, not revoked, so that enabling the admin again restores them.
    if (key.creatorDisabled) {
      throw tokenError(
        'TOKEN_REVOKED',
        'The admin who created this API key is disabled; an owner must create a new key (or enable the admin again).',
        'admin',
      );
    }
    if (key.expiresAt && key.expiresAt.getTime() <= Date.now()) {
      throw tokenError('TOKEN_EXPIRED', `The API key expired at ${key.expiresAt.toISOString()}.`, 'admin');
    }
    if (isStale(key.lastUsedAt)) {
      await this.db.prisma.apiKey.updateMany({
        where: { id: key.id, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: staleBefore() } }] },
        data: { lastUsedAt: new Date() },
      });
    }
    return { actor: { type: 'api_key', id: key.id, name: key.name }, role: key.role, totpOn: true };
  }
}

interface ApiKeyRow {
  id: number;
  name: string;
  role: AdminRole;
  secretHash: string;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  creatorDisabled: boolean;
}

interface AdminSessionRow {
  adminId: number;
  revokedAt: Date | null;
  lastUsedAt: Date;
  username: string;
  role: AdminRole;
  disabled: boolean;
  totpOn: boolean;
}
