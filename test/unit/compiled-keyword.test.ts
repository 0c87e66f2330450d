/** Compiled keywords are kept per synonym index (src/search/keyword.ts compiledKeyword). */
import { describe, expect, it } from 'vitest';
import { compiledKeyword, compileKeyword, synonymIndexOf } from '../../src/search/keyword.ts';

describe('compiled keywords', () => {
  it('when a keyword is searched again under the same synonym groups, then its compilation is reused, and equals a fresh one', () => {
    const groups = synonymIndexOf([['跑鞋', 'running shoes']]);
    const first = compiledKeyword('男士跑鞋', groups);
    expect(compiledKeyword('男士跑鞋', groups)).toBe(first);
    expect(first).toEqual(compileKeyword('男士跑鞋', groups));
  });

  it('when the synonym groups change (a new index), then the keyword is compiled against the new groups', () => {
    const before = compiledKeyword('跑鞋', synonymIndexOf([]));
    const after = compiledKeyword('跑鞋', synonymIndexOf([['跑鞋', 'sneaker']]));
    expect(after).not.toBe(before);
    expect(after.terms[0]).toHaveLength(2);
    expect(before.terms[0]).toHaveLength(1);
  });
});
