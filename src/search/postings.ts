/**
 * The one-word index: the commonest search is one word typed into the box (`trail`, `跑鞋`, `paoxie`),
 * and for it the documents' GIN index must visit and rank every match (13,750 of 100,000 items for
 * `trail`) to answer a page of 20 and its total. Here each item has one posting per token such a
 * keyword may be — every start (≤ MAX_TOKEN characters) of its words and pinyin, every piece of its
 * Chinese text, every piece of the letters and digits of its name — with the relevance tier that
 * keyword gives it (contract §9.1, as search/keyword-sql.ts ranks it). A B-tree over (token, tier,
 * created_at DESC, item_id DESC) then answers the page by walking 20 entries and the total by
 * counting the token's entries, without visiting the items.
 *
 * It serves only the keywords `oneWordToken` accepts, where its answer is the general search's
 * answer by construction (test/search/one-word.test.ts compares the two on every token of a corpus);
 * every other search takes the general path.
 */
import type { SearchDocument } from './document.ts';
import type { KeywordSearch } from './keyword.ts';
import { IN_NAME, PINYIN, TIER } from './keyword-sql.ts';
import { hanRunsOf } from './text.ts';

/** The one-word index's order over postings `t`: best tier, then newest (contract §9.1's ties). */
export const postingOrder = (t: string) => `${t}.tier, ${t}.created_at DESC, ${t}.item_id DESC`;

/** The longest token: a longer keyword is rare and selective, and takes the general path. */
export const MAX_TOKEN = 12;

export interface Posting {
  token: string;
  tier: number;
  /**
   * A word of the name or of its pinyin starts with the token, or the name's text holds it (Chinese).
   * Such a posting's tier is at most `IN_NAME`, which bounds suggestions' walk.
   */
  inName: boolean;
}

/** Letters and digits a keyword of the one-word index may hold, besides Chinese characters. */
const LATIN_TOKEN = /^[a-z0-9]+$/;
const HAN_TOKEN = /^\p{Script=Han}+$/u;
const LATIN_RUNS = /[a-z0-9]+/g;

/** A UTF-16 surrogate: the text has characters of two code units, where `slice` would split one. */
const SURROGATE = /[\uD800-\uDFFF]/;

/** `add`s every piece of `text` of 1..MAX_TOKEN characters. */
function pieces(text: string, add: (piece: string) => void): void {
  if (!SURROGATE.test(text)) {
    // One code unit per character (nearly all text): pieces by slicing, without an array per piece.
    for (let i = 0; i < text.length; i++) {
      for (let n = 1; n <= MAX_TOKEN && i + n <= text.length; n++) add(text.slice(i, i + n));
    }
    return;
  }
  const chars = [...text];
  for (let i = 0; i < chars.length; i++) {
    for (let n = 1; n <= MAX_TOKEN && i + n <= chars.length; n++) add(chars.slice(i, i + n).join(''));
  }
}

/** `add`s every start of `word` of 1..MAX_TOKEN characters. */
function starts(word: string, add: (start: string) => void): void {
  if (!SURROGATE.test(word)) {
    for (let n = 1; n <= Math.min(MAX_TOKEN, word.length); n++) add(word.slice(0, n));
    return;
  }
  const chars = [...word];
  for (let n = 1; n <= Math.min(MAX_TOKEN, chars.length); n++) add(chars.slice(0, n).join(''));
}

const wordList = (spaced: string) => spaced.trim().split(' ').filter(Boolean);

/**
 * The postings of one item: `name` is the item's name as written (the revision-1 substring rule
 * compares it, case-insensitively), `document` its search document.
 */
export function postingsOf(name: string, document: SearchDocument): Posting[] {
  const fieldTier = new Map<string, number>();
  const found = (tier: number) => (token: string) => {
    const known = fieldTier.get(token);
    if (known === undefined || tier < known) fieldTier.set(token, tier);
  };
  // A word term is found where a word starts with it, literally or by pinyin (keyword-sql.ts atomTier).
  const wordFields: Array<[string, number]> = [
    [document.nameWords, TIER.name],
    [document.namePinyin, TIER.name + PINYIN],
    [document.categoryWords, TIER.category],
    [document.categoryPinyin, TIER.category + PINYIN],
    [document.skuWords, TIER.sku],
    [document.descriptionWords, TIER.description],
  ];
  for (const [words, tier] of wordFields) for (const word of wordList(words)) starts(word, found(tier));
  // A Chinese term is found where the field's text holds it.
  const textFields: Array<[string, number]> = [
    [document.nameText, TIER.name],
    [document.categoryText, TIER.category],
    [document.skuText, TIER.sku],
    [document.descriptionText, TIER.description],
  ];
  for (const [text, tier] of textFields) for (const run of hanRunsOf(text)) pieces(run, found(tier));
  // The revision-1 rule: the name holds the keyword anywhere (`ack` in `Backpack`). Found only so,
  // an item ranks by the name tiers below, or just after them when the normalised name does not
  // show the keyword (keyword-sql.ts: COALESCE(…, contains + 5)).
  const inWrittenName = new Set<string>();
  for (const run of name.toLowerCase().match(LATIN_RUNS) ?? []) pieces(run, (piece) => inWrittenName.add(piece));

  const text = document.nameText;
  const tierOf = (token: string) =>
    text === token
      ? TIER.equals
      : text.startsWith(token)
        ? TIER.startsWith
        : text.includes(token)
          ? TIER.contains
          : (fieldTier.get(token) ?? TIER.contains + 5);
  return [...new Set([...fieldTier.keys(), ...inWrittenName])].map((token) => ({
    token,
    tier: tierOf(token),
    inName: (fieldTier.get(token) ?? Number.POSITIVE_INFINITY) <= IN_NAME,
  }));
}

/**
 * The token a search is answered by from the one-word index, or undefined when it takes the
 * general path: one term, no synonym of it, typed as it is indexed (lower-case letters and digits, or
 * Chinese characters, nothing else), at most MAX_TOKEN characters.
 */
export function oneWordToken(search: KeywordSearch): string | undefined {
  if (search.terms.length !== 1) return undefined;
  const spellings = search.terms[0]!;
  if (spellings.length !== 1 || spellings[0]!.atoms.length !== 1) return undefined;
  const { text } = spellings[0]!.atoms[0]!;
  // The substring rule compares the keyword as typed: it must be the term itself (case aside).
  if (search.typed.trim().toLowerCase() !== text || search.normalised !== text) return undefined;
  if ([...text].length > MAX_TOKEN) return undefined;
  return LATIN_TOKEN.test(text) || HAN_TOKEN.test(text) ? text : undefined;
}
