/**
 * Forgiving search (contract §9.6), the one place its rules live: a compiled keyword (keyword.ts)
 * gains, per term, the spellings the shopper probably meant — each marked `forgiven`, so it ranks
 * after every item that matches every term as typed (keyword-sql.ts) — and everything that reads
 * the keyword's matches (the page, its total, the facets, suggestions, the zero-results counter)
 * follows them because they are spellings like any other:
 *
 * - a Chinese term that no item holds as written also matches words of the same toneless pinyin
 *   (`芽` → `ya`, found in the names' and category paths' pinyin: 牙), and so does a run of
 *   one-character terms that no item holds together (`篮牙`, which jieba cuts into 篮 牙 → `lanya`: 蓝牙);
 * - a word of letters a-z of 5–8 letters also matches the catalogue's words one edit away (insert,
 *   delete, substitute, swap two neighbours: optimal string alignment), of 9 or more two edits;
 *   shorter words, and words with digits (numbers, SKU codes), only as typed;
 * - two words written with a hyphen or a space also match their joined form (`t-shirt` → `tshirt`),
 *   and a word of 5 letters or more also matches its two halves when both are words of the catalogue
 *   (`tshirt` → `t shirt`).
 *
 * The candidates come from the catalogue's vocabulary (`search_words`, kept by triggers on the
 * documents; for Chinese terms the one-word index's `search_token_counts`) in one statement per
 * keyword, never from the items; the answer is kept per catalogue generation (ForgivingCache), as the synonym groups are.
 */
import damerauLevenshtein from 'damerau-levenshtein';
import type { SqlReader } from '../db/database.ts';
import { GenerationKept, type Generations } from './generation-kept.ts';
import type { KeywordSearch, Spelling } from './keyword.ts';
import { syllablesOf } from './segmenter.ts';

/** A word the typo rules may forgive: letters a-z only (no digits: numbers and SKU codes match as typed). */
const LETTERS = /^[a-z]+$/;

/** Edits forgiven in a word of `length` letters (contract §9.6): none below 5, one up to 8, two from 9. */
export function editsFor(length: number): number {
  if (length < 5) return 0;
  return length < 9 ? 1 : 2;
}

/**
 * Near words kept per term: the closest, then the commonest. Each is a spelling the statement checks
 * in every candidate document; a typo rarely has more than a few real neighbours.
 */
export const MAX_NEAR_WORDS = 8;

/** What a keyword's forgiving needs to know of the vocabulary (`questionsOf`), and its answer. */
export interface VocabularyQuestions {
  /** Chinese terms (tokens of the one-word index): does a visible item's text hold it? */
  tokens: string[];
  /** Whole words: does a document hold it? */
  words: string[];
  /** Does a document hold a word starting with it? */
  starts: string[];
  /** Words within `edits` of `term` (a superset: `levenshtein_less_equal` ≤ 2 × edits). */
  near: Array<{ term: string; edits: number }>;
}

export interface VocabularyAnswers {
  tokens: ReadonlySet<string>;
  words: ReadonlySet<string>;
  starts: ReadonlySet<string>;
  /** Per term, its candidates with the documents holding each. */
  near: ReadonlyMap<string, ReadonlyArray<{ word: string; items: number }>>;
}

type Atom = Spelling['atoms'][number];
const ownAtom = (spellings: Spelling[]): Atom => spellings[0]!.atoms[0]!;
const isLatinWord = (atom: Atom) => !atom.chinese && LETTERS.test(atom.text);

/** Neighbouring Latin terms written with a hyphen or one space between them (`t-shirt`, `t shirt`). */
function joinedPairs(search: KeywordSearch): Array<[number, number]> {
  const pairs: Array<[number, number]> = [];
  for (let k = 0; k + 1 < search.terms.length; k++) {
    const a = ownAtom(search.terms[k]!);
    const b = ownAtom(search.terms[k + 1]!);
    if (!isLatinWord(a) || !isLatinWord(b)) continue;
    if (search.normalised.includes(`${a.text}-${b.text}`) || search.normalised.includes(`${a.text} ${b.text}`))
      pairs.push([k, k + 1]);
  }
  return pairs;
}

/**
 * Runs of 2+ neighbouring one-character Chinese terms (`篮` `牙`): jieba cuts a word its dictionary
 * does not know — as a homophone typo is — into characters, so the run is what the shopper typed as
 * one word, and its pinyin (`lanya`) is the word's.
 */
function charRuns(search: KeywordSearch): Array<{ from: number; to: number; text: string }> {
  const runs: Array<{ from: number; to: number; text: string }> = [];
  let from = 0;
  const single = (k: number) => {
    const atom = search.terms[k] && ownAtom(search.terms[k]!);
    return atom?.chinese === true && [...atom.text].length === 1;
  };
  for (let k = 0; k <= search.terms.length; k++) {
    if (single(k)) continue;
    if (k - from >= 2)
      runs.push({
        from,
        to: k,
        text: search.terms
          .slice(from, k)
          .map((t) => ownAtom(t).text)
          .join(''),
      });
    from = k + 1;
  }
  return runs;
}

/**
 * Words shorter than this are not split: `shu` (typed on the way to shuihu) would be `s` + `hu*`
 * wherever a size S and a pinyin hu exist — and every such spelling sends the keyword off the
 * one-word index. Joined words worth splitting (`tshirt`, `ebook`, `raincoat`) are longer.
 */
export const MIN_SPLIT_LETTERS = 5;

/** The two halves of `word` at each place, for the split rule (none for a word shorter than MIN_SPLIT_LETTERS). */
const halves = (word: string): Array<[string, string]> =>
  word.length < MIN_SPLIT_LETTERS
    ? []
    : Array.from({ length: word.length - 1 }, (_, i) => [word.slice(0, i + 1), word.slice(i + 1)]);

/**
 * Whether a word is in the catalogue: as a whole word (`words`), or — for the last term, which also
 * matches the start of a word (§9.1) — as the start of one (`starts`). Both ask the vocabulary of
 * whole words: the one-word index's tokens also hold every piece of a name (`erino` of merino).
 */
const asked = (prefix: boolean) => (prefix ? 'starts' : 'words');

/** What forgiving `search` needs to ask the vocabulary (nothing: no statement). */
export function questionsOf(search: KeywordSearch): VocabularyQuestions {
  const questions: VocabularyQuestions = { tokens: [], words: [], starts: [], near: [] };
  for (const spellings of search.terms) {
    const own = ownAtom(spellings);
    if (own.chinese) {
      questions.tokens.push(own.text);
      continue;
    }
    if (!isLatinWord(own)) continue;
    const edits = editsFor(own.text.length);
    if (edits > 0) questions.near.push({ term: own.text, edits });
    for (const [left, right] of halves(own.text)) {
      questions.words.push(left);
      questions[asked(own.prefix)].push(right);
    }
  }
  for (const [a, b] of joinedPairs(search)) {
    const right = ownAtom(search.terms[b]!);
    questions[asked(right.prefix)].push(ownAtom(search.terms[a]!).text + right.text);
  }
  for (const run of charRuns(search)) questions.tokens.push(run.text);
  return questions;
}

export const hasQuestions = (q: VocabularyQuestions) =>
  q.tokens.length + q.words.length + q.starts.length + q.near.length > 0;

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz';

/**
 * The words one edit from `term` that do not start with its first letter: the edit is at the start —
 * the first letter deleted, swapped with the second, replaced or preceded by another letter.
 */
export function firstLetterEdits(term: string): string[] {
  const rest = term.slice(1);
  return [rest, term[1]! + term[0]! + term.slice(2), ...[...ALPHABET].flatMap((c) => [c + rest, c + term])].filter(
    (w) => w[0] !== term[0],
  );
}

/**
 * The vocabulary's answers, in one statement, each part an index read of the words' primary key
 * (byte order; a-z only, so `{`, the byte after `z`, bounds a start's range) but one:
 *
 * - a start: the range of the words starting with it;
 * - the near words of a term of one edit: a word one edit away either starts with the term's first
 *   letter (that letter's range of the length window) or is one of `firstLetterEdits` (54 lookups);
 *   each is kept when `levenshtein_less_equal` finds it within two (a swap is two Levenshtein edits);
 * - of a term of two edits (9 letters or more), the length window is scanned: ~60 ms at 200,000
 *   words on the loaded bench machine.
 *
 * Each term's words are a subquery of its own (`OFFSET 0`): read only for the terms there are — once
 * inlined, PostgreSQL scanned the whole vocabulary for a list of no two-edit terms (63 ms at 200,000
 * words). Paid once per keyword and catalogue generation (ForgivingCache).
 */
export async function askVocabulary(sql: SqlReader, questions: VocabularyQuestions): Promise<VocabularyAnswers> {
  const oneEdit = questions.near.filter((n) => n.edits === 1);
  const rows = await sql.query<{
    kind: 'token' | 'word' | 'start' | 'near';
    word: string;
    term: string | null;
    items: number;
  }>(
    `SELECT 'token' AS kind, token AS word, NULL::text AS term, items FROM search_token_counts
      WHERE token = ANY($1::text[]) AND items > 0
     UNION ALL
     SELECT 'word', word, NULL, items FROM search_words WHERE word = ANY($2::text[]) AND items > 0
     UNION ALL
     SELECT 'start', s, NULL, 0 FROM unnest($5::text[]) s
      WHERE EXISTS (SELECT 1 FROM search_words w WHERE w.word >= s AND w.word < s || '{' AND w.items > 0)
     UNION ALL
     SELECT 'near', w.word, q.term, w.items
       FROM unnest($3::text[]) q(term)
       CROSS JOIN LATERAL (
         SELECT word, items FROM search_words
          WHERE (word >= left(q.term, 1) AND word < left(q.term, 1) || '{' OR word = ANY($6::text[]))
            AND items > 0 AND word <> q.term AND length(word) BETWEEN length(q.term) - 1 AND length(q.term) + 1
            AND levenshtein_less_equal(word, q.term, 2) <= 2 OFFSET 0) w
     UNION ALL
     SELECT 'near', w.word, q.term, w.items
       FROM unnest($4::text[]) q(term)
       CROSS JOIN LATERAL (
         SELECT word, items FROM search_words
          WHERE items > 0 AND word <> q.term AND length(word) BETWEEN length(q.term) - 2 AND length(q.term) + 2
            AND levenshtein_less_equal(word, q.term, 4) <= 4 OFFSET 0) w`,
    [
      [...new Set(questions.tokens)],
      [...new Set(questions.words)],
      oneEdit.map((n) => n.term),
      questions.near.filter((n) => n.edits === 2).map((n) => n.term),
      [...new Set(questions.starts)],
      [...new Set(oneEdit.flatMap((n) => firstLetterEdits(n.term)))],
    ],
  );
  const near = new Map<string, Array<{ word: string; items: number }>>();
  for (const row of rows.filter((r) => r.kind === 'near')) {
    const list = near.get(row.term!) ?? [];
    list.push({ word: row.word, items: row.items });
    near.set(row.term!, list);
  }
  return {
    tokens: new Set(rows.filter((r) => r.kind === 'token').map((r) => r.word)),
    words: new Set(rows.filter((r) => r.kind === 'word').map((r) => r.word)),
    starts: new Set(rows.filter((r) => r.kind === 'start').map((r) => r.word)),
    near,
  };
}

/**
 * The words of `candidates` within `term`'s edits (Damerau: optimal string alignment, by the
 * `damerau-levenshtein` package), closest first, then the commonest, at most MAX_NEAR_WORDS.
 */
export function nearWords(term: string, candidates: ReadonlyArray<{ word: string; items: number }>): string[] {
  const edits = editsFor(term.length);
  return candidates
    .map((c) => ({ ...c, distance: damerauLevenshtein(term, c.word).steps }))
    .filter((c) => c.distance <= edits && c.word !== term)
    .sort((a, b) => a.distance - b.distance || b.items - a.items || (a.word < b.word ? -1 : 1))
    .slice(0, MAX_NEAR_WORDS)
    .map((c) => c.word);
}

const forgiven = (atoms: Atom[]): Spelling => ({ atoms, synonym: false, forgiven: true });

/** `search` with the spellings §9.6 adds, given the vocabulary's answers; `search` itself when none. */
export function forgive(search: KeywordSearch, answers: VocabularyAnswers): KeywordSearch {
  const added = search.terms.map(() => [] as Spelling[]);
  const isIn = (word: string, prefix: boolean) => (prefix ? answers.starts : answers.words).has(word);
  const homophones = (text: string) => {
    const pinyin = syllablesOf(text).join('');
    return pinyin ? [forgiven([{ text: pinyin, chinese: false, prefix: false, pinyin: true }])] : [];
  };
  search.terms.forEach((spellings, k) => {
    const own = ownAtom(spellings);
    if (own.chinese) {
      // Homophones only for a term no item holds as written: 篮 stays 篮 where the catalogue has it.
      if (!answers.tokens.has(own.text)) added[k]!.push(...homophones(own.text));
      return;
    }
    if (!isLatinWord(own)) return;
    for (const word of nearWords(own.text, answers.near.get(own.text) ?? [])) {
      // The last term already matches every word it starts (`merin` → merino, as typed): such a
      // spelling would find nothing more, and would send the keyword off the one-word index.
      if (own.prefix && word.startsWith(own.text)) continue;
      added[k]!.push(forgiven([{ text: word, chinese: false, prefix: false }]));
    }
    for (const [left, right] of halves(own.text)) {
      if (!answers.words.has(left) || !isIn(right, own.prefix)) continue;
      added[k]!.push(
        forgiven([
          { text: left, chinese: false, prefix: false },
          { text: right, chinese: false, prefix: own.prefix },
        ]),
      );
    }
  });
  for (const [a, b] of joinedPairs(search)) {
    const right = ownAtom(search.terms[b]!);
    const joined = ownAtom(search.terms[a]!).text + right.text;
    if (!isIn(joined, right.prefix)) continue;
    // One word stands for both terms: each is found where the joined word is.
    added[a]!.push(forgiven([{ text: joined, chinese: false, prefix: right.prefix }]));
    added[b]!.push(forgiven([{ text: joined, chinese: false, prefix: right.prefix }]));
  }
  for (const run of charRuns(search)) {
    if (answers.tokens.has(run.text)) continue;
    // The run's word, by its pinyin, stands for each of its characters.
    for (let k = run.from; k < run.to; k++) added[k]!.push(...homophones(run.text));
  }
  if (added.every((list) => list.length === 0)) return search;
  return { ...search, terms: search.terms.map((spellings, k) => [...spellings, ...added[k]!]) };
}

/**
 * Forgives keywords against the vocabulary of the catalogue generation they are searched in: kept
 * while the generation lasts (a catalogue write changes it, on every instance within §7.6's bound) —
 * and, where changes cannot be heard (cache off), for UNHEARD_MS at most, as the synonym groups are
 * (generation-kept.ts, which also shares a read under way among the searches waiting for it).
 */
export class ForgivingCache {
  /** Per compiled keyword (kept by keyword.ts's compiledKeyword): its forgiven form. */
  readonly #kept: GenerationKept<KeywordSearch, KeywordSearch>;

  constructor(generations: Generations) {
    this.#kept = new GenerationKept(generations);
  }

  async forgive(sql: SqlReader, search: KeywordSearch): Promise<KeywordSearch> {
    return this.#kept.get(search, async () => {
      const questions = questionsOf(search);
      return hasQuestions(questions) ? forgive(search, await askVocabulary(sql, questions)) : search;
    });
  }
}
