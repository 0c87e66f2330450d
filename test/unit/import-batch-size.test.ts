/** Import batches are sized by time (contract §13.2: `rows_done` grows at least once a second). */
import { describe, expect, it } from 'vitest';
import { nextBatchSize } from '../../src/transfer/import-job.ts';

describe('import batch size', () => {
  it('when a batch took longer than its aim, then the next is smaller in proportion; when shorter, larger', () => {
    expect(nextBatchSize(100, 800)).toBe(50);
    expect(nextBatchSize(100, 200)).toBe(200);
    expect(nextBatchSize(50, 400)).toBe(50);
  });
  it('when batches are very slow or very fast, then the size stays within 5..2000 items (of which at most 500 written)', () => {
    expect(nextBatchSize(5, 60_000)).toBe(5);
    expect(nextBatchSize(2000, 1)).toBe(2000);
    expect(nextBatchSize(10, 0)).toBe(2000);
  });
});
