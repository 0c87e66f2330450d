/**
 * An item's search document (contract §9.1): per field, its normalised text (where Chinese terms are
 * found as substrings) and its words (where other terms are found as words, or as a word's start),
 * the pinyin of the name's and the category path's Chinese words, and the lookup entries a GIN index
 * finds candidates by. Built in Node from the item's rows, written in the write's transaction.
 */
import { hanGramsOf, nameGramsOf, normalise, pinyinWordsOf, prefixEntriesOf, wordsOf } from './text.ts';

/** What a document is built from: the item, its category path (root first) and its SKUs. */
export interface DocumentSource {
  itemId: number;
  name: string;
  description: string;
  categoryPath: string[];
  skus: Array<{ skuCode: string | null; specs: Record<string, string> }>;
}

export interface SearchDocument {
  itemId: number;
  nameText: string;
  nameWords: string;
  namePinyin: string;
  categoryText: string;
  categoryWords: string;
  categoryPinyin: string;
  /** SKU codes and spec values (not spec names). */
  skuText: string;
  skuWords: string;
  descriptionText: string;
  descriptionWords: string;
  lookup: string[];
}

/** Words as one string with a space on each side of each, so `' w '` finds a word and `' w'` a start. */
const spaced = (words: Iterable<string>) => {
  const list = [...new Set(words)];
  return list.length ? ` ${list.join(' ')} ` : ' ';
};

export function buildDocument(source: DocumentSource): SearchDocument {
  const nameText = normalise(source.name);
  // A field's parts are kept apart by a character no term holds, so a term never spans two of them.
  const categoryText = source.categoryPath.map(normalise).join(' | ');
  const skuText = source.skus
    .flatMap((s) => [s.skuCode ?? '', ...Object.values(s.specs)])
    .map(normalise)
    .filter(Boolean)
    .join(' | ');
  const descriptionText = normalise(source.description);

  const nameWords = wordsOf(nameText);
  const categoryWords = wordsOf(categoryText);
  const skuWords = wordsOf(skuText);
  const descriptionWords = wordsOf(descriptionText);
  const namePinyin = pinyinWordsOf(nameText);
  const categoryPinyin = pinyinWordsOf(categoryText);

  const lookup = new Set<string>();
  for (const word of [
    ...nameWords,
    ...categoryWords,
    ...skuWords,
    ...descriptionWords,
    ...namePinyin,
    ...categoryPinyin,
  ]) {
    lookup.add(word);
    for (const entry of prefixEntriesOf(word)) lookup.add(entry);
  }
  for (const text of [nameText, categoryText, skuText, descriptionText])
    for (const g of hanGramsOf(text)) lookup.add(g);
  for (const g of nameGramsOf(nameText)) lookup.add(g);

  return {
    itemId: source.itemId,
    nameText,
    nameWords: spaced(nameWords),
    namePinyin: spaced(namePinyin),
    categoryText,
    categoryWords: spaced(categoryWords),
    categoryPinyin: spaced(categoryPinyin),
    skuText,
    skuWords: spaced(skuWords),
    descriptionText,
    descriptionWords: spaced(descriptionWords),
    lookup: [...lookup],
  };
}
