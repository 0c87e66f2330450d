/**
 * The item editor's pure rules (console/src/routes/_signed-in/items/-components/item-draft.ts): the
 * SKU table generated from spec names × values, the schedule's `datetime-local` text in the admin's
 * time zone, moving a list entry, the checks made before sending and the input sent.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  axesOf,
  draftProblems,
  emptyDraft,
  generateSkus,
  inputOf,
  isoOfLocal,
  localDateTime,
  moved,
  type SkuDraft,
} from '../../console/src/routes/_signed-in/items/-components/item-draft.ts';

const axis = (name: string, values: string) => ({ key: name, name, values });
const specsOf = (rows: SkuDraft[]) => rows.map((row) => row.specs);
const MESSAGES = { required: 'required', money: 'money', stock: 'stock', category: 'category' };

describe('generating SKUs', () => {
  it('when two specs have 2 and 3 values, then 6 rows in order, new ones at the item price and stock 0', () => {
    const { rows, count } = generateSkus([axis('颜色', '黑, 白'), axis('尺码', '40，41、42')], [], '199');
    expect(count).toBe(6);
    expect(specsOf(rows)).toEqual([
      { 颜色: '黑', 尺码: '40' },
      { 颜色: '黑', 尺码: '41' },
      { 颜色: '黑', 尺码: '42' },
      { 颜色: '白', 尺码: '40' },
      { 颜色: '白', 尺码: '41' },
      { 颜色: '白', 尺码: '42' },
    ]);
    expect(rows.every((row) => row.price === '199' && row.stock === '0' && row.skuCode === '')).toBe(true);
    expect(new Set(rows.map((row) => row.key)).size).toBe(6);
  });

  it('when a row with the same specs exists, then it keeps its code, price and stock; repeated and blank values count once', () => {
    const kept: SkuDraft = { key: 'k', skuCode: 'B-40', specs: { 尺码: '40', 颜色: '黑' }, price: '5.50', stock: '7' };
    const { rows } = generateSkus([axis('颜色', '黑, 黑, ,'), axis('尺码', '40, 41'), axis('', 'x')], [kept], 'abc');
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({
      key: 'k',
      skuCode: 'B-40',
      price: '5.50',
      stock: '7',
      specs: { 颜色: '黑', 尺码: '40' },
    });
    // An item price that is not money yet: new rows wait for one.
    expect(rows[1]).toMatchObject({ skuCode: '', price: '', stock: '0' });
  });

  it('when the values would make more than 100 SKUs or none, then nothing is generated and the count says why', () => {
    const many = Array.from({ length: 11 }, (_, i) => i).join(',');
    expect(generateSkus([axis('a', many), axis('b', many)], [], '1')).toEqual({ rows: [], count: 121 });
    expect(generateSkus([axis('a', ''), axis('', 'x')], [], '1')).toEqual({ rows: [], count: 0 });
  });

  it('when an item’s SKUs are read, then their spec names and values come back in the order they first appear', () => {
    const axes = axesOf([{ specs: { color: 'red', size: '40' } }, { specs: { color: 'blue', size: '40' } }]);
    expect(axes.map(({ name, values }) => ({ name, values }))).toEqual([
      { name: 'color', values: 'red, blue' },
      { name: 'size', values: '40' },
    ]);
  });
});

describe('the schedule in the admin’s time zone', () => {
  const zone = process.env.TZ;
  beforeEach(() => {
    process.env.TZ = 'Asia/Shanghai';
  });
  afterEach(() => {
    if (zone === undefined) delete process.env.TZ;
    else process.env.TZ = zone;
  });

  it('when 08:00 is typed in Shanghai, then 00:00 UTC is sent, and the instant reads back as typed', () => {
    expect(isoOfLocal('2030-01-01T08:00')).toBe('2030-01-01T00:00:00.000Z');
    expect(localDateTime('2030-01-01T00:00:00.000Z')).toBe('2030-01-01T08:00');
    expect(isoOfLocal('')).toBeNull();
    expect(localDateTime(null)).toBe('');
  });
});

describe('moving an entry', () => {
  it('when an entry moves up or down, then the others keep their order; out of range changes nothing', () => {
    expect(moved(['a', 'b', 'c'], 2, 1)).toEqual(['a', 'c', 'b']);
    expect(moved(['a', 'b', 'c'], 0, 1)).toEqual(['b', 'a', 'c']);
    expect(moved(['a', 'b'], 0, -1)).toEqual(['a', 'b']);
    expect(moved(['a', 'b'], 1, 2)).toEqual(['a', 'b']);
  });
});

describe('what is sent', () => {
  it('when the form has problems the service would refuse, then they are named by the service’s field names', () => {
    const draft = {
      ...emptyDraft(),
      price: '1.234',
      stock: '-1',
      skus: [{ key: 'a', skuCode: '', specs: {}, price: 'x', stock: '1.5' }],
    };
    expect(draftProblems(draft, MESSAGES)).toEqual({
      name: 'required',
      categoryId: 'category',
      price: 'money',
      stock: 'stock',
      'skus[0].price': 'money',
      'skus[0].stock': 'stock',
    });
  });

  it('when a draft is saved, then money travels as numbers, blanks take their defaults and an empty handle is left out', () => {
    const input = inputOf({
      ...emptyDraft(),
      name: '  Boot ',
      categoryId: '3',
      price: '19.90',
      stock: '4',
      images: [
        { key: 'i', url: ' https://cdn.example.com/a.jpg ' },
        { key: 'j', url: '' },
      ],
      skus: [{ key: 'a', skuCode: ' ', specs: { 颜色: '黑', 尺码: ' ', ' ': 'x' }, price: '', stock: '' }],
    });
    expect(input).toEqual({
      name: 'Boot',
      description: '',
      categoryId: 3,
      price: 19.9,
      stock: 4,
      status: 'draft',
      publishAt: null,
      unpublishAt: null,
      images: [
        { url: 'https://cdn.example.com/a.jpg', sortOrder: 0 },
        { url: '', sortOrder: 1 },
      ],
      skus: [{ skuCode: null, specs: { 颜色: '黑' }, price: null, stock: 0 }],
    });
    expect(inputOf({ ...emptyDraft(), handle: ' trail-boot ' }).handle).toBe('trail-boot');
  });
});
