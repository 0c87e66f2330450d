/**
 * Item handles (contract §12.1): a unique, URL-safe name, `[a-z0-9]+(-[a-z0-9]+)*`, 1..100 characters,
 * stored in lower case so the unique index compares them case-insensitively. An item created without
 * one gets one made from its name — Chinese as toneless pinyin syllables, other scripts folded to
 * ASCII — numbered `-2`, `-3` … past the handles already taken.
 */
import { pinyin } from 'pinyin-pro';

export const HANDLE_MAX_LENGTH = 100;
export const HANDLE_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/** The handle of a name with nothing URL-safe in it. */
const FALLBACK = 'item';

// Latin letters NFKD does not take apart into a base letter and a mark.
const LETTERS: Record<string, string> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  ł: 'l',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ı: 'i',
};

/** `text` in lower-case ASCII letters and digits, every run of anything else one `-`, at most `max` long. */
function slugOf(text: string, max: number): string {
  const folded = text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[ßæœøłđðþı]/g, (c) => LETTERS[c] ?? c);
  const slug = folded.replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
  return slug.slice(0, max).replace(/-+$/, '');
}

/**
 * The handle a name makes (`轻量跑鞋` → `qing-liang-pao-xie`, `Café Crème` → `cafe-creme`), before it
 * is made unique: each Chinese character its toneless pinyin syllable (`ü` as `v`, as it is typed),
 * apart from its neighbours; cut at 100 characters; `item` when nothing is left.
 */
export function handleOfName(name: string): string {
  // Each Chinese character is an entry of its own; a run of other characters is one entry as written.
  const parts = pinyin(name, { toneType: 'none', type: 'array', nonZh: 'consecutive', v: true });
  return slugOf(parts.join(' '), HANDLE_MAX_LENGTH) || FALLBACK;
}

/** `base` numbered `n` (`trail-boot-2`), the base cut so the whole stays within 100 characters. */
export function numberedHandle(base: string, n: number): string {
  if (n <= 1) return base;
  const suffix = `-${n}`;
  return `${base.slice(0, HANDLE_MAX_LENGTH - suffix.length).replace(/-+$/, '')}${suffix}`;
}

/** The first of `base`, `base-2`, `base-3` … not in `taken`. */
export function firstFreeHandle(base: string, taken: ReadonlySet<string>): string {
  for (let n = 1; ; n++) {
    const handle = numberedHandle(base, n);
    if (!taken.has(handle)) return handle;
  }
}

/**
 * The prefix every numbered form of `base` starts with (a numbered form may cut the base: 10
 * characters leave room for any suffix up to `-999999999`), for the one query of the taken ones.
 */
export const handlePrefix = (base: string) => base.slice(0, HANDLE_MAX_LENGTH - 10);

/** What the taken handles are read through: a write's transaction (or the seed's). */
interface HandleReader {
  item: {
    findMany(args: {
      where: { handle: { startsWith: string } };
      select: { handle: true };
    }): Promise<Array<{ handle: string }>>;
  };
}

/** A free handle made from `name`: the taken numbered forms of its base are read with one query. */
export async function freeHandleOfName(db: HandleReader, name: string): Promise<string> {
  const base = handleOfName(name);
  const rows = await db.item.findMany({
    where: { handle: { startsWith: handlePrefix(base) } },
    select: { handle: true },
  });
  return firstFreeHandle(base, new Set(rows.map((r) => r.handle)));
}
