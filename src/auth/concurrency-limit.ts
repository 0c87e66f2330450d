/**
 * A counting semaphore with a bounded queue. Login uses it to cap the argon2 hashes computed at once
 * (each takes ~19 MiB), so a burst of logins waits its turn instead of exhausting memory, and a
 * flood beyond the queue is refused quickly instead of piling up; costly searches use it, without a
 * queue, to bound each client's (search/search-slots.ts).
 */
import { AppError } from '../errors/app-error.ts';

export interface ConcurrencyLimit {
  /** Runs `task` when a slot is free; throws RATE_LIMITED (Retry-After 1) when the queue is full. */
  run<T>(task: () => Promise<T>): Promise<T>;
  /** Tasks running now and waiting (for tests and metrics). */
  readonly running: number;
  readonly waiting: number;
}

export function createConcurrencyLimit(
  maxConcurrent: number,
  maxQueued: number,
  /** The 429's detail, naming what is busy. */
  busy = 'The server is busy with other logins; try again in a moment.',
): ConcurrencyLimit {
  let running = 0;
  const queue: Array<() => void> = [];

  const release = () => {
    const next = queue.shift();
    if (next)
      next(); // the slot passes straight to the next waiter
    else running--;
  };

  return {
    async run(task) {
      if (running < maxConcurrent) running++;
      else if (queue.length >= maxQueued) {
        throw new AppError('RATE_LIMITED', busy, { retryAfter: 1 });
      } else {
        await new Promise<void>((resolve) => queue.push(resolve));
      }
      try {
        return await task();
      } finally {
        release();
      }
    },
    get running() {
      return running;
    },
    get waiting() {
      return queue.length;
    },
  };
}
