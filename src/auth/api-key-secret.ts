/**
 * API key secrets (contract §10.5): `shk_` + an 8-character lookup prefix + 32 random bytes
 * (base64url). Only the SHA-256 of the whole secret is stored; a presented key is found by its
 * prefix and compared in constant time. The secrets are random, so a fast hash is as good as a slow
 * one here (there is nothing to guess).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const API_KEY_SCHEME = 'shk_';
const PREFIX_LENGTH = 8;
const PREFIX_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
const SHAPE = /^shk_([a-z0-9]{8})([A-Za-z0-9_-]{43,86})$/;

export interface NewApiKeySecret {
  secret: string;
  prefix: string;
  hash: string;
}

export const hashApiKeySecret = (secret: string): string => createHash('sha256').update(secret).digest('hex');

export function newApiKeySecret(): NewApiKeySecret {
  const bytes = randomBytes(PREFIX_LENGTH);
  const prefix = [...bytes].map((b) => PREFIX_ALPHABET[b % PREFIX_ALPHABET.length]).join('');
  const secret = `${API_KEY_SCHEME}${prefix}${randomBytes(32).toString('base64url')}`;
  return { secret, prefix, hash: hashApiKeySecret(secret) };
}

/** True when a bearer credential is meant as an API key (then it is never tried as a JWT). */
export const looksLikeApiKey = (credential: string): boolean => credential.startsWith(API_KEY_SCHEME);

/** The lookup prefix of a well-formed key, or undefined. */
export const apiKeyPrefix = (secret: string): string | undefined => SHAPE.exec(secret)?.[1];

/** Constant-time comparison of a presented secret with a stored hash. */
export function apiKeyMatches(secret: string, storedHash: string): boolean {
  const presented = Buffer.from(hashApiKeySecret(secret), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}
