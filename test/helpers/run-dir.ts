/**
 * One temporary directory per `npm test` run, holding everything the run makes (the migrated PGlite
 * snapshot, each file's data directories: temp-dirs.ts) and removed by global teardown. A run that was
 * killed before its teardown is cleaned up by the next run: the directory is named by the PID of the
 * run that made it. Kept free of vitest: global-setup.ts runs outside the test workers.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isRunning } from '../../src/db/data-dir-lock.ts';

/** Where the test workers find the run's directory. */
export const RUN_DIR_ENV = 'SHOP_TEST_RUN_DIR';

const PREFIX = 'shop-test-run-';

/** Makes this run's directory, after removing those of earlier runs that ended without their teardown. */
export function makeRunDir(): string {
  const root = tmpdir();
  for (const name of readdirSync(root)) {
    const pid = Number(name.startsWith(PREFIX) && name.slice(PREFIX.length).split('-')[0]);
    if (pid > 0 && pid !== process.pid && !isRunning(pid)) {
      rmSync(join(root, name), { recursive: true, force: true, maxRetries: 3 });
    }
  }
  return mkdtempSync(join(root, `${PREFIX}${process.pid}-`));
}

/** Removes the run's directory and everything in it. */
export function removeRunDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
}
