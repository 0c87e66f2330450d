/**
 * The TypeScript jieba (src/search/jieba-dictionary.ts) against jieba-rs itself — @node-rs/jieba's
 * `cut(text, false)`, the segmentation it replaced — both built from the same dict.txt: the same words
 * for every input, word for word.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Jieba } from '@node-rs/jieba';
import { describe, expect, it } from 'vitest';
import {
  correctlyRoundedLn,
  cutWithoutHmm,
  type JiebaDictionary,
  parseJiebaDictionary,
} from '../../src/search/jieba-dictionary.ts';
import { segment } from '../../src/search/segmenter.ts';

// Both dictionaries once per file (~0.3 s together).
const dictionaryFile = readFileSync(createRequire(import.meta.url).resolve('@node-rs/jieba/dict.txt'));
const jieba = Jieba.withDict(dictionaryFile);
const dictionary = parseJiebaDictionary(dictionaryFile);

/** dict.txt's entries (`word freq tag`: all three on every line of the file we ship). */
const entries = dictionaryFile
  .toString('utf8')
  .split('\n')
  .filter((line) => line !== '')
  .map((line) => {
    const [word = '', freq = ''] = line.split(' ');
    return { word, freq: Number(freq) };
  });

interface Mismatch {
  input: string;
  jieba: string[];
  ours: string[];
}

/** The inputs whose cut differs from jieba-rs's (the first few, for a readable failure). */
function mismatchesOf(
  inputs: Iterable<string>,
  ours: (text: string) => string[] = (text) => cutWithoutHmm(dictionary, text),
  oracle: Jieba = jieba,
): Mismatch[] {
  const mismatches: Mismatch[] = [];
  for (const input of inputs) {
    const expected = oracle.cut(input, false);
    const actual = ours(input);
    if (actual.length !== expected.length || actual.some((word, i) => word !== expected[i])) {
      mismatches.push({ input, jieba: expected, ours: actual });
      if (mismatches.length >= 10) break;
    }
  }
  return mismatches;
}

/** mulberry32: a small seeded generator, so a failing input can be found again. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const HAN = /^\p{Script=Han}+$/u;
const hanWords = entries.filter((e) => HAN.test(e.word)).map((e) => e.word);

/** A random ideograph: mostly the URO block, sometimes Extension A or B (a surrogate pair in JS). */
function randomIdeograph(random: () => number): string {
  const r = random();
  if (r < 0.9) return String.fromCodePoint(0x4e00 + Math.floor(random() * (0x9fff - 0x4e00 + 1)));
  if (r < 0.95) return String.fromCodePoint(0x3400 + Math.floor(random() * (0x4dbf - 0x3400 + 1)));
  return String.fromCodePoint(0x20000 + Math.floor(random() * 0xa6e0));
}

/** `count` strings of 2–6 parts (a dictionary word, or a random ideograph), cut to 1–40 characters. */
function randomTexts(seed: number, count: number, part: (random: () => number) => string): string[] {
  const random = seeded(seed);
  const texts: string[] = [];
  for (let n = 0; n < count; n++) {
    const parts = 2 + Math.floor(random() * 5);
    let text = '';
    for (let p = 0; p < parts; p++) text += part(random);
    texts.push([...text].slice(0, 1 + Math.floor(random() * 40)).join(''));
  }
  return texts;
}

const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

describe('jieba dictionary cut, against jieba-rs', () => {
  it('when each of the 349,045 dictionary words is cut alone, then the words are jieba-rs’s', () => {
    expect(entries.length).toBeGreaterThan(349_000);
    expect(mismatchesOf(entries.map((e) => e.word))).toEqual([]);
  });

  it('when 5,000 seeded random Chinese strings (dictionary words and random ideographs, 1–40 characters) are cut, then the words are jieba-rs’s', () => {
    const texts = randomTexts(20240601, 5_000, (random) =>
      random() < 0.7 ? pick(random, hanWords) : randomIdeograph(random),
    );
    expect(texts.every((text) => HAN.test(text))).toBe(true);
    expect(mismatchesOf(texts)).toEqual([]);
  });

  it('when two routes tie exactly (ABA with AB and BA as frequent), then the longer first word wins, as in jieba-rs', () => {
    // ln f(AB) + ln f(A) and ln f(A) + ln f(BA) are the same sum: Rust compares (weight, end) pairs,
    // so on equal weight the word that ends later wins.
    const freqOf = new Map(entries.map((e) => [e.word, e.freq]));
    const ties = hanWords
      .filter((w) => w.length === 2 && w[0] !== w[1] && freqOf.get(`${w[1]}${w[0]}`) === freqOf.get(w))
      .map((w) => `${w}${w[0]}`);
    expect(ties.length).toBeGreaterThan(100);
    expect(mismatchesOf(ties)).toEqual([]);
    expect(cutWithoutHmm(dictionary, '一一一')).toEqual(['一一', '一']);
    expect(cutWithoutHmm(dictionary, '丁税政')).toEqual(['丁税', '政']);
  });

  it('when text mixes 〇々, Extension B, other Han-script characters jieba does not count, ASCII, punctuation, whitespace and lone surrogates, then the words are jieba-rs’s', () => {
    // Space-separated, then the characters a space cannot be written as.
    const others = [
      ...'〇 々 〆 ⺀ ⼀ 𠀀 𠮷 𰀀 𮯠 a Z 7 iPhone 15 C++ AT&T x.y _ % - # ， 。 ！ ｱ １ γ é 😀'.split(' '),
      ...[' ', '  ', '\t', '\n', '\r\n', '\r', '\ud800', '\udc00'],
    ];
    const texts = randomTexts(7, 3_000, (random) => {
      const r = random();
      return r < 0.5 ? pick(random, entries).word : r < 0.7 ? randomIdeograph(random) : pick(random, others);
    });
    const fixed = [
      '',
      '〇々中国𠀀𠀁你好',
      'abc123中文',
      '3.5mm耳机',
      'C#和C++',
      '男士 跑鞋\r\n',
      'a\ud800b',
      '中\udc00国',
      '１２３ａｂｃ',
    ];
    // A block longer than the cut's reused scratch arrays (4,096 code units).
    const long = Array.from({ length: 3_000 }, (_, i) => hanWords[(i * 7919) % hanWords.length]!).join('');
    expect(long.length).toBeGreaterThan(4_096);
    expect(mismatchesOf([...fixed, ...texts, long, `${long}a1${long}`])).toEqual([]);
  });

  it('when the demo catalogue’s Chinese names and the bench vocabulary are segmented, then segment() gives jieba-rs’s words', () => {
    // The catalogue's items are not exported: its Chinese string literals, read from the source.
    const source = readFileSync(new URL('../../src/catalog/demo-catalog.ts', import.meta.url), 'utf8');
    const catalogue = [...source.matchAll(/'([^'\\\n]*)'/g)].map((m) => m[1]!).filter((s) => /\p{Script=Han}/u.test(s));
    expect(catalogue.length).toBeGreaterThan(5);
    const bench = '跑鞋 羽绒服 帐篷 头灯 背包 袜子 手套 水壶 外套 登山 男士跑鞋 蓝牙耳机'.split(' ');
    const hanRuns = [...catalogue, ...bench].flatMap((s) => s.match(/\p{Script=Han}+/gu) ?? []);
    expect(mismatchesOf([...catalogue, ...bench, ...hanRuns], segment)).toEqual([]);
    expect(segment('男士跑鞋')).toEqual(['男士', '跑鞋']);
    expect(segment('蓝牙耳机')).toEqual(['蓝牙', '耳机']);
  });

  it('when a frequency’s logarithm is taken, then it is glibc’s (what jieba-rs’s f64::ln calls), correctly rounded', () => {
    const bits = (x: number) =>
      Buffer.from(new Float64Array([x]).buffer)
        .reverse()
        .toString('hex');
    // glibc's log; V8's Math.log is 1 ulp off for these (77 of dict.txt's 5,087 frequencies).
    expect(bits(correctlyRoundedLn(3))).toBe('3ff193ea7aad030b');
    expect(bits(correctlyRoundedLn(48))).toBe('400ef8383c50bb75');
    expect(bits(correctlyRoundedLn(185))).toBe('4014e1a4f518c72b');
    // dict.txt's total frequency.
    expect(correctlyRoundedLn(60101964)).toBe(17.911553077840047);
    expect(correctlyRoundedLn(1)).toBe(0);
    expect(correctlyRoundedLn(0)).toBe(Number.NEGATIVE_INFINITY);
  });
});

describe('jieba dictionary loading, against jieba-rs', () => {
  /** Both built from `text`, and the cuts of `inputs` compared. */
  const compareOn = (text: string, inputs: string[]) => {
    const file = Buffer.from(text);
    const ours: JiebaDictionary = parseJiebaDictionary(file);
    return mismatchesOf(inputs, (input) => cutWithoutHmm(ours, input), Jieba.withDict(file));
  };

  it('when a dictionary is unsorted, lists a word twice, has words of frequency 0 or none, extra spaces, `+` or astral words, then it is read as jieba-rs reads it', () => {
    const text = [
      ...[
        '中国 5',
        '人民 3 n',
        '中国 100',
        '国人 50',
        '民 0',
        '中 10',
        '',
        '  国\t10  x',
        '人 +10',
        '𠀀a 5',
        '\ue000b 5',
      ],
      ...['人民币', '北京 0', '京 3', '上海 0', '上 2', '海 2', '海上 7', '上海 9'],
    ].join('\n');
    const inputs = '中国人民 中国人 人民 民 国人民 𠀀a \ue000b 人民币 北京 北京人 民民民 上海上海 海上海'.split(' ');
    expect(compareOn(text, inputs)).toEqual([]);
    expect(compareOn(`${text}\n`, inputs)).toEqual([]);
  });

  it('when a frequency is not an integer, then loading fails, as in jieba-rs', () => {
    for (const text of ['中国 x\n', '中国 -1\n', '中国 1.5\n', '中国 +\n']) {
      expect(() => Jieba.withDict(Buffer.from(text))).toThrow();
      expect(() => parseJiebaDictionary(Buffer.from(text))).toThrow(/not an integer/);
    }
  });
});
