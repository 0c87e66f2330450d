/**
 * Chinese word segmentation (jieba's dictionary, through @node-rs/jieba) and toneless pinyin
 * (pinyin-pro). The dictionary takes ~0.2 s and ~40 MB to load, so it loads on first use — the
 * production warm-up (process/warm-up.ts) makes that happen before a serving process listens.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Jieba } from '@node-rs/jieba';
import { pinyin } from 'pinyin-pro';

let jieba: Jieba | undefined;

/**
 * jieba's dictionary file, read once and let go when jieba has built its own structures from it. (Its
 * `@node-rs/jieba/dict.js` reads it and the 6 MB IDF table we never use, and keeps both for good:
 * 11 MB of every serving process.)
 */
const dictionary = (): Buffer => readFileSync(createRequire(import.meta.url).resolve('@node-rs/jieba/dict.txt'));

/** `text` cut into dictionary words; runs of other characters come back as they are. */
export function segment(text: string): string[] {
  jieba ??= Jieba.withDict(dictionary());
  // Without the HMM guesser: the same text always gives the same words, in documents and in queries.
  return jieba.cut(text, false);
}

/** The toneless pinyin syllables of Chinese `word`, one per character (`ü` written `v`, as typed). */
export const syllablesOf = (word: string): string[] =>
  pinyin(word, { toneType: 'none', type: 'array', v: true, nonZh: 'removed' }).filter((s) => s !== '');
