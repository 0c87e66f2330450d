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

export function pageType<T>({ name, description, of, list = 'items', total }: PageTypeOptions<T>) {
  return builder.objectRef<Page<T>>(name).implement({
    description,
    fields: (t) => ({
      [list]: t.field({ type: [of], resolve: (page) => page.items }),
      page: t.exposeInt('page', { complexity: 0 }),
      limit: t.exposeInt('limit', { complexity: 0 }),
      total: t.exposeInt('total', { complexity: 0, description: total }),
      totalPages: t.exposeInt('totalPages', { complexity: 0 }),
    }),
  });
}
