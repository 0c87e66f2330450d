/**
 * The embedded database belongs to one process (contract §7.7). PGlite would let a second process
 * open the same files and each would silently keep its own copy of the truth, so whoever opens
 * `DATA_DIR` first writes its PID into a lock file — PostgreSQL's `postmaster.pid` idea — and
 * everyone else stops at once, before touching anything. A lock left by a process that is gone
 * (killed, crashed, machine restarted) is stale and taken over.
 *
 * A PID says nothing on another machine: a second container on a shared volume cannot see the owner's
 * processes. So the owner also keeps a heartbeat — it touches the lock file every few seconds — and a
 * lock held from another host is stale only once its heartbeat has stopped for STALE_AFTER_MS.
 */

import { link, readFile, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';

export const LOCK_FILE = 'shop.pid';

/** How often the owner touches the lock file. */
export const HEARTBEAT_MS = 5_000;
/** A lock from another host whose file was not touched for this long belongs to a process that is gone. */
export const STALE_AFTER_MS = 30_000;

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

/** The lock's owner and how long ago it last touched the file; undefined when unreadable. */
async function readOwner(path: string): Promise<(LockOwner & { silentMs: number }) | undefined> {
  try {
    const [text, { mtimeMs }] = await Promise.all([readFile(path, 'utf8'), stat(path)]);
    const owner = JSON.parse(text) as Partial<LockOwner>;
    if (typeof owner.pid !== 'number' || typeof owner.host !== 'string') return undefined;
    return { ...(owner as LockOwner), silentMs: Date.now() - mtimeMs };
  } catch {
    return undefined;
  }
}

/** Whether the lock's owner may still be working on the files (never wrong in the direction of "gone"). */
function ownerAlive(owner: LockOwner & { silentMs: number }, me: LockOwner): boolean {
  if (owner.host !== me.host) return owner.silentMs < STALE_AFTER_MS;
  return owner.pid !== me.pid && isRunning(owner.pid);
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
        return heldLock(path, content);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const owner = await readOwner(path);
      if (owner && ownerAlive(owner, me)) {
        const where =
          owner.host === me.host
            ? ''
            : ` on host ${owner.host} (heartbeat ${Math.round(owner.silentMs / 1000)} s ago; ` +
              `free ${STALE_AFTER_MS / 1000} s after that process stops)`;
        throw new DataDirLockedError(
          `The embedded database in ${dataDir} is in use by process ${owner.pid}${where} (${owner.role}, since ${owner.since}). ` +
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

/** The lock while we hold it: touched every HEARTBEAT_MS, so other hosts see we are alive. */
function heldLock(path: string, content: string): DataDirLock {
  const heartbeat = setInterval(() => {
    const now = new Date();
    utimes(path, now, now).catch(() => {});
  }, HEARTBEAT_MS);
  heartbeat.unref();
  return {
    release: async () => {
      clearInterval(heartbeat);
      await releaseIfOurs(path, content);
    },
  };
}

async function releaseIfOurs(path: string, content: string): Promise<void> {
  const current = await readFile(path, 'utf8').catch(() => undefined);
  if (current === content) await unlink(path).catch(() => {});
}
