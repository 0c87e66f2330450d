/**
 * Chinese word segmentation (jieba's dictionary, through @node-rs/jieba) and toneless pinyin
 * (pinyin-pro). The dictionary takes ~0.2 s and ~60 MB to load, so it loads on first use — the
 * warm-up (process/warm-up.ts) makes that happen before a serving process listens.
 */
import { Jieba } from '@node-rs/jieba';
import { dict } from '@node-rs/jieba/dict.js';
import { pinyin } from 'pinyin-pro';

let jieba: Jieba | undefined;

/** `text` cut into dictionary words; runs of other characters come back as they are. */
export function segment(text: string): string[] {
  jieba ??= Jieba.withDict(dict);
  // Without the HMM guesser: the same text always gives the same words, in documents and in queries.
  return jieba.cut(text, false);
}

/** The toneless pinyin syllables of Chinese `word`, one per character (`ü` written `v`, as typed). */
export const syllablesOf = (word: string): string[] =>
  pinyin(word, { toneType: 'none', type: 'array', v: true, nonZh: 'removed' }).filter((s) => s !== '');
