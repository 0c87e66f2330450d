/**
 * One JWT system (customer or admin, contract §3): its own secrets, issuer, audience and `typ`,
 * HS256 pinned, 30 s clock skew. Signing uses the first secret; verification accepts any (rotation).
 * Key-selecting headers (kid, jku, x5u, jwk) are never read: keys come only from configuration.
 */
import { randomUUID } from 'node:crypto';
import { decodeProtectedHeader, errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import { AppError, type Realm } from '../errors/app-error.ts';
import { INT32_MAX } from '../validation/rules.ts'; // the INTEGER id columns' range

export const CLOCK_SKEW_SECONDS = 30;
const ALGORITHM = 'HS256';
const ACCOUNT_ID = /^[1-9][0-9]{0,9}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The shape of a token's `sid` and `jti` (and so of every session id). */
export const isUuid = (value: string): boolean => UUID.test(value);

export interface TokenClaims {
  sub: string;
  sid: string;
  jti: string;
  iat: number;
  exp: number;
}

export interface IssuedToken extends TokenClaims {
  token: string;
  expiresIn: number;
}

export interface TokenSystem {
  readonly realm: Realm;
  /** Signs a token; `jti`/`iat` may be given to re-issue a token byte for byte (safe refresh retries). */
  issue(claims: { sub: string; sid: string; jti?: string; iat?: number }): Promise<IssuedToken>;
  /**
   * Verifies signature, algorithm, typ, iss, aud and required claims. `acceptExpiredFor` (seconds)
   * admits tokens expired no longer ago than that (the refresh grace). Throws TOKEN_INVALID / TOKEN_EXPIRED.
   */
  verify(token: string, opts?: { acceptExpiredFor?: number }): Promise<TokenClaims>;
}

/** The two independent systems of contract §3. */
export interface TokenSystems {
  customer: TokenSystem;
  admin: TokenSystem;
}

const SYSTEMS = {
  customer: { issuer: 'shop-service:customer', audience: 'shop-storefront', typ: 'customer+jwt' },
  admin: { issuer: 'shop-service:admin', audience: 'shop-admin', typ: 'admin+jwt' },
} as const;

/**
 * Why a token that failed verification is refused. A token of the other system (its unverified `typ`
 * says so) is named as such — the usual mistake is a customer token on an admin field — and the
 * answer only repeats what the caller sent.
 */
function rejectionOf(realm: Realm, token: string): string {
  let typ: unknown;
  try {
    typ = decodeProtectedHeader(token).typ;
  } catch {
    typ = undefined;
  }
  if (realm === 'admin' && typ === SYSTEMS.customer.typ) {
    return 'An admin token is required: this is a customer token. Log in with adminLogin (POST /admin/api/auth/login).';
  }
  if (realm === 'customer' && typ === SYSTEMS.admin.typ) {
    return 'A customer token is required: this is an admin token. Log in with login (POST /api/v1/auth/login).';
  }
  return 'The token is malformed, signed with another key or algorithm, or issued for another system.';
}

export function createTokenSystem(realm: Realm, secrets: readonly string[], ttlSeconds: number): TokenSystem {
  const { issuer, audience, typ } = SYSTEMS[realm];
  // Imported once as non-extractable WebCrypto keys bound to HMAC-SHA-256: jose would otherwise
  // import the raw bytes on every call, which doubles the cost of a verification.
  const keys = Promise.all(
    secrets.map((s) =>
      crypto.subtle.importKey('raw', new TextEncoder().encode(s), { name: 'HMAC', hash: 'SHA-256' }, false, [
        'sign',
        'verify',
      ]),
    ),
  );
  const invalid = (detail: string) => new AppError('TOKEN_INVALID', detail, { realm, tokenPresented: true });

  return {
    realm,
    async issue({ sub, sid, jti = randomUUID(), iat = Math.floor(Date.now() / 1000) }) {
      const exp = iat + ttlSeconds;
      const token = await new SignJWT({ sid })
        .setProtectedHeader({ alg: ALGORITHM, typ })
        .setIssuer(issuer)
        .setAudience(audience)
        .setSubject(sub)
        .setJti(jti)
        .setIssuedAt(iat)
        .setExpirationTime(exp)
        .sign((await keys)[0]!); // config guarantees at least one secret
      return { token, sub, sid, jti, iat, exp, expiresIn: ttlSeconds };
    },

    async verify(token, opts = {}) {
      const grace = opts.acceptExpiredFor ?? 0;
      let expired: Date | undefined;
      for (const key of await keys) {
        try {
          const { payload } = await jwtVerify(token, key, {
            algorithms: [ALGORITHM],
            issuer,
            audience,
            typ,
            clockTolerance: CLOCK_SKEW_SECONDS + grace,
            requiredClaims: ['sub', 'sid', 'jti', 'iat', 'exp'],
          });
          const { sub, sid, jti, iat, exp } = payload;
          // Shapes are checked even though the signature is valid: ids go into database lookups,
          // and a malformed one must be a 401, never a 500.
          if (
            typeof sub !== 'string' ||
            !ACCOUNT_ID.test(sub) ||
            Number(sub) > INT32_MAX ||
            typeof sid !== 'string' ||
            !isUuid(sid) ||
            typeof jti !== 'string' ||
            !isUuid(jti) ||
            typeof iat !== 'number' ||
            typeof exp !== 'number' ||
            exp <= iat
          ) {
            throw invalid("The token's claims are missing or malformed.");
          }
          if (iat > Date.now() / 1000 + CLOCK_SKEW_SECONDS) throw invalid('The token was issued in the future.');
          // We never issue longer lifetimes, so a longer one was minted elsewhere (a leaked key): §7.1.
          if (exp - iat > ttlSeconds) throw invalid("The token's lifetime exceeds what this server issues.");
          return { sub, sid, jti, iat, exp };
        } catch (err) {
          if (err instanceof joseErrors.JWSSignatureVerificationFailed) continue; // try the next secret
          if (err instanceof joseErrors.JWTExpired) {
            expired = new Date(Number(err.payload.exp) * 1000);
            break;
          }
          if (err instanceof AppError) throw err;
          throw invalid(rejectionOf(realm, token));
        }
      }
      if (expired) {
        throw new AppError('TOKEN_EXPIRED', `The token expired at ${expired.toISOString()}.`, {
          realm,
          tokenPresented: true,
        });
      }
      throw invalid(rejectionOf(realm, token));
    },
  };
}
