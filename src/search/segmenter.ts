/**
 * Chinese word segmentation (jieba's dictionary and algorithm, src/search/jieba-dictionary.ts) and
 * toneless pinyin (pinyin-pro). The dictionary takes ~130 ms of CPU and ~4.3 MB of typed arrays to
 * load (jieba-rs, through @node-rs/jieba, took ~41 MB of RSS), so it loads on first use — the
 * production warm-up (process/warm-up.ts) makes that happen before a serving process listens.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pinyin } from 'pinyin-pro';
import { cutWithoutHmm, type JiebaDictionary, parseJiebaDictionary } from './jieba-dictionary.ts';

let dictionary: JiebaDictionary | undefined;

/**
 * jieba's dictionary file, from @node-rs/jieba (kept as a dependency for it, and as the tests'
 * oracle), read once and let go when the compact dictionary is built. (Its `@node-rs/jieba/dict.js`
 * reads it and the 6 MB IDF table we never use, and keeps both for good: 11 MB of every serving process.)
 */
const dictionaryFile = (): Buffer => readFileSync(createRequire(import.meta.url).resolve('@node-rs/jieba/dict.txt'));

/**
 * `text` cut into dictionary words, exactly as jieba (`cut(text, false)`) cuts it; characters jieba does
 * not count as Chinese or ASCII come back one by one.
 */
export function segment(text: string): string[] {
  dictionary ??= parseJiebaDictionary(dictionaryFile());
  // Without the HMM guesser: the same text always gives the same words, in documents and in queries.
  return cutWithoutHmm(dictionary, text);
}

/** The toneless pinyin syllables of Chinese `word`, one per character (`ü` written `v`, as typed). */
export const syllablesOf = (word: string): string[] =>
  pinyin(word, { toneType: 'none', type: 'array', v: true, nonZh: 'removed' }).filter((s) => s !== '');
