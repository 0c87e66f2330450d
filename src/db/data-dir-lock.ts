/**
 * The embedded database belongs to one process (contract §7.7). PGlite would let a second process
 * open the same files and each would silently keep its own copy of the truth, so whoever opens
 * `DATA_DIR` first holds a lock file — PostgreSQL's `postmaster.pid` idea — and everyone else stops at
 * once, before touching anything.
 *
 * Who holds the lock is decided by the file itself, never by a PID or a hostname alone: a process in
 * another PID namespace (a second container on a shared volume, `unshare --pid`) cannot see the
 * owner's PID, and two containers may share a hostname. So:
 * - the lock file carries a random token of its owner, and the owner keeps the file's inode open and
 *   beats on it (sets its mtime through that descriptor every `staleAfterMs / 6`). A beat can only ever
 *   touch the owner's own file: once another process has replaced it, the beat lands on an orphan;
 * - a lock is stale when its heartbeat has been silent for `staleAfterMs`, or — faster — when its owner
 *   is provably gone: same machine boot, same PID namespace, and no process with that PID. A lock from
 *   another machine (another boot) is also watched for two beats before it counts as silent, so clocks
 *   that disagree cannot make a live owner look gone;
 * - a takeover replaces the stale file under a guard file made with O_EXCL, re-checking in the guard
 *   that the file is still the silent one it judged, so of two contenders exactly one wins;
 * - the owner checks that the file at the path is still its own before every statement and at every
 *   beat; one that finds it replaced (it was paused, SIGSTOP, longer than the window and someone took
 *   over) stops at once, writing nothing more — not even PGlite's close, which would flush.
 */

import { randomUUID } from 'node:crypto';
import { closeSync, fstatSync, futimesSync, openSync, readFileSync, readlinkSync, statSync, writeSync } from 'node:fs';
import { link, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';

export const LOCK_FILE = 'shop.pid';

/** A lock whose heartbeat was silent this long belongs to a process that is gone (DATA_DIR_STALE_AFTER). */
export const STALE_AFTER_MS = 30_000;

export class DataDirLockedError extends Error {
  override name = 'DataDirLockedError';
}

interface LockOwner {
  /** Random, the owner's alone: what "this lock is mine" means. */
  token: string;
  pid: number;
  host: string;
  /** What the owner is: `server`, `cli`, `migrate`. */
  role: string;
  since: string;
  /** The machine's boot id and the owner's PID namespace (Linux): where `pid` means something. */
  boot?: string;
  pidNs?: string;
}

export interface DataDirLockOptions {
  /** Heartbeat silence after which the lock is stale; default STALE_AFTER_MS. */
  staleAfterMs?: number;
  /** Called when the lock turns out to be someone else's; default: say so on stderr and exit 1 at once. */
  onLost?: (message: string) => void;
}

export interface DataDirLock {
  /** Throws (after `onLost`) unless the lock file is still ours: called before every statement. */
  assertOwned(): void;
  /** Stops the heartbeat and removes the lock file if it is still ours. */
  release(): Promise<void>;
}

/** The machine's boot and this process's PID namespace; undefined off Linux (then only the heartbeat counts). */
function pidSpace(): { boot?: string; pidNs?: string } {
  try {
    return {
      boot: readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(),
      pidNs: readlinkSync('/proc/self/ns/pid'),
    };
  } catch {
    return {};
  }
}

/** True when `pid` names a running process in our PID namespace (EPERM: running, but not ours to signal). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

interface SeenLock {
  /** Undefined when the content is not a lock of ours (an older version's, or garbage). */
  owner?: Partial<LockOwner> & { pid: number; host: string };
  ino: number;
  dev: number;
  mtimeMs: number;
}

/** The lock file as it is now; undefined when there is none. */
async function inspect(path: string): Promise<SeenLock | undefined> {
  try {
    const [text, { ino, dev, mtimeMs }] = await Promise.all([readFile(path, 'utf8'), stat(path)]);
    let owner: SeenLock['owner'];
    try {
      const parsed = JSON.parse(text) as Partial<LockOwner>;
      if (typeof parsed.pid === 'number' && typeof parsed.host === 'string') owner = parsed as SeenLock['owner'];
    } catch {}
    return { owner, ino, dev, mtimeMs };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/**
 * Whether the lock may still be in use. Never wrong in the direction of "gone": a PID is trusted only
 * in the PID namespace of the same boot; everywhere else only the heartbeat's silence counts.
 */
function isStale(seen: SeenLock, me: LockOwner, staleAfterMs: number): boolean {
  const o = seen.owner;
  const samePidSpace = !!o?.boot && !!o.pidNs && o.boot === me.boot && o.pidNs === me.pidNs;
  if (samePidSpace && o.pid !== me.pid && !isRunning(o.pid)) return true;
  return Date.now() - seen.mtimeMs >= staleAfterMs;
}

/** How often the owner beats: six beats in a staleness window. */
const beatMs = (staleAfterMs: number) => Math.max(50, Math.floor(staleAfterMs / 6));

/** The same lock file, not beaten since. */
const sameBeat = (a: SeenLock, b: SeenLock) => a.ino === b.ino && a.dev === b.dev && a.mtimeMs === b.mtimeMs;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Takes the lock of `dataDir` for this process, or throws `DataDirLockedError` naming the owner. */
export async function lockDataDir(dataDir: string, role: string, opts: DataDirLockOptions = {}): Promise<DataDirLock> {
  const staleAfterMs = opts.staleAfterMs ?? STALE_AFTER_MS;
  const path = join(dataDir, LOCK_FILE);
  const me: LockOwner = {
    token: randomUUID(),
    pid: process.pid,
    host: hostname(),
    role,
    since: new Date().toISOString(),
    ...pidSpace(),
  };
  // Written aside (named by the token: PIDs repeat across namespaces), then linked into place: link()
  // fails if the lock exists, so exactly one process wins a free lock. The descriptor stays open: the
  // heartbeat beats on this inode and no other.
  const draft = `${path}.${me.token}`;
  await writeFile(draft, `${JSON.stringify(me)}\n`, { mode: 0o600, flag: 'wx' });
  const fd = openSync(draft, 'r');
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        await link(draft, path);
        return heldLock(dataDir, path, fd, staleAfterMs, opts.onLost ?? exitAtOnce);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const seen = await inspect(path);
      if (!seen) continue;
      if (!isStale(seen, me, staleAfterMs)) throw lockedError(dataDir, path, seen, me, staleAfterMs);
      if (seen.owner?.boot !== me.boot || !me.boot) {
        // Another machine's beats, judged by our clock: a clock behind theirs must not make a live lock
        // look silent. Watched for two beats, silence needs no clock.
        await sleep(2 * beatMs(staleAfterMs) + 100);
        const now = await inspect(path);
        if (now && !sameBeat(now, seen)) throw lockedError(dataDir, path, now, me, staleAfterMs);
      }
      if (await replaceStale(path, draft, seen, me, staleAfterMs)) {
        return heldLock(dataDir, path, fd, staleAfterMs, opts.onLost ?? exitAtOnce);
      }
      await sleep(20 + Math.random() * 80);
    }
    throw new DataDirLockedError(`Could not take the lock ${path}; other processes keep taking it.`);
  } catch (err) {
    closeSync(fd);
    throw err;
  } finally {
    await unlink(draft).catch(() => {});
  }
}

/**
 * Puts our draft in place of the stale lock `seen`, unless the lock changed since it was judged (its
 * owner beat again, or another contender took it first): then false, and the caller looks again.
 */
async function replaceStale(
  path: string,
  draft: string,
  seen: SeenLock,
  me: LockOwner,
  staleAfterMs: number,
): Promise<boolean> {
  const guard = `${path}.takeover`;
  try {
    await writeFile(guard, me.token, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    // Held for a few milliseconds by a contender; one this old was left by a contender that died in them.
    const since = (await stat(guard).catch(() => undefined))?.mtimeMs;
    if (since !== undefined && Date.now() - since >= staleAfterMs) await unlink(guard).catch(() => {});
    return false;
  }
  try {
    const now = await inspect(path);
    if (!now || !sameBeat(now, seen)) return false;
    await rename(draft, path);
    return true;
  } finally {
    await unlink(guard).catch(() => {});
  }
}

function lockedError(dataDir: string, path: string, seen: SeenLock, me: LockOwner, staleAfterMs: number): Error {
  const o = seen.owner;
  if (!o) {
    return new DataDirLockedError(
      `The embedded database in ${dataDir} is locked by ${path}, which this version cannot read and which was ` +
        `touched ${Math.round((Date.now() - seen.mtimeMs) / 1000)} s ago. If no process uses ${dataDir}, delete it.`,
    );
  }
  const elsewhere = o.host !== me.host || o.boot !== me.boot || o.pidNs !== me.pidNs;
  const where = elsewhere
    ? ` on host ${o.host} (heartbeat ${Math.round((Date.now() - seen.mtimeMs) / 1000)} s ago; ` +
      `free ${staleAfterMs / 1000} s after that process stops)`
    : '';
  return new DataDirLockedError(
    `The embedded database in ${dataDir} is in use by process ${o.pid}${where} (${o.role}, since ${o.since}). ` +
      'Stop that process first (the embedded database allows one process), or set DATABASE_URL to use PostgreSQL. ' +
      `If no such process runs, delete ${path}.`,
  );
}

/** The lock while we hold it: beaten on every staleAfterMs / 6, checked before every statement. */
function heldLock(
  dataDir: string,
  path: string,
  fd: number,
  staleAfterMs: number,
  onLost: (message: string) => void,
): DataDirLock {
  const { ino, dev } = fstatSync(fd);
  const ours = () => {
    const now = statSync(path, { throwIfNoEntry: false });
    return now?.ino === ino && now.dev === dev;
  };
  let lastBeat = performance.now();
  const lostMessage = () => {
    const holder = readFileSync(path, 'utf8').trim() || 'none';
    const silentS = Math.round((performance.now() - lastBeat) / 1000);
    return (
      `The lock of the embedded database in ${dataDir} is no longer this process's (now: ${holder}). ` +
      `This process last beat its heartbeat ${silentS} s ago: it was paused or starved for longer than ` +
      `${staleAfterMs / 1000} s, so another process took the lock over. Stopping at once without writing anything more.`
    );
  };
  const lose = (): never => {
    clearInterval(heartbeat);
    let message: string;
    try {
      message = lostMessage();
    } catch {
      message = `The lock file ${path} of the embedded database is gone. Stopping at once without writing anything more.`;
    }
    onLost(message);
    throw new DataDirLockedError(message);
  };
  const heartbeat = setInterval(() => {
    try {
      // Checked first, synchronously: a process resumed after a pause finds out here or at its next statement.
      if (!ours()) lose();
      const now = new Date();
      futimesSync(fd, now, now);
      lastBeat = performance.now();
    } catch {
      // lose() has called onLost; a failed beat is retried at the next one (silence is what others judge).
    }
  }, beatMs(staleAfterMs));
  heartbeat.unref();
  return {
    assertOwned: () => {
      if (!ours()) lose();
    },
    release: async () => {
      clearInterval(heartbeat);
      if (ours()) await unlink(path).catch(() => {});
      closeSync(fd);
    },
  };
}

/** Nothing may run once the lock is lost — not a pending write, not PGlite's close (which flushes). */
function exitAtOnce(message: string): never {
  writeSync(2, `${message}\n`);
  process.exit(1);
}
