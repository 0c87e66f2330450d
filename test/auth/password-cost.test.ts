/**
 * argon2id's cost: OWASP's (19 MiB, 2 passes, 1 lane) wherever the service runs for real, a far lower
 * one only for the test suite (NODE_ENV=test), and verification reads the cost from the hash itself,
 * so either verifies the other's hashes. (test/server/start.test.ts checks the hash `npm start` stores.)
 */
import { describe, expect, it } from 'vitest';
import { passwordHasher } from '../../src/auth/password.ts';
import { loadConfig } from '../../src/config/config.ts';

const PRODUCTION = {
  NODE_ENV: 'production',
  CUSTOMER_JWT_SECRET: 'customer-secret-for-cost-tests-0123456789',
  ADMIN_JWT_SECRET: 'admin-secret-for-cost-tests-0123456789-xyz',
};

describe('password hashing cost', () => {
  it('when the service runs in production or development, then it hashes at OWASP cost; only NODE_ENV=test gets the test cost', () => {
    expect(loadConfig(PRODUCTION).passwordCost).toBe('owasp');
    expect(loadConfig({}).passwordCost).toBe('owasp');
    expect(loadConfig({ NODE_ENV: 'development' }).passwordCost).toBe('owasp');
    expect(loadConfig({ NODE_ENV: 'test' }).passwordCost).toBe('test');
  });

  it("when a password is hashed at OWASP cost, then the hash is argon2id with OWASP's parameters", async () => {
    const stored = await passwordHasher('owasp').hash('correct horse battery staple');
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await passwordHasher('owasp').verify(stored, 'correct horse battery staple')).toBe(true);
    // Verification reads the cost from the hash: the test hasher verifies production hashes too.
    expect(await passwordHasher('test').verify(stored, 'correct horse battery staple')).toBe(true);
    expect(await passwordHasher('test').verify(stored, 'wrong')).toBe(false);
  });

  it('when there is no stored hash, then verification fails after checking a dummy of the same cost', async () => {
    const hasher = passwordHasher('owasp');
    await hasher.ready();
    expect(await hasher.verify(null, 'anything')).toBe(false);
    expect(await hasher.verify(undefined, '')).toBe(false);
    expect(await passwordHasher('test').hash('x')).toMatch(/^\$argon2id\$v=19\$m=512,t=1,p=1\$/);
  });
});
