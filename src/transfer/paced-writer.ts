/**
 * Writes to a stream at its reader's pace: a write that the stream asks to wait for (backpressure,
 * `write` → false) resolves when the stream drains, so a producer that awaits each write never holds
 * more than one chunk of its own — the memory of an export stays flat however large the file.
 */
import type { EventEmitter } from 'node:events';

/** What is written to: an HTTP response (compressed or not) or a file stream. */
export interface Sink extends EventEmitter {
  write(chunk: string): boolean;
  /** True once the stream is gone (a response whose client left before the first write). */
  readonly destroyed: boolean;
}

/** The stream closed before everything was written: the client went away (or the file was closed). */
export class SinkClosedError extends Error {
  constructor() {
    super('the stream closed before the export was written');
    this.name = 'SinkClosedError';
  }
}

export interface PacedWriter {
  /** Writes `chunk`; resolves when the stream may take more. Throws SinkClosedError or the stream's error. */
  write(chunk: string): Promise<void>;
  /** Throws SinkClosedError (or the stream's error) when nothing more can be written: a producer stops reading. */
  assertOpen(): void;
}

/**
 * A paced writer over `out`. Its listeners are added once and stay for the stream's life: the
 * compression middleware hands a response's `drain` listeners to its zlib stream and cannot remove
 * them, so a listener per wait would pile up there (and be called on every drain).
 */
export function pacedWriter(out: Sink): PacedWriter {
  let failure: Error | undefined;
  let release: (() => void) | undefined;
  const wake = () => {
    const resolve = release;
    release = undefined;
    resolve?.();
  };
  out.on('drain', wake);
  out.on('close', () => {
    failure ??= new SinkClosedError();
    wake();
  });
  out.on('error', (err: Error) => {
    failure ??= err;
    wake();
  });
  const assertOpen = () => {
    // Closed before this writer listened (or between two writes): no `close` is coming to say so.
    if (out.destroyed) failure ??= new SinkClosedError();
    if (failure) throw failure;
  };
  return {
    assertOpen,
    async write(chunk) {
      assertOpen();
      if (!out.write(chunk)) await new Promise<void>((resolve) => (release = resolve));
      assertOpen();
    },
  };
}
