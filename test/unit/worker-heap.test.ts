/** A worker's heap limits (src/process/worker-heap.ts): ours by default, the operator's where given. */
import { describe, expect, it } from 'vitest';
import { WORKER_HEAP_FLAGS, workerExecArgv } from '../../src/process/worker-heap.ts';

describe('worker heap limits', () => {
  it('when nothing is set, then a worker gets the primary’s arguments and both limits', () => {
    expect(workerExecArgv(['--enable-source-maps'])).toEqual(['--enable-source-maps', ...WORKER_HEAP_FLAGS]);
  });

  it('when the operator sets a limit in node’s arguments or NODE_OPTIONS (either spelling), then theirs stands', () => {
    expect(workerExecArgv(['--max-old-space-size=512'])).toEqual([
      '--max-old-space-size=512',
      '--max-semi-space-size=8',
    ]);
    expect(workerExecArgv([], '--max_semi_space_size=32 --no-warnings')).toEqual(['--max-old-space-size=160']);
  });
});
