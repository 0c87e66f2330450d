/**
 * V8 heap limits of a serving worker. Left to V8's defaults (an old space of 2–4 GB), a worker under
 * the benchmark's 64 connections let its heap grow until its RSS peaked at 400–450 MB, though what it
 * keeps alive is ~60 MB: the garbage waited for a major collection that so large a limit puts off.
 * 160 MB of old space (2.5 times that live set) and 8 MB semi-spaces held the peak at ~260 MB, with
 * no CPU cost per request we could tell from noise (`npm run bench` reports each worker's peak).
 * An operator's own choice — in NODE_OPTIONS or node's arguments — wins over ours.
 */
export const WORKER_HEAP_FLAGS = ['--max-old-space-size=160', '--max-semi-space-size=8'] as const;

const flagName = (arg: string) => arg.split('=')[0]!.replace(/_/g, '-');

/** Node's arguments for a worker: the primary's, and each heap flag the operator did not set. */
export function workerExecArgv(execArgv: readonly string[], nodeOptions = ''): string[] {
  const given = new Set([...execArgv, ...nodeOptions.split(/\s+/)].map(flagName));
  return [...execArgv, ...WORKER_HEAP_FLAGS.filter((flag) => !given.has(flagName(flag)))];
}
