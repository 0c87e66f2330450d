/**
 * Two pure building blocks without a server: the token systems' checks (contract §3, §7.1) and the
 * catalogue cache's generations (§7.6: an answer read before an invalidation is never stored after it).
 */
import { describe, expect, it } from 'vitest';
import { createTokenSystem } from '../../src/auth/token-system.ts';
import { CatalogCache } from '../../src/catalog/catalog-cache.ts';
import { createLogger } from '../../src/logger.ts';
import { publicAnswer } from '../../src/rest/public-answer.ts';

const SECRET = 'unit-secret-0123456789abcdef-0123456789';
const SID = '0b0a7e4c-6c3e-4b8e-9a51-2f1f3c4d5e6f';
const codeOf = async (p: Promise<unknown>) =>
  p.then(
    () => 'accepted',
    (e: { code?: string }) => e.code,
  );

describe('token checks', () => {
  const customer = createTokenSystem('customer', [SECRET], 900);
  const admin = createTokenSystem('admin', [SECRET], 900);

  it('when a token is its own system’s, fresh and whole, then it verifies to its claims', async () => {
    const token = await customer.issue({ sub: '7', sid: SID });
    expect(await customer.verify(token.token)).toMatchObject({ sub: '7', sid: SID, jti: token.jti });
  });

  it('when a token is of the other system, tampered, expired or too long-lived, then it is refused with its code', async () => {
    const token = (await customer.issue({ sub: '7', sid: SID })).token;
    expect(await codeOf(admin.verify(token))).toBe('TOKEN_INVALID');
    // One signature character changed (its middle: the last one's low bits are padding, and a fixed
    // replacement equals the original once in a while — a CI flake).
    const at = token.lastIndexOf('.') + 10;
    const tampered = `${token.slice(0, at)}${token[at] === 'A' ? 'B' : 'A'}${token.slice(at + 1)}`;
    expect(await codeOf(customer.verify(tampered))).toBe('TOKEN_INVALID');
    expect(await codeOf(customer.verify('not-a-jwt'))).toBe('TOKEN_INVALID');
    const old = (await customer.issue({ sub: '7', sid: SID, iat: Math.floor(Date.now() / 1000) - 1000 })).token;
    expect(await codeOf(customer.verify(old))).toBe('TOKEN_EXPIRED');
    expect(await codeOf(customer.verify(old, { acceptExpiredFor: 200 }))).toBe('accepted');
    const longLived = createTokenSystem('customer', [SECRET], 90_000);
    expect(await codeOf(customer.verify((await longLived.issue({ sub: '7', sid: SID })).token))).toBe('TOKEN_INVALID');
    const future = (await customer.issue({ sub: '7', sid: SID, iat: Math.floor(Date.now() / 1000) + 3600 })).token;
    expect(await codeOf(customer.verify(future))).toBe('TOKEN_INVALID');
  });
});

describe('catalogue cache generations', () => {
  const answer = publicAnswer({ items: [] });

  it('when an answer was read before an invalidation, then it is not stored after it; off until listening', () => {
    const cache = new CatalogCache(1024 * 1024, 0, createLogger('silent'));
    cache.storeAnswer('k', answer, cache.generation);
    expect(cache.answer('k')).toBeUndefined(); // not listening yet: off
    cache.channelHealth(true);
    const began = cache.generation;
    cache.invalidate();
    cache.storeAnswer('k', answer, began);
    expect(cache.answer('k')).toBeUndefined();
    cache.storeAnswer('k', answer, cache.generation);
    expect(cache.answer('k')).toBe(answer);
    cache.storeTotal('t', 5, cache.generation);
    expect(cache.total('t')).toBe(5);
    cache.channelHealth(false);
    expect(cache.enabled).toBe(false);
    expect(cache.answer('k')).toBeUndefined();
    cache.channelHealth(true);
    expect(cache.answer('k')).toBeUndefined(); // losing the channel emptied it
  });

  it('when the cache size is 0, then it never keeps anything', () => {
    const cache = new CatalogCache(0, 0, createLogger('silent'));
    cache.channelHealth(true);
    cache.storeAnswer('k', answer, cache.generation);
    expect(cache.enabled).toBe(false);
    expect(cache.answer('k')).toBeUndefined();
  });
});
