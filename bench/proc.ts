/** CPU and memory of processes, read from /proc (Linux). */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

function stat(pid: number): { ppid: number; cpuTicks: number; comm: string } | undefined {
  try {
    const raw = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = raw.lastIndexOf(')');
    const comm = raw.slice(raw.indexOf('(') + 1, close);
    const fields = raw.slice(close + 2).split(' ');
    // fields[0] is state; utime and stime are the 14th and 15th fields of the whole line.
    return { ppid: Number(fields[1]), cpuTicks: Number(fields[11]) + Number(fields[12]), comm };
  } catch {
    return undefined;
  }
}

function allPids(): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number);
}

/**
 * The socket listening on TCP `port` (IPv4 or IPv6), from /proc/net/tcp: its inode, and the
 * connections waiting in its accept queue (a LISTEN socket's rx_queue is that queue's length).
 */
export function listeningSocket(port: number): { acceptQueue: number; inode: string } | undefined {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length > 9 && f[3] === '0A' && f[1]!.endsWith(`:${hexPort}`))
        return { acceptQueue: parseInt(f[4]!.split(':')[1]!, 16), inode: f[9]! };
    }
  }
  return undefined;
}

/** Descendants of `root` (not `root` itself) that hold a descriptor of the socket listening on `port`. */
function workersListening(root: number, port: number): number {
  const inode = listeningSocket(port)?.inode;
  if (!inode) return 0;
  return processTree(root)
    .slice(1)
    .filter((pid) => {
      try {
        return readdirSync(`/proc/${pid}/fd`).some((fd) => {
          try {
            return readlinkSync(`/proc/${pid}/fd/${fd}`) === `socket:[${inode}]`;
          } catch {
            return false;
          }
        });
      } catch {
        return false;
      }
    }).length;
}

/**
 * Waits until `workers` workers of the service whose primary is `root` accept on `port`. The service
 * is ready once its first worker serves, and the others start after it: load sent before they
 * serve lands on the first one, and keep-alive connections stay there for the whole run.
 */
export async function waitForWorkers(root: number, port: number, workers: number, timeoutMs = 30_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (workersListening(root, port) < workers) {
    if (performance.now() > deadline)
      throw new Error(`only ${workersListening(root, port)} of ${workers} workers serve port ${port}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** `root` and all its descendants. */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const pid of allPids()) {
    const s = stat(pid);
    if (s) children.set(s.ppid, [...(children.get(s.ppid) ?? []), pid]);
  }
  const out: number[] = [];
  const walk = (pid: number) => {
    out.push(pid);
    for (const c of children.get(pid) ?? []) walk(c);
  };
  walk(root);
  return out;
}

/** Every PostgreSQL server process on this machine. */
export function postgresPids(): number[] {
  return allPids().filter((pid) => {
    const s = stat(pid);
    return s?.comm === 'postgres' || s?.comm.startsWith('postgres');
  });
}

/** Resident set size of the given processes, in MB. */
export function rssMb(pids: number[]): number {
  let kb = 0;
  for (const pid of pids) {
    try {
      const m = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m);
      kb += m ? Number(m[1]) : 0;
    } catch {
      /* exited */
    }
  }
  return kb / 1024;
}

/**
 * CPU time consumed by a changing set of processes over a window. Processes may start during the
 * window (counted from zero) or exit (counted up to their last sample — summing /proc at the end
 * alone would lose them, e.g. PostgreSQL backends of connections a pool closed).
 */
export function cpuMeter(list: () => number[]) {
  const start = new Map<number, number>();
  const last = new Map<number, number>();
  for (const pid of list()) {
    const t = stat(pid)?.cpuTicks;
    if (t !== undefined) {
      start.set(pid, t);
      last.set(pid, t);
    }
  }
  const sample = () => {
    for (const pid of list()) {
      const t = stat(pid)?.cpuTicks;
      if (t !== undefined) last.set(pid, t);
    }
  };
  return {
    sample,
    /** Microseconds of CPU since the meter was made. */
    micros(): number {
      sample();
      let ticks = 0;
      for (const [pid, t] of last) ticks += t - (start.get(pid) ?? 0);
      return (ticks * 1e6) / TICKS_PER_SECOND;
    },
  };
}
