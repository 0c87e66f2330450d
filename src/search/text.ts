/**
 * How text is split for search (contract §9.1), one set of rules for the documents and the queries:
 * NFKC, lower case, Chinese by dictionary words, everything else into Unicode words.
 */
import { segment, syllablesOf } from './segmenter.ts';

const HAN = /\p{Script=Han}/u;
const HAN_RUNS = /\p{Script=Han}+/gu;
/** A word of non-Chinese text: letters and digits; anything else separates words. */
const WORD = /[\p{L}\p{N}]+/gu;

/** The form every comparison uses: NFKC (full-width → ASCII), lower case, one space between words. */
export const normalise = (text: string) => text.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();

export const hasHan = (text: string) => HAN.test(text);

/** The non-Chinese words of `text` (already normalised): `Trail-boot 42` → `trail`, `boot`, `42`. */
export const wordsOf = (text: string): string[] => (text.replace(HAN_RUNS, ' ').match(WORD) ?? []) as string[];

/** The runs of Chinese characters in `text`. */
export const hanRunsOf = (text: string): string[] => (text.match(HAN_RUNS) ?? []) as string[];

/** One term of a keyword: Chinese (found as a substring of a field) or a word (found as a word). */
export interface Term {
  text: string;
  chinese: boolean;
}

/**
 * A keyword's terms (contract §9.1): Chinese runs by dictionary words (`男士跑鞋` → `男士` `跑鞋`),
 * other text into words (`T恤` → the word `t` and the Chinese term `恤`: a name holding `T恤` has
 * both). Repeated terms count once.
 */
export function termsOf(keyword: string): Term[] {
  const terms = new Map<string, Term>();
  for (const run of normalise(keyword).match(/\p{Script=Han}+|\P{Script=Han}+/gu) ?? []) {
    if (hasHan(run)) for (const word of segment(run)) terms.set(word, { text: word, chinese: true });
    else for (const word of wordsOf(run)) terms.set(word, { text: word, chinese: false });
  }
  return [...terms.values()];
}

/**
 * The pinyin spellings of the Chinese words of `text` (contract §9.1): each word's whole toneless
 * pinyin (`跑鞋` → `paoxie`), its initials when it has 2+ characters (`px`), each character's
 * syllable (`pao`, `xie`, so `pao xie` typed with a space finds it too), and the same whole and
 * initials for 2 to 4 neighbouring words (`男士跑鞋` → `nanshipaoxie`, `nspx`).
 */
const MAX_JOINED_WORDS = 4;

export function pinyinWordsOf(text: string): string[] {
  const words = new Set<string>();
  for (const run of hanRunsOf(text)) for (const word of runPinyin(run)) words.add(word);
  return [...words];
}

/**
 * The pinyin words of one run of Chinese characters, in pinyinWordsOf's order. Runs repeat across
 * items (a category path on thousands of them, the words of names and descriptions), and segmenting
 * and spelling one costs more than the rest of a document: a bounded number of short ones are kept
 * (at most RUNS_KEPT × a short run's few dozen words: a few MB).
 */
const RUNS_KEPT = 5_000;
/** Longer runs are seldom repeated; they are spelt each time. */
const RUN_KEPT_MAX_LENGTH = 16;
const runsSpelt = new Map<string, readonly string[]>();

function runPinyin(run: string): readonly string[] {
  const known = runsSpelt.get(run);
  if (known) return known;
  const words = new Set<string>();
  const spell = (syllables: string[]) => {
    if (syllables.length === 0) return;
    words.add(syllables.join(''));
    if (syllables.length >= 2) words.add(syllables.map((s) => s[0]).join(''));
  };
  const perWord = segment(run).map(syllablesOf);
  for (const syllables of perWord) {
    spell(syllables);
    for (const s of syllables) words.add(s);
  }
  // Neighbouring words together too: shoppers type 蓝牙耳机 as `lyej` though the dictionary has
  // 蓝牙 + 耳机, and 男士蓝牙耳机 as `nanshi…` or `nslyej`.
  for (let from = 0; from < perWord.length; from++) {
    for (let to = from + 2; to <= Math.min(perWord.length, from + MAX_JOINED_WORDS); to++) {
      spell(perWord.slice(from, to).flat());
    }
  }
  const spelt = Object.freeze([...words]);
  if (run.length <= RUN_KEPT_MAX_LENGTH) {
    // Bounded by forgetting all at once: the next runs refill it with what is common.
    if (runsSpelt.size >= RUNS_KEPT) runsSpelt.clear();
    runsSpelt.set(run, spelt);
  }
  return spelt;
}

/** Every 1- and 2-character piece of each Chinese run: what a Chinese term's lookup needs. */
export function hanGramsOf(text: string): string[] {
  const grams = new Set<string>();
  for (const run of hanRunsOf(text)) {
    const chars = [...run];
    chars.forEach((c, i) => {
      grams.add(c);
      if (i + 1 < chars.length) grams.add(c + chars[i + 1]);
    });
  }
  return [...grams];
}

/** The index entries a Chinese term needs present: its 2-character pieces (1 for a lone character). */
export function hanLookupOf(term: string): string[] {
  const grams = new Set<string>();
  for (const run of hanRunsOf(term)) {
    const chars = [...run];
    if (chars.length === 1) grams.add(chars[0]!);
    for (let i = 0; i + 1 < chars.length; i++) grams.add(chars[i]! + chars[i + 1]!);
  }
  return [...grams];
}

/** Prefix entries of a word: `^t`, `^tr`, `^tra` — a typed beginning is looked up by its first 3. */
export const PREFIX_LENGTH = 3;
export const prefixEntriesOf = (word: string): string[] => {
  const chars = [...word];
  const out: string[] = [];
  for (let n = 1; n <= Math.min(PREFIX_LENGTH, chars.length); n++) out.push(`^${chars.slice(0, n).join('')}`);
  return out;
};
export const prefixLookupOf = (word: string): string => `^${[...word].slice(0, PREFIX_LENGTH).join('')}`;

/** Substring entries of a name: every 1- and 2-character piece, marked `~` (the revision-1 rule's lookup). */
export function nameGramsOf(name: string): string[] {
  const chars = [...name];
  const grams = new Set<string>();
  chars.forEach((c, i) => {
    grams.add(`~${c}`);
    if (i + 1 < chars.length) grams.add(`~${c}${chars[i + 1]}`);
  });
  return [...grams];
}

/** The entries that must be present for a name to contain `keyword` (normalised) as a substring. */
export function substringLookupOf(keyword: string): string[] {
  const chars = [...keyword];
  if (chars.length === 1) return [`~${chars[0]}`];
  const grams = new Set<string>();
  for (let i = 0; i + 1 < chars.length; i++) grams.add(`~${chars[i]}${chars[i + 1]}`);
  return [...grams];
}
