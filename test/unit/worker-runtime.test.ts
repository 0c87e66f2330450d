/** The memory settings a serving worker is forked with (src/process/worker-runtime.ts): an operator's own win. */
import { describe, expect, it } from 'vitest';
import { WORKER_EXEC_ARGV, workerEnv, workerExecArgv } from '../../src/process/worker-runtime.ts';

describe('worker runtime', () => {
  it('when the primary runs with flags of its own, then the workers get ours first and the operator’s after (the last wins)', () => {
    expect(workerExecArgv(['--heap-growing-percent=30', '--enable-source-maps'], '')).toEqual([
      ...WORKER_EXEC_ARGV,
      '--heap-growing-percent=30',
      '--enable-source-maps',
    ]);
    expect(workerExecArgv([], '')).toEqual([...WORKER_EXEC_ARGV]);
  });

  it('when NODE_OPTIONS names a setting, then ours is left out (NODE_OPTIONS is read before the command line)', () => {
    expect(workerExecArgv([], '--max-old-space-size=512 --heap-growing-percent=20')).toEqual([]);
  });

  it('when MALLOC_ARENA_MAX is set, then the operator’s value stays; unset, the workers get 2', () => {
    expect(workerEnv({})).toEqual({ MALLOC_ARENA_MAX: '2' });
    expect(workerEnv({ MALLOC_ARENA_MAX: '8' })).toEqual({});
  });
});
