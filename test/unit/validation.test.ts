/**
 * The pure rules under every input, without a server: money as text (contract §1), field paths in
 * both namings, page arithmetic and the page-size cost (§4.1, §7.2).
 */
import { describe, expect, it } from 'vitest';
import { fieldPath, restFieldErrors, snakeCase } from '../../src/validation/field-errors.ts';
import { MONEY_MAX, parseMoney } from '../../src/validation/money.ts';
import { pageOf, pageSizeCost, pageWindow } from '../../src/validation/paging.ts';

describe('parseMoney', () => {
  it('when an amount is valid, then it comes back as the canonical decimal text, never through a float', () => {
    const cases: Array<[unknown, string]> = [
      [19.9, '19.90'],
      ['19.90', '19.90'],
      ['19.900', '19.90'],
      [0, '0.00'],
      ['-0', '0.00'],
      ['007.5', '7.50'],
      [MONEY_MAX, MONEY_MAX],
      [99999999.99, MONEY_MAX],
    ];
    for (const [input, canonical] of cases)
      expect(parseMoney(input), String(input)).toEqual({ ok: true, value: canonical });
  });

  it('when an amount breaks a rule, then the message names the rule', () => {
    const cases: Array<[unknown, string]> = [
      [19.999, 'must have at most 2 fractional digits'],
      [0.1 + 0.2, 'must have at most 2 fractional digits'],
      [1e-7, 'must have at most 2 fractional digits'],
      [-1, 'must be >= 0'],
      ['100000000', `must be <= ${MONEY_MAX}`],
      [1e21, `must be <= ${MONEY_MAX}`],
      [Number.NaN, 'must be a finite number'],
      [Number.POSITIVE_INFINITY, 'must be a finite number'],
      ['1,5', 'must be a number or a decimal string'],
      ['', 'must be a number or a decimal string'],
      [true, 'must be a number or a decimal string'],
      [null, 'must be a number or a decimal string'],
    ];
    for (const [input, message] of cases) expect(parseMoney(input), String(input)).toEqual({ ok: false, message });
  });
});

describe('field paths', () => {
  it('when a path is named for GraphQL or REST, then camelCase or snake_case with indexes in brackets', () => {
    expect(snakeCase('categoryId')).toBe('category_id');
    expect(fieldPath(['skus', 2, 'skuCode'], 'graphql')).toBe('skus[2].skuCode');
    expect(fieldPath(['skus', 2, 'skuCode'], 'rest')).toBe('skus[2].sku_code');
    expect(fieldPath([], 'rest')).toBe('');
    expect(restFieldErrors([{ field: 'images[0].sortOrder', message: 'x' }])).toEqual([
      { field: 'images[0].sort_order', message: 'x' },
    ]);
  });
});

describe('paging', () => {
  it('when a page is asked for, then its window, its totals and its cost follow the one rule', () => {
    expect(pageWindow({ page: 3, limit: 20 })).toEqual({ offset: 40, limit: 20 });
    expect(pageOf(['a'], { page: 2, limit: 1 }, 3)).toEqual({
      items: ['a'],
      page: 2,
      limit: 1,
      total: 3,
      totalPages: 3,
    });
    expect(pageOf([], { page: 1, limit: 20 }, 0).totalPages).toBe(0);
    expect(pageOf([], { page: 1, limit: 20 }, 41).totalPages).toBe(3);
    expect([pageSizeCost(undefined), pageSizeCost(null), pageSizeCost(0), pageSizeCost(7), pageSizeCost(1000)]).toEqual(
      [20, 20, 1, 7, 100],
    );
  });
});
