/**
 * The items table: a row per item from its fragment (its name links to the editor), column headers
 * that sort (a button in the header, `aria-sort` on the sorted column) and, where the admin may
 * change items, a checkbox per row and one for the whole page.
 */
import { useLingui } from '@lingui/react';
import { Trans, useLingui as useLinguiMacro } from '@lingui/react/macro';
import { Link } from '@tanstack/react-router';
import { useEffect, useRef } from 'react';
import { type FragmentOf, graphql, readFragment } from '../../../../gql/graphql.ts';
import { useStatusName } from '../../../../ui/status-name.ts';

export const ItemRow = graphql(`
  fragment ItemRow on Item {
    id
    name
    handle
    status
    price
    stock
    createdAt
    category {
      name
    }
  }
`);

export type ItemSort = 'relevance' | 'newest' | 'price_asc' | 'price_desc' | 'name_asc';

interface SortColumn {
  /** The order a click asks for, given the current one. */
  next: (current: ItemSort) => ItemSort;
  /** How the column is sorted now, for `aria-sort`. */
  state: (current: ItemSort) => 'ascending' | 'descending' | undefined;
}

const SORTS: Record<'name' | 'price' | 'created', SortColumn> = {
  name: { next: () => 'name_asc', state: (s) => (s === 'name_asc' ? 'ascending' : undefined) },
  price: {
    next: (s) => (s === 'price_asc' ? 'price_desc' : 'price_asc'),
    state: (s) => (s === 'price_asc' ? 'ascending' : s === 'price_desc' ? 'descending' : undefined),
  },
  created: { next: () => 'newest', state: (s) => (s === 'newest' ? 'descending' : undefined) },
};

/** The rows chosen for a bulk action, and how to change the choice. */
export interface RowSelection {
  selected: ReadonlySet<number>;
  onToggle: (id: number, on: boolean) => void;
  onToggleAll: (on: boolean) => void;
}

export function ItemsTable({
  items,
  sort,
  onSort,
  busy,
  captionId,
  selection,
}: {
  items: ReadonlyArray<FragmentOf<typeof ItemRow>>;
  sort: ItemSort;
  onSort: (sort: ItemSort) => void;
  busy: boolean;
  captionId: string;
  /** Absent: no checkboxes (a role that may not change items). */
  selection?: RowSelection;
}) {
  const { i18n } = useLingui();
  const { t } = useLinguiMacro();
  const statusName = useStatusName();
  const money = new Intl.NumberFormat(i18n.locale, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  const count = new Intl.NumberFormat(i18n.locale);
  const date = new Intl.DateTimeFormat(i18n.locale, { dateStyle: 'medium' });

  const header = (column: keyof typeof SORTS, label: string, className?: string) => {
    const state = SORTS[column].state(sort);
    return (
      <th scope="col" aria-sort={state ?? 'none'} className={className}>
        <button type="button" className="sort-button" onClick={() => onSort(SORTS[column].next(sort))}>
          {label}
          <span aria-hidden="true" className="sort-mark">
            {state === 'ascending' ? '▲' : state === 'descending' ? '▼' : '↕'}
          </span>
        </button>
      </th>
    );
  };

  return (
    // Scrolls sideways on a narrow screen; focusable so a keyboard can scroll it too.
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard (WCAG 2.1.1)
    <section className="table-scroll" aria-labelledby={captionId} tabIndex={0}>
      <table aria-busy={busy}>
        <thead>
          <tr>
            {selection && (
              <th scope="col" className="select-cell">
                <SelectAll items={items} selection={selection} />
              </th>
            )}
            {header('name', t`Name`)}
            <th scope="col">
              <Trans>Status</Trans>
            </th>
            <th scope="col">
              <Trans>Category</Trans>
            </th>
            {header('price', t`Price`, 'number')}
            <th scope="col" className="number">
              <Trans>Stock</Trans>
            </th>
            {header('created', t`Created`)}
          </tr>
        </thead>
        <tbody>
          {items.map((masked) => {
            const item = readFragment(ItemRow, masked);
            return (
              <tr key={item.id}>
                {selection && (
                  <td className="select-cell">
                    <input
                      type="checkbox"
                      aria-label={t`Select ${item.name}`}
                      checked={selection.selected.has(item.id)}
                      onChange={(e) => selection.onToggle(item.id, e.target.checked)}
                    />
                  </td>
                )}
                <td>
                  <Link to="/items/$id" params={{ id: String(item.id) }} className="item-name">
                    {item.name}
                  </Link>
                  <span className="muted handle">{item.handle}</span>
                </td>
                <td>
                  <span className={`badge status-${item.status}`}>{statusName(item.status)}</span>
                </td>
                <td>{item.category.name}</td>
                <td className="number">{money.format(item.price)}</td>
                <td className="number">{count.format(item.stock)}</td>
                <td>{date.format(new Date(item.createdAt))}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}

/** The page's checkbox: checked when every row is, mixed when some are. */
function SelectAll({
  items,
  selection,
}: {
  items: ReadonlyArray<FragmentOf<typeof ItemRow>>;
  selection: RowSelection;
}) {
  const { t } = useLinguiMacro();
  const box = useRef<HTMLInputElement>(null);
  const chosen = items.filter((masked) => selection.selected.has(readFragment(ItemRow, masked).id)).length;
  const all = items.length > 0 && chosen === items.length;
  useEffect(() => {
    if (box.current) box.current.indeterminate = chosen > 0 && !all;
  }, [chosen, all]);
  return (
    <input
      ref={box}
      type="checkbox"
      aria-label={t`Select all items on this page`}
      checked={all}
      onChange={(e) => selection.onToggleAll(e.target.checked)}
    />
  );
}
