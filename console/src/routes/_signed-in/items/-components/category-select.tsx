/**
 * The category picker of the items screens: one `<select>` whose options are the tree in order
 * (depth first, by sort order then id), each named by its path ("Shoes › Running") so a name that
 * occurs under two parents is never ambiguous, to a screen reader either.
 */
import { useQuery } from '@tanstack/react-query';
import { type SelectHTMLAttributes, useMemo } from 'react';
import { type Category, categoriesQuery as listQuery } from '../../-categories/categories.gql.ts';

/** A picker's list: a minute old is fresh enough (the category screen's writes invalidate it). */
export const categoriesQuery = { ...listQuery, staleTime: 60_000 } as const;

/** The tree in display order, each with its path. */
export function categoryPaths(categories: readonly Category[]): Array<{ id: number; path: string }> {
  const children = new Map<number | null, Category[]>();
  for (const c of categories) {
    const known = c.parentId !== null && categories.some((p) => p.id === c.parentId);
    const parent = known ? c.parentId : null;
    children.set(parent, [...(children.get(parent) ?? []), c]);
  }
  const out: Array<{ id: number; path: string }> = [];
  const walk = (parent: number | null, prefix: string) => {
    const list = [...(children.get(parent) ?? [])].sort((a, b) => a.sortOrder - b.sortOrder || a.id - b.id);
    for (const c of list) {
      const path = prefix ? `${prefix} › ${c.name}` : c.name;
      out.push({ id: c.id, path });
      walk(c.id, path);
    }
  };
  walk(null, '');
  return out;
}

interface CategorySelectProps extends Omit<SelectHTMLAttributes<HTMLSelectElement>, 'children'> {
  /** The first option (value ""): "All categories" in a filter, "Choose a category" in the editor. */
  emptyLabel: string;
}

export function CategorySelect({ emptyLabel, ...select }: CategorySelectProps) {
  const categories = useQuery(categoriesQuery);
  const paths = useMemo(() => categoryPaths(categories.data?.categories ?? []), [categories.data]);
  return (
    <select {...select} aria-busy={categories.isPending || undefined}>
      <option value="">{emptyLabel}</option>
      {paths.map(({ id, path }) => (
        <option key={id} value={id}>
          {path}
        </option>
      ))}
    </select>
  );
}
