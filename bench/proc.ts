/** CPU and memory of processes and of the machine, and listening sockets, read from /proc (Linux). */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

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
  for (let serving = workersListening(root, port); serving < workers; serving = workersListening(root, port)) {
    if (performance.now() > deadline) throw new Error(`only ${serving} of ${workers} workers serve port ${port}`);
    await sleep(100);
  }
}

/** The machine's idle and total CPU time so far (jiffies, all cores), from /proc/stat; undefined elsewhere. */
function cpuTimes(): { idle: number; total: number } | undefined {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal: idle and iowait are the idle time.
    return { idle: (fields[3] ?? 0) + (fields[4] ?? 0), total: fields.slice(0, 8).reduce((a, b) => a + b, 0) };
  } catch {
    return undefined;
  }
}

/**
 * Waits (at most `maxMs`) until the machine's CPUs are at least `idleShare` idle over a second, so
 * that what a run measures is the service and not the tail of what ran before it (in CI, the test
 * suite's processes and PostgreSQL dropping their databases). Resolves with the share last seen.
 */
export async function waitForQuietMachine(idleShare: number, maxMs: number): Promise<number | undefined> {
  const deadline = performance.now() + maxMs;
  for (;;) {
    const before = cpuTimes();
    await sleep(1_000);
    const after = cpuTimes();
    if (!before || !after || after.total === before.total) return undefined;
    const idle = (after.idle - before.idle) / (after.total - before.total);
    if (idle >= idleShare || performance.now() >= deadline) return idle;
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

/**
 * The PostgreSQL backends connected to `database` (a backend's process title names its database):
 * the CPU a service's statements cost, apart from other work on a shared server.
 */
export function postgresBackendPids(database: string): number[] {
  return postgresPids().filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(` ${database} `);
    } catch {
      return false; // exited
    }
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
  const read = (pids: Iterable<number>) => {
    for (const pid of pids) {
      const t = stat(pid)?.cpuTicks;
      if (t !== undefined) last.set(pid, t);
    }
  };
  /** Looks for the processes `list` names now (a scan of /proc where it is postgresPids), and reads them all. */
  const sample = () => read(new Set([...last.keys(), ...list()]));
  return {
    sample,
    /**
     * Reads only the processes already seen: a few files, where `sample` may scan all of /proc — ~10 ms
     * of the load generator's own event loop, whose stalls its latencies would count.
     */
    sampleKnown: () => read([...last.keys()]),
    /** Microseconds of CPU since the meter was made. */
    micros(): number {
      sample();
      let ticks = 0;
      for (const [pid, t] of last) ticks += t - (start.get(pid) ?? 0);
      return (ticks * 1e6) / TICKS_PER_SECOND;
    },
  };
}
