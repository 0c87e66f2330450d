/**
 * The bootstrap admin (contract §6, §8.1): created from ADMIN_USERNAME / ADMIN_PASSWORD when no admin
 * exists; once one does, a set ADMIN_PASSWORD is ignored — and start-up says so, pointing at the CLI.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBootstrapAdmin } from '../../src/accounts/bootstrap-admin.ts';
import { passwordHasher } from '../../src/auth/password.ts';
import { loadConfig } from '../../src/config/config.ts';
import type { Logger } from '../../src/logger.ts';
import { BASE_ENV, startTestApp, TEST_ADMIN, type TestApp } from '../helpers/test-app.ts';

// The test suite's cost (NODE_ENV=test): verifying reads the cost from the hash itself.
const { verify: verifyPassword } = passwordHasher('test');

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

/** A logger that keeps what it is told. */
function recordingLogger() {
  const lines: Array<{ level: string; args: unknown[] }> = [];
  const at =
    (level: string) =>
    (...args: unknown[]) =>
      void lines.push({ level, args });
  const log = { warn: at('warn'), info: at('info'), error: at('error'), debug: at('debug') } as unknown as Logger;
  return { log, lines };
}

describe('ensureBootstrapAdmin when an admin exists', () => {
  it('when ADMIN_PASSWORD is set, then nothing changes and one warning says it is ignored and how to reset', async () => {
    const config = loadConfig({ ...BASE_ENV, ADMIN_USERNAME: 'another', ADMIN_PASSWORD: 'a-new-bootstrap-password' });
    const { log, lines } = recordingLogger();
    expect(await ensureBootstrapAdmin(app.db.prisma, config, log)).toEqual({ created: false });
    expect(lines).toHaveLength(1);
    expect(lines[0]!.level).toBe('warn');
    const message = String(lines[0]!.args.at(-1));
    expect(message).toMatch(/ADMIN_PASSWORD is ignored/);
    expect(message).toContain('npm run cli -- reset-password admin <username>');
    expect(message).not.toContain('a-new-bootstrap-password');
    const admins = await app.db.prisma.admin.findMany();
    expect(admins.map((a) => a.username)).toEqual([TEST_ADMIN.username]);
    expect(await verifyPassword(admins[0]!.passwordHash, TEST_ADMIN.password)).toBe(true);
  });

  it('when ADMIN_PASSWORD is not set, then nothing is logged', async () => {
    const { ADMIN_PASSWORD: _unset, ...env } = BASE_ENV;
    const { log, lines } = recordingLogger();
    expect(await ensureBootstrapAdmin(app.db.prisma, loadConfig(env), log)).toEqual({ created: false });
    expect(lines).toEqual([]);
  });
});
