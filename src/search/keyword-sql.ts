/**
 * A compiled keyword as SQL over `item_search_documents d` (contract §9.1): the candidates the GIN
 * index finds, the exact check, and the relevance tier of each term — the field it was found in,
 * literal before pinyin before synonym:
 *
 *   10 the name equals the keyword · 20 starts with it · 30 contains it · then the lowest field of
 *   any term: 40 name (+5 by pinyin, +2 by a synonym) · 50 category path · 60 SKU codes and specs ·
 *   70 description — and a term found only by a spelling forgiving search added (§9.6) +100, so
 *   such an item ranks after every item found as typed, and among its like by the same tiers.
 */
import type { KeywordSearch, Spelling } from './keyword.ts';
import { hanLookupOf, prefixLookupOf, substringLookupOf } from './text.ts';

export const TIER = { equals: 10, startsWith: 20, contains: 30, name: 40, category: 50, sku: 60, description: 70 };
export const PINYIN = 5;
/**
 * The worst tier of an item found in its name (the name's, by pinyin): what "in the name" means for
 * suggestions (postings' `in_name`, the general path's test) and where their walk of postings ends.
 */
export const IN_NAME = TIER.name + PINYIN;
const SYNONYM = 2;
/** Added to the tier of a spelling forgiving search added (forgiving.ts): after every tier above. */
export const FORGIVEN = 100;

/** Term tier `t` (a column of the LATERAL) is in the name — literally, by pinyin or a synonym, as typed or forgiven. */
export const inNameSql = (t: string) => `(${t} <= ${IN_NAME} OR ${t} BETWEEN ${FORGIVEN} AND ${FORGIVEN + IN_NAME})`;

/** Pushes a parameter, returns its placeholder. */
export type Param = (value: unknown) => string;

type Atom = Spelling['atoms'][number];

function lookupOf(atom: Atom): string[] {
  if (atom.chinese) return hanLookupOf(atom.text);
  return [atom.prefix ? prefixLookupOf(atom.text) : atom.text];
}

/** `atom` found in a field: a Chinese atom in its text, a word among its words (or starting one). */
function foundIn(atom: Atom, p: Param, text: string, words: string): string {
  if (atom.chinese) return `strpos(${text}, ${p(atom.text)}::text) > 0`;
  return `strpos(${words}, ${p(atom.prefix ? ` ${atom.text}` : ` ${atom.text} `)}::text) > 0`;
}

/** The tier an atom is found at, or NULL. */
function atomTier(atom: Atom, p: Param): string {
  if (atom.pinyin) {
    // A Chinese term's homophones: the pinyin of names and category paths alone.
    const pinyinArms: Array<[string, number]> = [
      [foundIn(atom, p, "''", 'd.name_pinyin'), TIER.name + PINYIN],
      [foundIn(atom, p, "''", 'd.category_pinyin'), TIER.category + PINYIN],
    ];
    return `CASE ${pinyinArms.map(([when, tier]) => `WHEN ${when} THEN ${tier}`).join(' ')} END`;
  }
  const arms: Array<[string, number]> = [[foundIn(atom, p, 'd.name_text', 'd.name_words'), TIER.name]];
  if (!atom.chinese) arms.push([foundIn(atom, p, "''", 'd.name_pinyin'), TIER.name + PINYIN]);
  arms.push([foundIn(atom, p, 'd.category_text', 'd.category_words'), TIER.category]);
  if (!atom.chinese) arms.push([foundIn(atom, p, "''", 'd.category_pinyin'), TIER.category + PINYIN]);
  arms.push([foundIn(atom, p, 'd.sku_text', 'd.sku_words'), TIER.sku]);
  arms.push([foundIn(atom, p, 'd.description_text', 'd.description_words'), TIER.description]);
  return `CASE ${arms.map(([when, tier]) => `WHEN ${when} THEN ${tier}`).join(' ')} END`;
}

/** A spelling's tier: the lowest field among its atoms (all must be found), or NULL. */
function spellingTier(spelling: Spelling, p: Param): string {
  const tiers = spelling.atoms.map((a) => atomTier(a, p));
  const tier =
    tiers.length === 1
      ? tiers[0]!
      : `CASE WHEN ${tiers.map((t) => `(${t}) IS NULL`).join(' OR ')} THEN NULL ELSE GREATEST(${tiers.join(', ')}) END`;
  if (spelling.forgiven) return `(${tier}) + ${FORGIVEN}`;
  return spelling.synonym ? `(${tier}) + ${SYNONYM}` : tier;
}

export interface KeywordSql {
  /** Index-backed: the documents that may match (a superset of the matches). */
  candidates: string;
  /** `SELECT … AS t1, … AS tN` for a LATERAL: each term's tier, NULL when not found. */
  tiers: string;
  /** The exact rule over the LATERAL's columns (`t`) and the item (`i`). */
  matches: string;
  /**
   * The relevance tier (lower is better), the distance between the terms in the name, and the first
   * one's place — made (and their parameters sent) only for an order by relevance.
   */
  relevance(): { rank: string; span: string; first: string };
}

export function keywordSql(search: KeywordSearch, p: Param): KeywordSql {
  const substring = `d.lookup @> ${p(substringLookupOf(search.normalised))}::text[]`;
  const substringMatch = `i.name ILIKE ${p(search.pattern)}::text`;
  // `kw`: the placeholder of the normalised keyword, sent once per statement that orders by relevance.
  const nameTiers = (kw: string) =>
    `CASE WHEN d.name_text = ${kw} THEN ${TIER.equals} WHEN starts_with(d.name_text, ${kw}) THEN ${TIER.startsWith} ` +
    `WHEN strpos(d.name_text, ${kw}) > 0 THEN ${TIER.contains}`;
  if (search.terms.length === 0) {
    return {
      candidates: substring,
      tiers: 'SELECT 1 AS t0',
      matches: substringMatch,
      relevance: () => ({
        rank: `${nameTiers(p(search.normalised))} ELSE ${TIER.contains} END`,
        span: '0',
        first: '0',
      }),
    };
  }
  const candidates = search.terms
    .map(
      (spellings) =>
        `(${spellings
          .map((s) => s.atoms.map((a) => `d.lookup @> ${p(lookupOf(a))}::text[]`).join(' AND '))
          .join(' OR ')})`,
    )
    .join(' AND ');
  const columns = search.terms.map((_, k) => `t.t${k}`);
  const tiers = `SELECT ${search.terms
    .map((spellings, k) => `LEAST(${spellings.map((s) => spellingTier(s, p)).join(', ')}) AS t${k}`)
    .join(', ')}`;
  const allInName = columns.map((c) => `${c} = ${TIER.name}`).join(' AND ');
  return {
    candidates: `((${candidates}) OR ${substring})`,
    tiers,
    matches: `((${columns.map((c) => `${c} IS NOT NULL`).join(' AND ')}) OR ${substringMatch})`,
    relevance: () => {
      const kw = p(search.normalised);
      // Where each term stands in the name (its own spelling, literally); NULL when it is not there.
      const places = search.terms.map(
        (spellings) => `NULLIF(strpos(d.name_text, ${p(spellings[0]!.atoms[0]!.text)}), 0)`,
      );
      // Closeness and place order only the "every term in the name" tier (a name holding the whole
      // keyword is ranked above it already, and ties there go newest first).
      const inNameTier = `strpos(d.name_text, ${kw}) = 0 AND ${allInName}`;
      return {
        rank: `${nameTiers(kw)} ELSE COALESCE(GREATEST(${columns.join(', ')}), ${TIER.contains + 5}) END`,
        span: `CASE WHEN ${inNameTier} THEN COALESCE(GREATEST(${places.join(', ')}) - LEAST(${places.join(', ')}), 0) ELSE 0 END`,
        first: `CASE WHEN ${inNameTier} THEN COALESCE(LEAST(${places.join(', ')}), 0) ELSE 0 END`,
      };
    },
  };
}
