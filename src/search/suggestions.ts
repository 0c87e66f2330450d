/**
 * Search suggestions (contract §9.3): category and item names in which every word of `q` is found —
 * its last word as the start of a name word, Chinese as a substring, Latin also by the pinyin of the
 * name's Chinese words, and by the spellings forgiving search adds (contract §9.6: a typo, a homophone,
 * a joined word). Categories first (few: matched in Node from one small read), then items by relevance
 * (the search documents, name fields only).
 */
import type { SqlReader } from '../db/database.ts';
import { memoBy } from '../memo.ts';
import { GenerationKept, type Generations } from './generation-kept.ts';
import { compileItemQuery, matchingItems } from './item-query.ts';
import { compiledKeyword, type KeywordSearch, type Spelling } from './keyword.ts';
import { IN_NAME, inNameSql } from './keyword-sql.ts';
import { oneWordToken, postingOrder } from './postings.ts';
import { hasHan, normalise, pinyinWordsOf, wordsOf } from './text.ts';

export interface Suggestion {
  text: string;
  kind: 'item' | 'category';
  id: number;
}

/** A category name as suggestions compare it; names change rarely, so each is worked out once. */
interface NameForm {
  text: string;
  words: Set<string>;
  pinyin: Set<string>;
}
const forms = new Map<string, NameForm>();
const MAX_FORMS = 10_000;

function formOf(name: string): NameForm {
  let form = forms.get(name);
  if (!form) {
    const text = normalise(name);
    form = { text, words: new Set(wordsOf(text)), pinyin: new Set(hasHan(text) ? pinyinWordsOf(text) : []) };
    if (forms.size >= MAX_FORMS) forms.clear();
    forms.set(name, form);
  }
  return form;
}

/** `words` holds `text`, or (`asStart`) a word starting with it. Every category is tested per request. */
function hasWord(words: Set<string>, text: string, asStart: boolean): boolean {
  if (!asStart) return words.has(text);
  for (const word of words) if (word.startsWith(text)) return true;
  return false;
}

type Atom = Spelling['atoms'][number];

/** 0: found literally; 1: by pinyin; undefined: not found. */
function atomGrade(form: NameForm, atom: Atom): 0 | 1 | undefined {
  if (atom.chinese) return form.text.includes(atom.text) ? 0 : undefined;
  if (!atom.pinyin && hasWord(form.words, atom.text, atom.prefix)) return 0;
  return hasWord(form.pinyin, atom.text, atom.prefix) ? 1 : undefined;
}

/**
 * 0: every term found literally; 1: some only by pinyin; 2: some only by a spelling forgiving search
 * added (contract §9.6); undefined: not a match. Each term by its best spelling, every atom of it found.
 */
function categoryMatch(form: NameForm, terms: Spelling[][]): 0 | 1 | 2 | undefined {
  let grade: 0 | 1 | 2 = 0;
  for (const spellings of terms) {
    let best: 0 | 1 | 2 | undefined;
    for (const spelling of spellings) {
      const grades = spelling.atoms.map((atom) => atomGrade(form, atom));
      if (grades.some((g) => g === undefined)) continue;
      const found = spelling.forgiven ? 2 : (Math.max(...(grades as number[])) as 0 | 1);
      if (best === undefined || found < best) best = found;
    }
    if (best === undefined) return undefined;
    if (best > grade) grade = best;
  }
  return grade;
}

export interface SuggestionOptions {
  /** Whether a one-word `q` is answered from the one-word index (tests compare it with the general path). */
  oneWordIndex?: boolean;
  /** Adds forgiving search's spellings (search/forgiving.ts: ForgivingCache); none without it. */
  forgive?: (search: KeywordSearch) => Promise<KeywordSearch>;
  /** The categories, as kept (SuggestionCategories); without it, read for this request. */
  categories?: () => Promise<readonly CategoryName[]>;
}

interface CategoryName {
  id: number;
  name: string;
}

const readCategories = (sql: SqlReader) =>
  sql.query<CategoryName>('SELECT id, name FROM categories ORDER BY sort_order, id', [], { prepare: true });

/** The key the categories are kept under. */
const ALL = {};

/**
 * The categories every suggestion is matched against, kept per catalogue generation (a category
 * write changes it; unheard, 500 ms at most: generation-kept.ts) instead of read by every request: one
 * of the two statements of a suggestion, 50 rows at the bench's 100,000 items.
 */
export class SuggestionCategories {
  readonly #kept: GenerationKept<typeof ALL, readonly CategoryName[]>;

  constructor(generations: Generations) {
    this.#kept = new GenerationKept(generations);
  }

  get(sql: SqlReader): Promise<readonly CategoryName[]> {
    return Promise.resolve(this.#kept.get(ALL, () => readCategories(sql)));
  }
}

export async function findSuggestions(
  sql: SqlReader,
  q: string,
  limit: number,
  { oneWordIndex = true, forgive, categories: keptCategories }: SuggestionOptions = {},
): Promise<Suggestion[]> {
  // Compiled once: its terms and their spellings serve the categories, the SQL the items.
  const compiled = compiledKeyword(q);
  const search = forgive ? await forgive(compiled) : compiled;
  const { terms } = search;
  if (terms.length === 0) return [];
  const categories = await (keptCategories ? keptCategories() : readCategories(sql));
  const matched = categories
    .map((c) => ({ c, grade: categoryMatch(formOf(c.name), terms) }))
    .filter((m) => m.grade !== undefined)
    .sort((a, b) => a.grade! - b.grade!)
    .slice(0, limit)
    .map(({ c }): Suggestion => ({ text: c.name, kind: 'category', id: c.id }));
  const room = limit - matched.length;
  if (room === 0) return matched;

  const items = await itemNames(sql, search, room, oneWordIndex);
  return [...matched, ...items.map((r): Suggestion => ({ text: r.name, kind: 'item', id: r.id }))];
}

/**
 * The one-word statement for `room` names, made once per `room`: the same string every time, so
 * naming it for its prepared statement (db/prepared.ts) does not hash a new one per request.
 * `in_name` and `visible` (items the public sees) are tested in the postings' index (its last
 * columns); a name posting's tier is at most the
 * name's by pinyin (postings.ts), so the walk stops there even for a token no name holds.
 */
const oneWordNames = memoBy(
  (room: number) => `SELECT i.id, i.name
         FROM (SELECT item_id, tier, created_at FROM search_postings
                WHERE token = $1 AND in_name AND tier <= ${IN_NAME} AND visible
                ORDER BY ${postingOrder('search_postings')} LIMIT ${room}) p
         JOIN items i ON i.id = p.item_id
        ORDER BY ${postingOrder('p')}`,
);

/** Up to `room` items whose name holds every term, by relevance (§9.1). */
function itemNames(
  sql: SqlReader,
  search: KeywordSearch,
  room: number,
  oneWordIndex: boolean,
): Promise<Array<{ id: number; name: string }>> {
  // The general path is kept for every other `q`, and for tests to compare the two.
  const token = oneWordIndex ? oneWordToken(search) : undefined;
  if (token !== undefined) {
    // One word typed (the commonest case while typing): the one-word index holds each name's rank.
    // One plan for every token (its postings' index, in its order); `room` is one of 20 values.
    return sql.query(oneWordNames(room), [token], { prepare: true });
  }
  const query = compileItemQuery({ search });
  const { rank, span, first } = query.keyword!.relevance();
  // In the name: every term's tier is the name's, literal or by pinyin, as typed or forgiven.
  const inName = search.terms.map((_, k) => inNameSql(`t.t${k}`)).join(' AND ');
  return sql.query(
    `SELECT i.id, i.name ${matchingItems(query)} AND ${inName}
      ORDER BY ${rank}, ${span}, ${first}, i.created_at DESC, i.id DESC LIMIT ${room}`,
    query.params,
  );
}
