/**
 * How a serving worker's memory is kept small (issue 20: a serving process under 250 MB), set by the
 * primary when it forks one — the workers are the processes that serve, so nothing else changes.
 * Each setting was measured against the default in one sitting (`npm run bench`; docs/performance.md).
 *
 * - `--heap-growing-percent=50`: V8 lets the old generation grow to 1.5× what the last full GC kept
 *   alive before it collects again. By default it lets an idle-cheap heap grow ~3–4×: under 20,000
 *   cached answers a second a worker's old generation reached ~190 MB of mostly garbage (~50 MB live)
 *   between collections. 100 (2×) took peak RSS 420–490 → 270–310 MB; once a request stopped
 *   promoting its context to the old generation, 50 took the cached scenarios (a full 64 MB answer
 *   cache, ~25 MB of it on the heap) 276–288 → 243–256 MB, at the same CPU per request or less
 *   (a smaller heap is marked faster): detail 70 → 65 µs, search 206 → 172 (one sitting).
 * - `MALLOC_ARENA_MAX=2`: glibc's malloc keeps an arena per thread that allocates (up to 8 per core)
 *   and gives little back; V8's and libuv's helper threads each grew one (10–40 MB in all).
 *
 * An operator's own setting of either (NODE_OPTIONS, the environment) wins.
 */
export const WORKER_EXEC_ARGV: readonly string[] = ['--heap-growing-percent=50'];

export function workerEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return env.MALLOC_ARENA_MAX === undefined ? { MALLOC_ARENA_MAX: '2' } : {};
}

/**
 * The workers' Node arguments: these settings, then the primary's own (`node --… dist/server.js`) —
 * V8 takes the last of a flag given twice, so an operator's wins. NODE_OPTIONS is read before the
 * command line, so a setting it names is left out here.
 */
export function workerExecArgv(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions = process.env.NODE_OPTIONS ?? '',
): string[] {
  const ours = WORKER_EXEC_ARGV.filter((arg) => !nodeOptions.includes(arg.split('=')[0]!));
  return [...ours, ...execArgv];
}
