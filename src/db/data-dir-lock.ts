/**
 * The embedded database belongs to one process (contract §7.7). PGlite would let a second process
 * open the same files and each would silently keep its own copy of the truth, so whoever opens
 * `DATA_DIR` first writes its PID into a lock file — PostgreSQL's `postmaster.pid` idea — and
 * everyone else stops at once, before touching anything. A lock left by a process that is gone
 * (killed, crashed, machine restarted) is stale and taken over.
 */

import { link, readFile, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';

export const LOCK_FILE = 'shop.pid';

export class DataDirLockedError extends Error {
  override name = 'DataDirLockedError';
}

interface LockOwner {
  pid: number;
  host: string;
  /** What the owner is: `server`, `cli`, `migrate`. */
  role: string;
  since: string;
}

export interface DataDirLock {
  /** Removes the lock file if it is still ours. */
  release(): Promise<void>;
}

/** True when `pid` names a running process on this machine (EPERM: running, but not ours to signal). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function readOwner(path: string): Promise<LockOwner | undefined> {
  try {
    const owner = JSON.parse(await readFile(path, 'utf8')) as Partial<LockOwner>;
    return typeof owner.pid === 'number' && typeof owner.host === 'string' ? (owner as LockOwner) : undefined;
  } catch {
    return undefined;
  }
}

/** Takes the lock of `dataDir` for this process, or throws `DataDirLockedError` naming the owner. */
export async function lockDataDir(dataDir: string, role: string): Promise<DataDirLock> {
  const path = join(dataDir, LOCK_FILE);
  const me: LockOwner = { pid: process.pid, host: hostname(), role, since: new Date().toISOString() };
  const content = `${JSON.stringify(me)}\n`;
  // Written aside, then linked into place: link() fails if the lock exists, so exactly one process wins.
  const draft = `${path}.${process.pid}`;
  await writeFile(draft, content, { mode: 0o600 });
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await link(draft, path);
        return { release: () => releaseIfOurs(path, content) };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const owner = await readOwner(path);
      if (owner && owner.host === me.host && owner.pid !== me.pid && isRunning(owner.pid)) {
        throw new DataDirLockedError(
          `The embedded database in ${dataDir} is in use by process ${owner.pid} (${owner.role}, since ${owner.since}). ` +
            'Stop that process first (the embedded database allows one process), or set DATABASE_URL to use PostgreSQL. ' +
            `If no such process runs, delete ${path}.`,
        );
      }
      // The owner is gone (or wrote nothing readable): the lock is stale.
      await unlink(path).catch(() => {});
    }
    throw new DataDirLockedError(`Could not take the lock ${path}; another process keeps taking it.`);
  } finally {
    await unlink(draft).catch(() => {});
  }
}

async function releaseIfOurs(path: string, content: string): Promise<void> {
  const current = await readFile(path, 'utf8').catch(() => undefined);
  if (current === content) await unlink(path).catch(() => {});
}
