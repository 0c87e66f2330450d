/**
 * The relevance suite (contract §9.1): a catalogue of 360 items built from attributes (product type,
 * audience, brand, line, colours) and 79 queries — Chinese, mixed Chinese/Latin, pinyin, initials,
 * case and spacing typos, synonyms, spec values, typos, homophones, Chinese and English together — each with a rule saying which items a shopper
 * would count as a right answer. The rule is written from the attributes, never from what search
 * returns. `npm test` runs it through the HTTP server (test/search/relevance.test.ts) and
 * `npm run bench` prints its scores: MRR (1 / rank of the first right answer, averaged) and
 * precision@3 (right answers among the first three, of those there can be).
 */

import type { PrismaClient } from '../src/generated/prisma/client.ts';
import { indexMissing } from '../src/search/documents.ts';

export interface ProductType {
  zh: string;
  en: string;
  category: [string, string];
}

const TYPES: ProductType[] = [
  { zh: '跑鞋', en: 'Running Shoe', category: ['鞋靴', '运动鞋'] },
  { zh: '篮球鞋', en: 'Basketball Shoe', category: ['鞋靴', '运动鞋'] },
  { zh: '登山鞋', en: 'Hiking Boot', category: ['鞋靴', '户外鞋'] },
  { zh: 'T恤', en: 'Tee', category: ['服装', '上衣'] },
  { zh: '卫衣', en: 'Hoodie', category: ['服装', '上衣'] },
  { zh: '牛仔裤', en: 'Jeans', category: ['服装', '裤装'] },
  { zh: '羽绒服', en: 'Down Jacket', category: ['服装', '外套'] },
  { zh: '双肩包', en: 'Backpack', category: ['箱包', '背包'] },
  { zh: '帐篷', en: 'Tent', category: ['户外', '露营'] },
  { zh: '头灯', en: 'Headlamp', category: ['户外', '照明'] },
  { zh: '蓝牙耳机', en: 'Bluetooth Earbuds', category: ['数码', '音频'] },
  { zh: '手机壳', en: 'Phone Case', category: ['数码', '配件'] },
  { zh: '保温杯', en: 'Thermos', category: ['家居', '水杯'] },
  { zh: '台灯', en: 'Desk Lamp', category: ['家居', '照明'] },
  { zh: '瑜伽垫', en: 'Yoga Mat', category: ['运动', '健身'] },
];
const AUDIENCES = [
  { zh: '男士', en: "Men's" },
  { zh: '女士', en: "Women's" },
  { zh: '儿童', en: 'Kids' },
];
const BRANDS = ['Nova', 'Apex', 'Lumo', 'Terra'];
const LINES = ['Pro', 'Lite'];
const COLOURS = [
  { zh: '红色', en: 'red' },
  { zh: '黑色', en: 'black' },
  { zh: '白色', en: 'white' },
  { zh: '蓝色', en: 'blue' },
];

export interface SuiteItem {
  /** Unique within the suite. */
  name: string;
  description: string;
  /** Category path, root first. */
  category: [string, string];
  skus: Array<{ skuCode: string; specs: Record<string, string> }>;
  /** Its attributes, for the rules. */
  type: ProductType;
  audience: string;
  brand: string;
  line: string;
  colours: string[];
  /** Chinese name (true) or English name. */
  chineseName: boolean;
}

/** 15 types × 3 audiences × 4 brands × 2 lines = 360 items; brands Nova and Lumo are named in Chinese. */
export function suiteItems(): SuiteItem[] {
  const items: SuiteItem[] = [];
  let n = 0;
  for (const type of TYPES)
    for (const audience of AUDIENCES)
      for (const [b, brand] of BRANDS.entries())
        for (const line of LINES) {
          const chineseName = b % 2 === 0;
          // Two colours per item, spread so every brand has every colour somewhere.
          const shift = n + Math.floor(n / 8);
          const colours = [COLOURS[shift % 4]!, COLOURS[(shift + 1) % 4]!];
          const name = chineseName
            ? `${brand} ${audience.zh}${type.zh} ${line}`
            : `${brand} ${audience.en} ${type.en} ${line}`;
          items.push({
            name,
            description: chineseName
              ? `${type.en} by ${brand}, ${line.toLowerCase()} line.`
              : `${brand}的${type.zh}，${line === 'Pro' ? '专业款' : '轻便款'}。`,
            category: type.category,
            skus: colours.map((c, i) => ({
              skuCode: `${brand.slice(0, 2).toUpperCase()}-${n}-${i}`,
              specs: (chineseName ? { 颜色: c.zh, 尺码: 'M' } : { color: c.en, size: 'M' }) as Record<string, string>,
            })),
            type,
            audience: audience.zh,
            brand,
            line,
            colours: colours.map((c) => c.zh),
            chineseName,
          });
          n++;
        }
  return items;
}

/** Synonym groups the suite's shop keeps. */
export const SUITE_SYNONYMS = [
  ['衣服', '服装', 'clothes'],
  ['sneakers', '运动鞋'],
  ['耳机', 'earphones', 'earbuds'],
  // Chinese and English shop words joined (contract §9.6's demo groups, as a shop would keep them).
  ['黑色', 'black'],
  ['白色', 'white'],
  ['儿童', 'kids'],
];

const t = (zh: string) => (i: SuiteItem) => i.type.zh === zh;
const and =
  (...rules: Array<(i: SuiteItem) => boolean>) =>
  (i: SuiteItem) =>
    rules.every((r) => r(i));
const audience = (zh: string) => (i: SuiteItem) => i.audience === zh;
const brand = (b: string) => (i: SuiteItem) => i.brand === b;
const colour = (zh: string) => (i: SuiteItem) => i.colours.includes(zh);
const line = (l: string) => (i: SuiteItem) => i.line === l;
const category = (name: string) => (i: SuiteItem) => i.category.includes(name);

/** 79 queries, each with the items that would answer it. */
export const SUITE_QUERIES: Array<{ q: string; kind: string; relevant: (i: SuiteItem) => boolean }> = [
  // Chinese words, in any order or joined
  { q: '跑鞋', kind: 'chinese', relevant: t('跑鞋') },
  { q: '男士跑鞋', kind: 'chinese', relevant: and(t('跑鞋'), audience('男士')) },
  { q: '跑鞋 男士', kind: 'chinese', relevant: and(t('跑鞋'), audience('男士')) },
  { q: '女士羽绒服', kind: 'chinese', relevant: and(t('羽绒服'), audience('女士')) },
  { q: '儿童帐篷', kind: 'chinese', relevant: and(t('帐篷'), audience('儿童')) },
  { q: '蓝牙耳机', kind: 'chinese', relevant: t('蓝牙耳机') },
  { q: '保温杯', kind: 'chinese', relevant: t('保温杯') },
  { q: '台灯', kind: 'chinese', relevant: t('台灯') },
  { q: '瑜伽垫 女士', kind: 'chinese', relevant: and(t('瑜伽垫'), audience('女士')) },
  { q: '双肩包', kind: 'chinese', relevant: t('双肩包') },
  { q: '篮球鞋', kind: 'chinese', relevant: t('篮球鞋') },
  { q: '牛仔裤 儿童', kind: 'chinese', relevant: and(t('牛仔裤'), audience('儿童')) },
  // category names
  { q: '上衣', kind: 'category', relevant: category('上衣') },
  { q: '露营', kind: 'category', relevant: category('露营') },
  { q: '数码', kind: 'category', relevant: category('数码') },
  { q: '户外鞋', kind: 'category', relevant: category('户外鞋') },
  { q: '照明', kind: 'category', relevant: category('照明') },
  // mixed Chinese / Latin
  { q: 'Nova 跑鞋', kind: 'mixed', relevant: and(t('跑鞋'), brand('Nova')) },
  { q: 'Lumo 头灯 Pro', kind: 'mixed', relevant: and(t('头灯'), brand('Lumo'), line('Pro')) },
  { q: 'T恤 Lite', kind: 'mixed', relevant: and(t('T恤'), line('Lite')) },
  { q: 'Nova 男士T恤', kind: 'mixed', relevant: and(t('T恤'), brand('Nova'), audience('男士')) },
  { q: '手机壳 Lumo', kind: 'mixed', relevant: and(t('手机壳'), brand('Lumo')) },
  // English names
  { q: 'running shoe', kind: 'english', relevant: t('跑鞋') },
  { q: 'apex hoodie', kind: 'english', relevant: and(t('卫衣'), brand('Apex')) },
  { q: "women's down jacket", kind: 'english', relevant: and(t('羽绒服'), audience('女士')) },
  { q: 'terra backpack pro', kind: 'english', relevant: and(t('双肩包'), brand('Terra'), line('Pro')) },
  { q: 'kids tent', kind: 'english', relevant: and(t('帐篷'), audience('儿童')) },
  { q: 'yoga mat', kind: 'english', relevant: t('瑜伽垫') },
  { q: 'thermos', kind: 'english', relevant: t('保温杯') },
  { q: 'desk lamp', kind: 'english', relevant: t('台灯') },
  // typing: the last word unfinished
  { q: 'headl', kind: 'prefix', relevant: t('头灯') },
  { q: 'apex bas', kind: 'prefix', relevant: and(t('篮球鞋'), brand('Apex')) },
  { q: 'terra hik', kind: 'prefix', relevant: and(t('登山鞋'), brand('Terra')) },
  // pinyin, whole, spaced, initials
  { q: 'paoxie', kind: 'pinyin', relevant: t('跑鞋') },
  { q: 'pao xie', kind: 'pinyin', relevant: t('跑鞋') },
  { q: 'yurongfu', kind: 'pinyin', relevant: t('羽绒服') },
  { q: 'nanshi paoxie', kind: 'pinyin', relevant: and(t('跑鞋'), audience('男士')) },
  { q: 'zhangpeng', kind: 'pinyin', relevant: t('帐篷') },
  { q: 'baowenbei', kind: 'pinyin', relevant: t('保温杯') },
  { q: 'shuangjianbao', kind: 'pinyin', relevant: t('双肩包') },
  { q: 'bwb', kind: 'initials', relevant: t('保温杯') },
  { q: 'lyej', kind: 'initials', relevant: t('蓝牙耳机') },
  { q: 'nova px', kind: 'initials', relevant: and(t('跑鞋'), brand('Nova')) },
  { q: 'sjk', kind: 'initials', relevant: t('手机壳') },
  // case and spacing
  { q: 'NOVA 跑鞋', kind: 'case', relevant: and(t('跑鞋'), brand('Nova')) },
  { q: '  apex   HOODIE ', kind: 'case', relevant: and(t('卫衣'), brand('Apex')) },
  { q: 't恤', kind: 'case', relevant: t('T恤') },
  { q: 'Ｎｏｖａ 台灯', kind: 'case', relevant: and(t('台灯'), brand('Nova')) },
  { q: 'DESK LAMP lite', kind: 'case', relevant: and(t('台灯'), line('Lite')) },
  // synonyms
  { q: '衣服', kind: 'synonym', relevant: category('服装') },
  { q: 'clothes', kind: 'synonym', relevant: category('服装') },
  { q: 'sneakers', kind: 'synonym', relevant: category('运动鞋') },
  { q: '耳机', kind: 'synonym', relevant: t('蓝牙耳机') },
  { q: 'earphones apex', kind: 'synonym', relevant: and(t('蓝牙耳机'), brand('Apex')) },
  // spec values
  { q: '红色 跑鞋', kind: 'spec', relevant: and(t('跑鞋'), colour('红色')) },
  { q: 'black hoodie', kind: 'spec', relevant: and(t('卫衣'), (i) => i.colours.includes('黑色')) },
  { q: '白色 保温杯', kind: 'spec', relevant: and(t('保温杯'), colour('白色')) },
  { q: 'blue tee', kind: 'spec', relevant: and(t('T恤'), colour('蓝色')) },
  { q: '蓝色 头灯 儿童', kind: 'spec', relevant: and(t('头灯'), colour('蓝色'), audience('儿童')) },
  { q: 'red tent', kind: 'spec', relevant: and(t('帐篷'), colour('红色')) },
  // typos (contract §9.6): one edit from 5 letters, two from 9
  { q: 'hoddie', kind: 'typo', relevant: t('卫衣') },
  { q: 'bakcpack', kind: 'typo', relevant: t('双肩包') },
  { q: 'thermso', kind: 'typo', relevant: t('保温杯') },
  { q: 'headlmap', kind: 'typo', relevant: t('头灯') },
  { q: 'runing shoe', kind: 'typo', relevant: t('跑鞋') },
  { q: 'terra bakpack', kind: 'typo', relevant: and(t('双肩包'), brand('Terra')) },
  { q: 'basketbal shoe', kind: 'typo', relevant: t('篮球鞋') },
  { q: 'apex hodie', kind: 'typo', relevant: and(t('卫衣'), brand('Apex')) },
  // homophones (contract §9.6): a Chinese word typed with a character of the same pinyin
  { q: '蓝芽耳机', kind: 'homophone', relevant: t('蓝牙耳机') },
  { q: '篮牙耳机', kind: 'homophone', relevant: t('蓝牙耳机') },
  { q: '羽戎服', kind: 'homophone', relevant: t('羽绒服') },
  { q: '帐蓬', kind: 'homophone', relevant: t('帐篷') },
  { q: '双间包', kind: 'homophone', relevant: t('双肩包') },
  { q: '男士跑鞋 Nova', kind: 'chinese', relevant: and(t('跑鞋'), audience('男士'), brand('Nova')) },
  // cross-language: a Chinese word and an English one of the same group (synonyms above)
  { q: '黑色 hoodie', kind: 'cross-language', relevant: and(t('卫衣'), colour('黑色')) },
  { q: 'black 跑鞋', kind: 'cross-language', relevant: and(t('跑鞋'), colour('黑色')) },
  { q: 'kids 帐篷', kind: 'cross-language', relevant: and(t('帐篷'), audience('儿童')) },
  { q: 'white 保温杯', kind: 'cross-language', relevant: and(t('保温杯'), colour('白色')) },
  { q: '儿童 tent', kind: 'cross-language', relevant: and(t('帐篷'), audience('儿童')) },
];

export interface SuiteScore {
  queries: number;
  mrr: number;
  precisionAt3: number;
  /** Queries whose first answer is not a right one. */
  misses: Array<{ q: string; first: string | undefined }>;
}

/** Scores the answers (item names in order, per query) against the rules. */
export function scoreSuite(answers: Map<string, string[]>, items: SuiteItem[]): SuiteScore {
  const byName = new Map(items.map((i) => [i.name, i]));
  let rr = 0;
  let p3 = 0;
  const misses: SuiteScore['misses'] = [];
  for (const { q, relevant } of SUITE_QUERIES) {
    const names = answers.get(q) ?? [];
    const hits = names.map((n) => relevant(byName.get(n)!));
    const first = hits.indexOf(true);
    rr += first < 0 ? 0 : 1 / (first + 1);
    const possible = Math.min(3, items.filter(relevant).length);
    p3 += possible ? hits.slice(0, 3).filter(Boolean).length / possible : 1;
    if (first !== 0) misses.push({ q, first: names[0] });
  }
  return {
    queries: SUITE_QUERIES.length,
    mrr: rr / SUITE_QUERIES.length,
    precisionAt3: p3 / SUITE_QUERIES.length,
    misses,
  };
}

/** Writes the suite's categories and items (with their search documents) into an empty catalogue. */
export async function loadSuite(prisma: PrismaClient, items: SuiteItem[]): Promise<void> {
  const categoryIds = new Map<string, number>();
  for (const [root, leaf] of [...new Set(items.map((i) => i.category.join('/')))].map((p) => p.split('/'))) {
    if (!categoryIds.has(root!)) categoryIds.set(root!, (await prisma.category.create({ data: { name: root! } })).id);
    const parentId = categoryIds.get(root!)!;
    categoryIds.set(`${root}/${leaf}`, (await prisma.category.create({ data: { name: leaf!, parentId } })).id);
  }
  const created = await prisma.item.createManyAndReturn({
    data: items.map((i, n) => ({
      name: i.name,
      description: i.description,
      categoryId: categoryIds.get(i.category.join('/'))!,
      price: '99.00',
      stock: 5,
      createdAt: new Date(Date.UTC(2026, 0, 1) + n * 1000),
    })),
    select: { id: true, name: true },
  });
  const idOf = new Map(created.map((c) => [c.name, c.id]));
  await prisma.sku.createMany({
    data: items.flatMap((i) => i.skus.map((s) => ({ ...s, itemId: idOf.get(i.name)!, price: '99.00', stock: 1 }))),
  });
  await indexMissing(prisma);
}
