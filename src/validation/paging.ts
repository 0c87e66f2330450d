/**
 * Page-number paging, one rule for every list (items §4.1, customers §8.3): `page` from 1, `limit`
 * 1..100 (default 20), an optional keyword of at most 100 characters, and what a page costs in the
 * GraphQL complexity budget (§7.2).
 */
import { INT32_MAX, int, rule, text } from './rules.ts';

export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 20;

/** `page` and `limit`, defaults filled in. */
export const pageArgs = {
  page: int(1, INT32_MAX, 'must be an integer >= 1')
    .nullish()
    .transform((v) => v ?? 1),
  limit: int(1, MAX_PAGE_SIZE, `must be an integer between 1 and ${MAX_PAGE_SIZE}`)
    .nullish()
    .transform((v) => v ?? DEFAULT_PAGE_SIZE),
};

/** A trimmed search text; empty means no filter. */
export const keywordArg = text()
  .trim()
  .max(100, rule('must be at most 100 characters'))
  .nullish()
  .transform((v) => v || undefined);

/** One page of a list (items §4.1, customers §8.3, the audit log): its rows and where it stands. */
export interface Page<T> {
  items: T[];
  page: number;
  limit: number;
  /** Rows matching the filters, on every page. */
  total: number;
  /** 0 when nothing matches; a page past the end is empty, with the right total. */
  totalPages: number;
}

/** The rows a page covers, as SQL's OFFSET / LIMIT. */
export const pageWindow = ({ page, limit }: { page: number; limit: number }) => ({ offset: (page - 1) * limit, limit });

/** A page of `items` out of `total` matching rows. */
export const pageOf = <T>(items: T[], { page, limit }: { page: number; limit: number }, total: number): Page<T> => ({
  items,
  page,
  limit,
  total,
  totalPages: Math.ceil(total / limit),
});

/**
 * The page size a `limit` argument asks for, as the cost multiplier. Out-of-range values are clamped:
 * the argument's own validation then names `limit`, which says more than a cost error would.
 */
export const pageSizeCost = (limit: number | null | undefined) =>
  Math.min(MAX_PAGE_SIZE, Math.max(1, limit ?? DEFAULT_PAGE_SIZE));
