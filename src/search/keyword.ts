/**
 * A keyword as search runs it (contract §9.1): its terms, each with the spellings that may stand for
 * it (the term itself, and the other terms of its synonym groups), and the whole keyword for the
 * name tiers and the revision-1 substring rule.
 */
import { LRUCache } from 'lru-cache';
import { containsPattern } from '../db/like.ts';
import { normalise, type Term, termsOf } from './text.ts';

/**
 * One spelling of a term: all its atoms must be found (a synonym may have several words). An atom
 * marked `pinyin` is found only in the pinyin of names and category paths (a Chinese term's
 * homophones); a `forgiven` spelling is one that forgiving search added (forgiving.ts, contract §9.6).
 */
export interface Spelling {
  atoms: Array<Term & { prefix: boolean; pinyin?: boolean }>;
  synonym: boolean;
  forgiven?: boolean;
}

export interface KeywordSearch {
  /** The keyword as typed. */
  typed: string;
  /** The whole keyword, normalised (the name tiers compare it with the name). */
  normalised: string;
  /** `ILIKE` pattern of the keyword as typed (revision 1's rule: a substring of the name). */
  pattern: string;
  /** Every term must be found; each by any one of its spellings. Empty: the substring rule alone. */
  terms: Spelling[][];
}

/** Synonym groups, normalised: a term → the groups it is in. */
export type SynonymIndex = ReadonlyMap<string, ReadonlyArray<readonly string[]>>;

export function synonymIndexOf(groups: ReadonlyArray<readonly string[]>): SynonymIndex {
  const index = new Map<string, string[][]>();
  for (const group of groups) {
    for (const term of group) {
      const list = index.get(term) ?? [];
      list.push([...group]);
      index.set(term, list);
    }
  }
  return index;
}

/** No synonym groups. */
export const NO_SYNONYMS: SynonymIndex = new Map();

/** Compiled keywords kept per synonym index (a new index is a new set of groups). */
const COMPILED_PER_INDEX = 2_000;
const compiledByIndex = new WeakMap<SynonymIndex, LRUCache<string, KeywordSearch>>();

/**
 * compileKeyword, kept: segmenting and spelling a keyword (jieba, pinyin) cost ~25 µs per search,
 * and shoppers repeat keywords. A KeywordSearch is never changed once made.
 */
export function compiledKeyword(keyword: string, synonyms: SynonymIndex = NO_SYNONYMS): KeywordSearch {
  let kept = compiledByIndex.get(synonyms);
  if (!kept) compiledByIndex.set(synonyms, (kept = new LRUCache({ max: COMPILED_PER_INDEX })));
  let search = kept.get(keyword);
  if (!search) kept.set(keyword, (search = compileKeyword(keyword, synonyms)));
  return search;
}

export function compileKeyword(keyword: string, synonyms: SynonymIndex = NO_SYNONYMS): KeywordSearch {
  const terms = termsOf(keyword);
  const last = terms.length - 1;
  return {
    typed: keyword,
    normalised: normalise(keyword),
    pattern: containsPattern(keyword),
    terms: terms.map((term, i) => {
      // The last word also matches the start of a word, so results follow typing (`tra` → Trail).
      const own: Spelling = { atoms: [{ ...term, prefix: i === last && !term.chinese }], synonym: false };
      const others = new Set((synonyms.get(term.text) ?? []).flat().filter((t) => t !== term.text));
      const spellings = [...others].map(
        (other): Spelling => ({ atoms: termsOf(other).map((t) => ({ ...t, prefix: false })), synonym: true }),
      );
      return [own, ...spellings.filter((s) => s.atoms.length > 0)];
    }),
  };
}
