/**
 * Handles made from names (contract §12.1, src/catalog/handles.ts): Chinese as toneless pinyin,
 * other scripts folded to ASCII, runs of anything else one `-`, lower case, at most 100 characters,
 * numbered `-2`, `-3` … past the taken ones.
 */
import { describe, expect, it } from 'vitest';
import {
  firstFreeHandle,
  HANDLE_MAX_LENGTH,
  HANDLE_PATTERN,
  handleOfName,
  handlePrefix,
  numberedHandle,
} from '../../src/catalog/handles.ts';

describe('handleOfName', () => {
  it.each([
    ['轻量跑鞋', 'qing-liang-pao-xie'],
    ['超亮头灯 Pro', 'chao-liang-tou-deng-pro'],
    ['重庆火锅', 'chong-qing-huo-guo'],
    ['绿色T恤', 'lv-se-t-xu'],
    ['Trail boot', 'trail-boot'],
    ['Café Crème Brûlée', 'cafe-creme-brulee'],
    ['Ørsted Straße', 'orsted-strasse'],
    ['ＡＢＣ１２３', 'abc123'],
    ['100% cotton -- tee!', '100-cotton-tee'],
    ['  --Leading and trailing--  ', 'leading-and-trailing'],
  ])('when the name is %j, then the handle is %j', (name, handle) => {
    expect(handleOfName(name)).toBe(handle);
  });

  it('when nothing URL-safe is left of the name, then the handle is `item`', () => {
    expect(handleOfName('🎉🎉')).toBe('item');
    expect(handleOfName('---')).toBe('item');
  });

  it('when the name makes more than 100 characters, then the handle is cut at 100 with no trailing hyphen', () => {
    expect(handleOfName('x'.repeat(150))).toBe('x'.repeat(100));
    const cutAtHyphen = handleOfName(`${'a'.repeat(99)} b`);
    expect(cutAtHyphen).toBe('a'.repeat(99));
    expect(handleOfName('跑'.repeat(60)).length).toBeLessThanOrEqual(HANDLE_MAX_LENGTH);
    expect(handleOfName('跑'.repeat(60))).toMatch(HANDLE_PATTERN);
  });

  it('when names of every kind are made into handles, then each matches the pattern and fits in 100', () => {
    for (const name of [
      'a-b',
      'Ω mega',
      '東京タワー',
      '😀 smile 😀',
      'x'.repeat(300),
      '跑鞋 2026 – 新款',
      'İstanbul',
    ]) {
      const handle = handleOfName(name);
      expect(handle, name).toMatch(HANDLE_PATTERN);
      expect(handle.length, name).toBeLessThanOrEqual(HANDLE_MAX_LENGTH);
    }
  });
});

describe('numbering', () => {
  it('when the base is free, then it is the handle; else the first free of -2, -3 …', () => {
    expect(firstFreeHandle('trail-boot', new Set())).toBe('trail-boot');
    expect(firstFreeHandle('trail-boot', new Set(['trail-boot']))).toBe('trail-boot-2');
    expect(firstFreeHandle('trail-boot', new Set(['trail-boot', 'trail-boot-2', 'trail-boot-4']))).toBe('trail-boot-3');
    // Other handles that merely start the same are no obstacle.
    expect(firstFreeHandle('trail', new Set(['trail-boot', 'trail-2-x']))).toBe('trail');
  });

  it('when the base is 100 characters, then a numbered handle cuts it to stay within 100', () => {
    const base = `${'a'.repeat(97)}-bc`;
    expect(numberedHandle(base, 2)).toBe(`${'a'.repeat(97)}-2`); // the cut leaves `-` at the end: dropped
    expect(numberedHandle(base, 12)).toBe(`${'a'.repeat(97)}-12`);
    expect(numberedHandle(`${'a'.repeat(96)}-bcd`, 123)).toBe(`${'a'.repeat(96)}-123`);
    for (const n of [2, 10, 999, 123_456]) {
      expect(numberedHandle(base, n).length).toBeLessThanOrEqual(HANDLE_MAX_LENGTH);
      expect(numberedHandle(base, n)).toMatch(HANDLE_PATTERN);
      expect(numberedHandle(base, n).startsWith(handlePrefix(base))).toBe(true);
    }
  });
});
