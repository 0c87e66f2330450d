import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.ts';
import { resolveJwtSecrets } from '../../src/config/dev-secrets.ts';

const secret = (c: string) => c.repeat(40);

describe('configuration (contract §6)', () => {
  it('when nothing is set, then development defaults apply', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      env: 'development',
      port: 3000,
      dataDir: './data',
      database: { kind: 'pglite' },
      seedDemo: true,
      graphiql: true,
      jwt: { customerTtl: 7200, adminTtl: 3600, refreshGrace: 604800, sessionMaxAge: 2592000 },
      login: { maxFailures: 5, failureWindow: 900, ipPerMinute: 30 },
      wx: { apiBase: 'https://api.weixin.qq.com' },
    });
    expect(Object.isFrozen(c) && Object.isFrozen(c.jwt)).toBe(true);
  });

  it('when values are invalid, then start-up stops naming every bad variable', () => {
    const attempt = () =>
      loadConfig({
        PORT: 'eighty',
        CUSTOMER_TOKEN_TTL: '-5',
        DATABASE_URL: 'mysql://x',
        LOG_LEVEL: 'loud',
        SEED_DEMO: 'maybe',
      });
    expect(attempt).toThrow(ConfigError);
    try {
      attempt();
    } catch (err) {
      const message = (err as Error).message;
      for (const name of ['PORT', 'CUSTOMER_TOKEN_TTL', 'DATABASE_URL', 'LOG_LEVEL', 'SEED_DEMO']) {
        expect(message).toContain(name);
      }
    }
  });

  it('when production lacks secrets, has short ones, or shares one, then start-up stops with a clear message', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/CUSTOMER_JWT_SECRET: is required in production/);
    expect(() =>
      loadConfig({ NODE_ENV: 'production', CUSTOMER_JWT_SECRET: 'short', ADMIN_JWT_SECRET: secret('a') }),
    ).toThrow(/CUSTOMER_JWT_SECRET: each secret must be at least 32 bytes/);
    expect(() =>
      loadConfig({ NODE_ENV: 'production', CUSTOMER_JWT_SECRET: secret('s'), ADMIN_JWT_SECRET: secret('s') }),
    ).toThrow(/ADMIN_JWT_SECRET: must differ from CUSTOMER_JWT_SECRET/);
    const ok = loadConfig({
      NODE_ENV: 'production',
      CUSTOMER_JWT_SECRET: `${secret('c')},${secret('o')}`,
      ADMIN_JWT_SECRET: secret('a'),
    });
    expect(ok.jwt.customerSecrets).toEqual([secret('c'), secret('o')]);
    expect(ok.seedDemo).toBe(false);
    expect(ok.graphiql).toBe(false);
  });

  it('when TRUST_PROXY=true, then start-up stops: clients could choose their own IP (contract §7.2)', () => {
    expect(() => loadConfig({ TRUST_PROXY: 'true' })).toThrow(/TRUST_PROXY: true would let clients choose their IP/);
    expect(loadConfig({ TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, loopback' }).trustProxy).toBe('10.0.0.0/8,loopback');
  });

  it('when the hardening settings are unset, then the contract defaults apply, per environment', () => {
    const dev = loadConfig({});
    expect(dev).toMatchObject({
      introspection: true,
      corsOrigins: ['*'],
      statementTimeoutMs: 5000,
      poolSize: 10,
      graphqlMaxCost: 5000,
    });
    expect(dev.login.wxIpPerMinute).toBe(30);
    const prod = loadConfig({
      NODE_ENV: 'production',
      CUSTOMER_JWT_SECRET: secret('c'),
      ADMIN_JWT_SECRET: secret('a'),
    });
    expect(prod).toMatchObject({ introspection: false, corsOrigins: [] });
    expect(() => loadConfig({ CORS_ORIGINS: 'https://shop.example.com/path' })).toThrow(/CORS_ORIGINS/);
    expect(() => loadConfig({ DATABASE_STATEMENT_TIMEOUT: '5s' })).toThrow(/DATABASE_STATEMENT_TIMEOUT/);
  });

  it('when only one of WX_APPID / WX_SECRET is set, then start-up stops', () => {
    expect(() => loadConfig({ WX_APPID: 'wx123' })).toThrow(/WX_SECRET/);
  });

  it("when MIGRATION_DATABASE_URL is set, then it is the PostgreSQL database's migration URL; without DATABASE_URL or as another scheme, start-up stops naming it", () => {
    const owner = 'postgresql://shop_owner@db/shop';
    const config = loadConfig({ DATABASE_URL: 'postgresql://shop_runtime@db/shop', MIGRATION_DATABASE_URL: owner });
    expect(config.database).toMatchObject({ kind: 'postgres', migrationUrl: owner });
    expect(() => loadConfig({ MIGRATION_DATABASE_URL: owner })).toThrow(/MIGRATION_DATABASE_URL: needs DATABASE_URL/);
    expect(() =>
      loadConfig({ DATABASE_URL: 'postgresql://shop_runtime@db/shop', MIGRATION_DATABASE_URL: 'mysql://db/shop' }),
    ).toThrow(/MIGRATION_DATABASE_URL: must be a postgresql:\/\/ URL/);
  });

  it('when secrets are missing in development, then they are generated once into the data directory and reused', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'shop-secrets-'));
    const config = loadConfig({ DATA_DIR: dataDir });
    const first = await resolveJwtSecrets(config);
    const second = await resolveJwtSecrets(config);
    expect(second).toEqual(first);
    expect(first.customer[0]).not.toBe(first.admin[0]);
    expect(first.customer[0]?.length).toBeGreaterThanOrEqual(32);
    const file = join(dataDir, 'jwt-secrets.json');
    expect(JSON.parse(readFileSync(file, 'utf8')).customer).toBe(first.customer[0]);
    expect(statSync(file).mode & 0o077).toBe(0);
  });

  it('when TRUST_PROXY is true in any spelling, a catch-all, a name proxy-addr does not know or too many hops, then start-up stops naming it', () => {
    for (const value of ['TRUE', 'True', 'tRuE']) {
      expect(() => loadConfig({ TRUST_PROXY: value }), value).toThrow(/TRUST_PROXY: true would let clients choose/);
    }
    for (const value of ['0.0.0.0/0', '::/0', '10.0.0.1, 0.0.0.0/0', '0.0.0.0/0.0.0.0', '0.0.0.0/1, 128.0.0.0/1']) {
      expect(() => loadConfig({ TRUST_PROXY: value }), value).toThrow(/TRUST_PROXY: trusts every address/);
    }
    for (const value of ['all', 'yes', '10.0.0.0/99', 'proxy.example.com', '1.2.3']) {
      expect(() => loadConfig({ TRUST_PROXY: value }), value).toThrow(/TRUST_PROXY: each entry must be an IP address/);
    }
    expect(() => loadConfig({ TRUST_PROXY: '999' })).toThrow(/TRUST_PROXY: a hop count must be at most 10/);
    expect(loadConfig({ TRUST_PROXY: '10' }).trustProxy).toBe(10);
    expect(loadConfig({ TRUST_PROXY: '0' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'FALSE' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'uniquelocal, 203.0.113.0/24' }).trustProxy).toBe('uniquelocal,203.0.113.0/24');
  });

  it('when TRUST_PROXY names a public subnet broader than /8 (IPv4) or /32 (IPv6), then start-up stops; private ranges pass', () => {
    for (const value of [
      '0.0.0.0/1',
      '10.0.0.1, 64.0.0.0/2',
      '10.0.0.0/7',
      '10.0.0.0/254.0.0.0',
      '2a00::/16',
      '::ffff:0:0/97',
    ]) {
      expect(() => loadConfig({ TRUST_PROXY: value }), value).toThrow(
        /TRUST_PROXY: ".*" is too broad: a subnet must be at least \/8/,
      );
    }
    for (const value of [
      '10.0.0.0/8',
      '10.0.0.0/255.0.0.0',
      'fd00::/8',
      'fc00::/7',
      '2a00:1450::/32',
      '::ffff:10.0.0.0/104',
    ]) {
      expect(loadConfig({ TRUST_PROXY: value }).trustProxy, value).toBe(value);
    }
  });

  it('when TRUST_PROXY holds a hop count that is not one plain decimal number (0x2, 1,2), then start-up stops naming it', () => {
    for (const value of ['0x2', '1,2', '10.0.0.1, 1']) {
      expect(() => loadConfig({ TRUST_PROXY: value }), value).toThrow(
        /TRUST_PROXY: ".*" is no address, and a hop count must be one plain decimal number/,
      );
    }
  });

  it('when SHOP_NAME is set, then it is the authenticator issuer; over 64 characters, a control character or a colon stops start-up', () => {
    expect(loadConfig({}).shopName).toBe('Shop admin');
    expect(loadConfig({ SHOP_NAME: ' Café Ünïcode 商店 ' }).shopName).toBe('Café Ünïcode 商店');
    expect(() => loadConfig({ SHOP_NAME: 'x'.repeat(65) })).toThrow(/SHOP_NAME: must be at most 64 characters/);
    for (const value of ['bad\nname', 'bad\u0007', 'Shop: admin', '\u200e']) {
      expect(() => loadConfig({ SHOP_NAME: value }), value).toThrow(/SHOP_NAME: must be printable text/);
    }
  });

  it('when SESSION_MAX_AGE over 90 days or REFRESH_GRACE over 30 days is asked for in production, then start-up stops naming it', () => {
    const production = {
      NODE_ENV: 'production',
      CUSTOMER_JWT_SECRET: 'customer-secret-for-config-tests-0123456789',
      ADMIN_JWT_SECRET: 'admin-secret-for-config-tests-0123456789-xyz',
    };
    const tenYears = String(10 * 365 * 86_400);
    expect(() => loadConfig({ ...production, SESSION_MAX_AGE: tenYears })).toThrow(
      /SESSION_MAX_AGE: must be at most 7776000 s \(90 days\) in production/,
    );
    expect(() => loadConfig({ ...production, REFRESH_GRACE: tenYears })).toThrow(
      /REFRESH_GRACE: must be at most 2592000 s \(30 days\) in production/,
    );
    const atCaps = loadConfig({ ...production, SESSION_MAX_AGE: '7776000', REFRESH_GRACE: '2592000' });
    expect(atCaps.jwt).toMatchObject({ sessionMaxAge: 7_776_000, refreshGrace: 2_592_000 });
    expect(loadConfig({ SESSION_MAX_AGE: tenYears }).jwt.sessionMaxAge).toBe(315_360_000);
  });

  it('when a token lifetime over 24 h is asked for in production, then start-up stops naming it; development allows it', () => {
    const production = {
      NODE_ENV: 'production',
      CUSTOMER_JWT_SECRET: 'customer-secret-for-config-tests-0123456789',
      ADMIN_JWT_SECRET: 'admin-secret-for-config-tests-0123456789-xyz',
    };
    expect(() => loadConfig({ ...production, ADMIN_TOKEN_TTL: '315360000' })).toThrow(
      /ADMIN_TOKEN_TTL: must be at most 86400 s \(24 h\) in production/,
    );
    expect(() => loadConfig({ ...production, CUSTOMER_TOKEN_TTL: '86401' })).toThrow(
      /CUSTOMER_TOKEN_TTL: must be at most/,
    );
    expect(loadConfig({ ...production, ADMIN_TOKEN_TTL: '86400' }).jwt.adminTtl).toBe(86_400);
    expect(loadConfig({ ADMIN_TOKEN_TTL: '315360000' }).jwt.adminTtl).toBe(315_360_000);
  });
});
