/**
 * A prepared body kept for long (the answer cache, the docs' assets) holds bytes of its own: a small
 * Buffer.from shares an 8 KB slab with other buffers, and keeping it would keep the whole slab.
 */
import { describe, expect, it } from 'vitest';
import { keepable, prepareBody } from '../../src/http/prepared-body.ts';

describe('keepable prepared bodies', () => {
  it('when a small body shares a slab, then its kept form has bytes of its own with the same content and ETag', () => {
    const prepared = prepareBody('{"id":7,"name":"跑鞋"}');
    // The premise: Node cut it from a shared pool (if this ever fails, keepable has nothing left to do).
    expect(prepared.body.buffer.byteLength).toBeGreaterThan(prepared.body.byteLength);
    const kept = keepable(prepared);
    expect(kept.body.buffer.byteLength).toBe(kept.body.byteLength);
    expect(kept.body.equals(prepared.body)).toBe(true);
    expect(kept.etag).toBe(prepared.etag);
  });

  it('when a body has its buffer to itself, then it is kept as it is', () => {
    const prepared = prepareBody('x'.repeat(64 * 1024));
    expect(keepable(prepared)).toBe(prepared);
  });
});
