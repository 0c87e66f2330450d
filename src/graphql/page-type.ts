/**
 * The GraphQL type of one page of a list (`ItemPage`, `CustomerPage`, …): the rows under `list`, and
 * the page's own numbers. Those are free in the cost budget: a list field multiplies what is selected
 * of each row by its page size (contract §7.2), and these exist once per page, not once per row.
 */
import type { OutputRef } from '@pothos/core';
import type { Page } from '../validation/paging.ts';
import { builder } from './builder.ts';

export interface PageTypeOptions<T> {
  /** The type's name (`ItemPage`). */
  name: string;
  description: string;
  /** The type of one row. */
  of: OutputRef<T>;
  /** The field holding the rows (default `items`). */
  list?: string;
  /** What `total` counts, in words. */
  total: string;
}

/** `P`: what the list's resolver returns — a Page, perhaps with what further fields of the type need. */
export function pageType<T, P extends Page<T> = Page<T>>({
  name,
  description,
  of,
  list = 'items',
  total,
}: PageTypeOptions<T>) {
  return builder.objectRef<P>(name).implement({
    description,
    fields: (t) => ({
      [list]: t.field({ type: [of], resolve: (page) => page.items }),
      page: t.int({ complexity: 0, resolve: (p) => p.page }),
      limit: t.int({ complexity: 0, resolve: (p) => p.limit }),
      total: t.int({ complexity: 0, description: total, resolve: (p) => p.total }),
      totalPages: t.int({ complexity: 0, resolve: (p) => p.totalPages }),
    }),
  });
}
