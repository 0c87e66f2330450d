/**
 * How search splits text (contract §9.1), without a database: one set of rules for the documents and
 * the keywords, so what is written can be found by what is typed.
 */
import { describe, expect, it } from 'vitest';
import { buildDocument } from '../../src/search/document.ts';
import { compileKeyword, synonymIndexOf } from '../../src/search/keyword.ts';
import {
  hanLookupOf,
  normalise,
  pinyinWordsOf,
  prefixEntriesOf,
  substringLookupOf,
  termsOf,
  wordsOf,
} from '../../src/search/text.ts';

describe('terms', () => {
  it('when a keyword mixes Chinese, Latin, width and punctuation, then Chinese by dictionary words, the rest by words', () => {
    expect(termsOf('男士跑鞋')).toEqual([
      { text: '男士', chinese: true },
      { text: '跑鞋', chinese: true },
    ]);
    expect(termsOf('  Trail-BOOT，４２ ')).toEqual([
      { text: 'trail', chinese: false },
      { text: 'boot', chinese: false },
      { text: '42', chinese: false },
    ]);
    expect(termsOf('轻量跑鞋Air air')).toEqual([
      { text: '轻量', chinese: true },
      { text: '跑鞋', chinese: true },
      { text: 'air', chinese: false },
    ]);
    expect(termsOf('% _ ,')).toEqual([]);
    expect(normalise('  ＡＢＣ\t d ')).toBe('abc d');
    expect(wordsOf('lüdi 跑鞋x 42')).toEqual(['lüdi', 'x', '42']);
  });

  it('when Chinese words are spelled in pinyin, then whole, initials (2+ characters) and each syllable', () => {
    expect(pinyinWordsOf('跑鞋')).toEqual(['paoxie', 'px', 'pao', 'xie']);
    expect(pinyinWordsOf('绿色')).toEqual(['lvse', 'ls', 'lv', 'se']);
    expect(pinyinWordsOf('Air')).toEqual([]);
  });

  it('when lookup entries are made, then Chinese by 2-character pieces, word starts by up to 3, substrings by pairs', () => {
    expect(hanLookupOf('跑鞋款')).toEqual(['跑鞋', '鞋款']);
    expect(hanLookupOf('鞋')).toEqual(['鞋']);
    expect(prefixEntriesOf('trail')).toEqual(['^t', '^tr', '^tra']);
    expect(prefixEntriesOf('ab')).toEqual(['^a', '^ab']);
    expect(substringLookupOf('a%b')).toEqual(['~a%', '~%b']);
    expect(substringLookupOf('%')).toEqual(['~%']);
  });
});

describe('documents and keywords', () => {
  it('when a document is built, then every field holds what its terms are found in, and the lookup has each entry', () => {
    const doc = buildDocument({
      itemId: 1,
      name: '轻量跑鞋 Air',
      description: 'Light.',
      categoryPath: ['鞋靴', '跑鞋'],
      skus: [{ skuCode: 'AIR-42', specs: { color: ' Red ' } }],
    });
    expect(doc).toMatchObject({
      nameText: '轻量跑鞋 air',
      nameWords: ' air ',
      categoryText: '鞋靴 | 跑鞋',
      skuText: 'air-42 | red',
      skuWords: ' air 42 red ',
      descriptionWords: ' light ',
    });
    expect(doc.namePinyin).toContain(' paoxie ');
    expect(doc.categoryPinyin).toContain(' xue ');
    for (const entry of ['air', '^ai', '跑鞋', '鞋', 'paoxie', 'px', '^pao', 'red', '42', 'light', '~跑鞋', '~ a'])
      expect(doc.lookup, entry).toContain(entry);
    expect(doc.lookup).not.toContain('color');
  });

  it('when a keyword is compiled, then the last word is a prefix and synonyms become further spellings', () => {
    const synonyms = synonymIndexOf([['衣服', '服装', 'clothes']]);
    const search = compileKeyword('衣服 tra', synonyms);
    expect(search.normalised).toBe('衣服 tra');
    expect(search.terms[0]!.map((s) => [s.synonym, s.atoms.map((a) => a.text)])).toEqual([
      [false, ['衣服']],
      [true, ['服装']],
      [true, ['clothes']],
    ]);
    expect(search.terms[1]).toEqual([{ atoms: [{ text: 'tra', chinese: false, prefix: true }], synonym: false }]);
    expect(compileKeyword('a%b').pattern).toBe('%a\\%b%');
  });
});
