/**
 * A prepared body kept for long (the answer cache, the docs' assets) holds bytes of its own: a small
 * Buffer.from shares an 8 KB slab with other buffers, and keeping it would keep the whole slab.
 */
import { describe, expect, it } from 'vitest';
import { keepable, prepareBody } from '../../src/http/prepared-body.ts';

describe('keepable prepared bodies', () => {
  it('when a small body shares a slab, then kept it has bytes of its own with the same content and ETag', () => {
    const prepared = prepareBody('{"id":7,"name":"跑鞋"}');
    const { body, etag } = prepared;
    // The premise: Node cut it from a shared pool (if this ever fails, keepable has nothing left to do).
    expect(body.buffer.byteLength).toBeGreaterThan(body.byteLength);
    expect(keepable(prepared)).toBe(prepared);
    expect(prepared.body.buffer.byteLength).toBe(prepared.body.byteLength);
    expect(prepared.body.equals(body)).toBe(true);
    expect(prepared.etag).toBe(etag);
  });

  it('when a body has its buffer to itself, then it is kept as it is', () => {
    const prepared = prepareBody('x'.repeat(64 * 1024));
    expect(keepable(prepared)).toBe(prepared);
  });
});
