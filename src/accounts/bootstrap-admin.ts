/**
 * The first administrator: created from ADMIN_USERNAME / ADMIN_PASSWORD when no admin exists (and
 * ADMIN_PASSWORD is then ignored, with a warning that points at the CLI's `reset-password`).
 * In development a missing password is generated and printed once, so a fresh clone can log in.
 */
import { randomBytes } from 'node:crypto';
import { passwordHasher } from '../auth/password.ts';
import type { Config } from '../config/config.ts';
import type { Prisma } from '../db/database.ts';
import type { Logger } from '../logger.ts';

export interface BootstrapResult {
  created: boolean;
  username?: string;
  /** Only when the password was generated here; the caller prints it once. */
  generatedPassword?: string;
}

export async function ensureBootstrapAdmin(prisma: Prisma, config: Config, log: Logger): Promise<BootstrapResult> {
  if ((await prisma.admin.count()) > 0) {
    // Setting ADMIN_PASSWORD later is a common way to try to recover a lost password: say it does nothing.
    if (config.bootstrapAdmin.password) {
      log.warn(
        'ADMIN_PASSWORD is ignored: an admin account exists already (it only creates the first one). To set an ' +
          "admin's password, run `npm run cli -- reset-password admin <username>` (`npm run cli -- list-admins` lists them)",
      );
    }
    return { created: false };
  }
  const { username } = config.bootstrapAdmin;
  let { password } = config.bootstrapAdmin;
  let generatedPassword: string | undefined;
  if (!password) {
    if (config.production) {
      log.warn('no admin account exists; set ADMIN_USERNAME and ADMIN_PASSWORD to create one at start');
      return { created: false };
    }
    password = generatedPassword = randomBytes(18).toString('base64url');
  }
  const passwordHash = await passwordHasher(config.passwordCost).hash(password);
  // Two instances starting together may both get here; the unique username makes one of them lose quietly.
  const result = await prisma.admin.createMany({
    data: [{ username, passwordHash, role: 'owner' }],
    skipDuplicates: true,
  });
  if (result.count === 0) return { created: false };
  log.info({ username }, 'bootstrap admin created');
  return { created: true, username, generatedPassword };
}
