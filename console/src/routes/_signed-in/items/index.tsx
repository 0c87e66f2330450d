/**
 * Items (contract §15): the adminItems list — the shop's own search (Chinese and pinyin are the
 * service's), filters by status, category, stock and price, sortable columns and paging by page and
 * limit, all in the URL so a link shows the same page. One request per page; the total comes with
 * it. Admins who may change items select rows and change their status or delete them, after a
 * confirmation naming how many.
 */

import { plural } from '@lingui/core/macro';
import { Plural, Trans, useLingui } from '@lingui/react/macro';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { createFileRoute, Link, useNavigate } from '@tanstack/react-router';
import { type FormEvent, useEffect, useId, useState } from 'react';
import { usePermission } from '../../../auth/use-permission.ts';
import { ApiError, problemsByField } from '../../../gql/errors.ts';
import { request } from '../../../gql/request.ts';
import { ConfirmDialog } from '../../../ui/confirm-dialog.tsx';
import { PageShell } from '../../../ui/page-shell.tsx';
import { Pager } from '../../../ui/pager.tsx';
import { ITEM_STATUSES, type ItemStatus, useStatusName } from '../../../ui/status-name.ts';
import { TextField } from '../../../ui/text-field.tsx';
import { CategorySelect } from './-components/category-select.tsx';
import { type ItemSort, ItemsTable } from './-components/items-table.tsx';
import { isMoney } from './-components/money.ts';
import { AdminItems, type AdminItemsVariables, DeleteItems, SetItemsStatus } from './-items.gql.ts';

const SORTS: readonly ItemSort[] = ['relevance', 'newest', 'price_asc', 'price_desc', 'name_asc'];
const LIMITS = [20, 50, 100] as const;

interface ItemsSearch {
  keyword?: string;
  status?: ItemStatus;
  categoryId?: number;
  /** Only items with stock (the list's `inStock: true`); absent: no filter. */
  inStock?: true;
  /** Yuan, as the API's Money: at most two fractional digits. */
  minPrice?: number;
  maxPrice?: number;
  sort?: ItemSort;
  page?: number;
  limit?: number;
}

const positive = (value: unknown) => {
  const n = Number(value);
  return Number.isInteger(n) && n >= 1 ? n : undefined;
};

const moneyParam = (value: unknown) => {
  const text = typeof value === 'number' ? String(value) : value;
  return typeof text === 'string' && isMoney(text) ? Number(text) : undefined;
};

export const Route = createFileRoute('/_signed-in/items/')({
  validateSearch: (search: Record<string, unknown>): ItemsSearch => {
    const keyword = typeof search.keyword === 'string' ? search.keyword.slice(0, 100) : undefined;
    const status = ITEM_STATUSES.find((s) => s === search.status);
    const categoryId = positive(search.categoryId);
    const inStock = search.inStock === true || search.inStock === 'true';
    const minPrice = moneyParam(search.minPrice);
    const maxPrice = moneyParam(search.maxPrice);
    const sort = SORTS.find((s) => s === search.sort);
    const page = positive(search.page);
    const limit = LIMITS.find((l) => l === Number(search.limit));
    return {
      ...(keyword ? { keyword } : {}),
      ...(status ? { status } : {}),
      ...(categoryId ? { categoryId } : {}),
      ...(inStock ? { inStock: true } : {}),
      ...(minPrice ? { minPrice } : {}),
      ...(maxPrice ? { maxPrice } : {}),
      ...(sort ? { sort } : {}),
      ...(page && page > 1 ? { page } : {}),
      ...(limit && limit !== LIMITS[0] ? { limit } : {}),
    };
  },
  staticData: { screen: 'items' },
  component: ItemsScreen,
});

type BulkAction = { kind: 'status'; status: ItemStatus } | { kind: 'delete' };

function ItemsScreen() {
  const { t } = useLingui();
  const search = Route.useSearch();
  const navigate = useNavigate({ from: Route.fullPath });
  const statusName = useStatusName();
  const captionId = useId();
  const mayWrite = usePermission('catalogWrite');
  const [keyword, setKeyword] = useState(search.keyword ?? '');
  const [minPrice, setMinPrice] = useState(String(search.minPrice ?? ''));
  const [maxPrice, setMaxPrice] = useState(String(search.maxPrice ?? ''));
  const [priceErrors, setPriceErrors] = useState<{ minPrice?: string; maxPrice?: string }>({});
  useEffect(() => setKeyword(search.keyword ?? ''), [search.keyword]);
  useEffect(() => setMinPrice(String(search.minPrice ?? '')), [search.minPrice]);
  useEffect(() => setMaxPrice(String(search.maxPrice ?? '')), [search.maxPrice]);

  const variables: AdminItemsVariables = {
    page: search.page ?? 1,
    limit: search.limit ?? LIMITS[0],
    keyword: search.keyword ?? null,
    status: search.status ? [search.status] : null,
    categoryId: search.categoryId ?? null,
    inStock: search.inStock ?? null,
    // Exact: a number of at most two fractional digits travels in JSON as the same decimal.
    minPrice: search.minPrice ?? null,
    maxPrice: search.maxPrice ?? null,
    sort: search.sort ?? null,
  };
  const items = useQuery({
    queryKey: ['item', 'list', variables],
    queryFn: ({ signal }) => request(AdminItems, variables, signal),
    placeholderData: keepPreviousData,
  });
  const page = items.data?.adminItems;

  // The selection is of the page shown: another page, filter or order starts a new one.
  const [selected, setSelected] = useState<ReadonlySet<number>>(new Set());
  const pageKey = JSON.stringify(variables);
  useEffect(() => setSelected(new Set()), [pageKey]);
  const [bulkStatus, setBulkStatus] = useState<ItemStatus>('active');
  const [pending, setPending] = useState<BulkAction | null>(null);
  const [done, setDone] = useState('');

  const queryClient = useQueryClient();
  const bulk = useMutation({
    mutationFn: async (action: BulkAction) => {
      const ids = [...selected];
      return action.kind === 'delete'
        ? (await request(DeleteItems, { ids })).deleteItems
        : (await request(SetItemsStatus, { ids, status: action.status })).setItemsStatus;
    },
    onSuccess: async (count, action) => {
      setPending(null);
      setSelected(new Set());
      setDone(
        action.kind === 'delete'
          ? t({ message: plural(count, { one: 'Deleted # item.', other: 'Deleted # items.' }) })
          : t({
              message: plural(count, {
                one: 'Changed the status of # item.',
                other: 'Changed the status of # items.',
              }),
            }),
      );
      await queryClient.invalidateQueries({ queryKey: ['item'] });
    },
    onError: () => setPending(null),
  });

  const update = (change: Partial<ItemsSearch>) => {
    setDone('');
    return navigate({ search: (prev: ItemsSearch) => ({ ...prev, page: undefined, ...change }) });
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const min = minPrice.trim();
    const max = maxPrice.trim();
    const wrong = t`Enter an amount in yuan, such as 19.90.`;
    const errors = {
      minPrice: min && !isMoney(min) ? wrong : undefined,
      maxPrice: max && !isMoney(max) ? wrong : undefined,
    };
    setPriceErrors(errors);
    if (errors.minPrice || errors.maxPrice) return;
    const trimmed = keyword.trim();
    // A new keyword is ranked by relevance; a sort chosen for the old one no longer applies.
    const sort = trimmed === (search.keyword ?? '') ? search.sort : undefined;
    void update({
      keyword: trimmed || undefined,
      sort,
      minPrice: min ? Number(min) : undefined,
      maxPrice: max ? Number(max) : undefined,
    });
  };

  const sort: ItemSort = search.sort ?? (search.keyword ? 'relevance' : 'newest');
  const total = page?.total ?? 0;
  const pageNumber = page?.page ?? variables.page ?? 1;
  const totalPages = page?.totalPages ?? 0;
  // The service's word on the price filters (a minimum above the maximum) goes under the fields too.
  const serverProblems = problemsByField(items.error);
  const count = selected.size;
  const pageIds = page?.items.map((item) => item.id) ?? [];
  const pendingStatus = pending?.kind === 'status' ? statusName(pending.status) : '';

  return (
    <PageShell
      title={t`Items`}
      actions={
        mayWrite && (
          <Link to="/items/new" className="button primary">
            <Trans>New item</Trans>
          </Link>
        )
      }
    >
      <search>
        <form className="filters" onSubmit={submit} noValidate>
          <div className="field">
            <label htmlFor="items-keyword">{t`Search items`}</label>
            <input
              id="items-keyword"
              type="search"
              value={keyword}
              onChange={(e) => setKeyword(e.target.value)}
              maxLength={100}
              aria-describedby="items-keyword-help"
            />
            <p id="items-keyword-help" className="muted hint">
              <Trans>Names in Chinese or pinyin, handles, words of the description.</Trans>
            </p>
          </div>
          <TextField
            label={t`Lowest price (yuan)`}
            className="price-field"
            inputMode="decimal"
            value={minPrice}
            onChange={(e) => setMinPrice(e.target.value)}
            error={priceErrors.minPrice ?? serverProblems.minPrice}
          />
          <TextField
            label={t`Highest price (yuan)`}
            className="price-field"
            inputMode="decimal"
            value={maxPrice}
            onChange={(e) => setMaxPrice(e.target.value)}
            error={priceErrors.maxPrice ?? serverProblems.maxPrice}
          />
          <button type="submit" className="button primary">
            <Trans>Search</Trans>
          </button>
          <div className="field">
            <label htmlFor="items-status">{t`Status`}</label>
            <select
              id="items-status"
              value={search.status ?? ''}
              onChange={(e) => void update({ status: (e.target.value || undefined) as ItemStatus | undefined })}
            >
              <option value="">{t`All statuses`}</option>
              {ITEM_STATUSES.map((status) => (
                <option key={status} value={status}>
                  {statusName(status)}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="items-category">{t`Category`}</label>
            <CategorySelect
              id="items-category"
              emptyLabel={t`All categories`}
              value={search.categoryId ?? ''}
              onChange={(e) => void update({ categoryId: positive(e.target.value) })}
            />
          </div>
          <div className="field checkbox-field">
            <input
              id="items-in-stock"
              type="checkbox"
              checked={search.inStock ?? false}
              onChange={(e) => void update({ inStock: e.target.checked || undefined })}
            />
            <label htmlFor="items-in-stock">{t`In stock only`}</label>
          </div>
          <div className="field">
            <label htmlFor="items-limit">{t`Per page`}</label>
            <select
              id="items-limit"
              value={search.limit ?? LIMITS[0]}
              onChange={(e) => void update({ limit: Number(e.target.value) })}
            >
              {LIMITS.map((limit) => (
                <option key={limit} value={limit}>
                  {limit}
                </option>
              ))}
            </select>
          </div>
        </form>
      </search>

      <p id={captionId} className="result-line" aria-live="polite">
        {items.isPending ? (
          <Trans>Loading items…</Trans>
        ) : items.isError ? null : (
          <>
            <Plural value={total} one="# item" other="# items" />
            {items.isFetching && (
              <span className="muted">
                {' '}
                <Trans>(updating…)</Trans>
              </span>
            )}
          </>
        )}
      </p>

      <p role="status" className="done-line">
        {done}
      </p>

      {items.isError && (
        <p className="form-error" role="alert">
          {items.error instanceof ApiError && items.error.code === 'FORBIDDEN' ? (
            <Forbidden reason={items.error.message} />
          ) : (
            items.error.message
          )}
        </p>
      )}
      {bulk.isError && (
        <p className="form-error" role="alert">
          {bulk.error.message}
        </p>
      )}

      {mayWrite && count > 0 && (
        <section className="bulk-bar" aria-label={t`Selected items`}>
          <p className="bulk-count">
            <Plural value={count} one="# item selected" other="# items selected" />
          </p>
          <div className="bulk-status">
            <label htmlFor="bulk-status">{t`New status`}</label>
            <select id="bulk-status" value={bulkStatus} onChange={(e) => setBulkStatus(e.target.value as ItemStatus)}>
              {ITEM_STATUSES.map((status) => (
                <option key={status} value={status}>
                  {statusName(status)}
                </option>
              ))}
            </select>
            <button type="button" className="button" onClick={() => setPending({ kind: 'status', status: bulkStatus })}>
              <Trans>Set status</Trans>
            </button>
          </div>
          <button type="button" className="button danger" onClick={() => setPending({ kind: 'delete' })}>
            <Trans>Delete selected</Trans>
          </button>
          <button type="button" className="button" onClick={() => setSelected(new Set())}>
            <Trans>Clear selection</Trans>
          </button>
        </section>
      )}

      {page && page.items.length > 0 && (
        <ItemsTable
          items={page.items}
          sort={sort}
          onSort={(next) => void update({ sort: next })}
          busy={items.isFetching}
          captionId={captionId}
          selection={
            mayWrite
              ? {
                  selected,
                  onToggle: (id, on) =>
                    setSelected((prev) => {
                      const next = new Set(prev);
                      if (on) next.add(id);
                      else next.delete(id);
                      return next;
                    }),
                  onToggleAll: (on) => setSelected(on ? new Set(pageIds) : new Set()),
                }
              : undefined
          }
        />
      )}
      {page && page.items.length === 0 && (
        <p className="notice">
          <Trans>No items match.</Trans>
        </p>
      )}

      {page && (
        <Pager
          page={pageNumber}
          totalPages={totalPages}
          label={t`Pages`}
          onPage={(p) => void update({ ...search, page: p > 1 ? p : undefined })}
        />
      )}

      <ConfirmDialog
        open={pending !== null}
        title={
          // No title while closed: a closed dialog is no label for anything ("Status" finds the filter alone).
          pending === null
            ? ''
            : pending.kind === 'delete'
              ? t({ message: plural(count, { one: 'Delete # item?', other: 'Delete # items?' }) })
              : t({
                  message: plural(count, {
                    one: `Set the status of # item to ${pendingStatus}?`,
                    other: `Set the status of # items to ${pendingStatus}?`,
                  }),
                })
        }
        confirmLabel={
          pending?.kind === 'delete'
            ? t({ message: plural(count, { one: 'Delete # item', other: 'Delete # items' }) })
            : t({ message: plural(count, { one: 'Set status of # item', other: 'Set status of # items' }) })
        }
        destructive={pending?.kind === 'delete'}
        busy={bulk.isPending}
        onConfirm={() => pending && bulk.mutate(pending)}
        onCancel={() => setPending(null)}
      >
        {pending?.kind === 'delete' ? (
          <p>
            <Trans>
              They vanish from the shop and from every list, with their SKUs and images. This cannot be undone.
            </Trans>
          </p>
        ) : (
          <p>
            <Trans>Only active items within their schedule are shown in the shop.</Trans>
          </p>
        )}
      </ConfirmDialog>
    </PageShell>
  );
}

/** FORBIDDEN's message names the roles that may (console.md §2). */
function Forbidden({ reason }: { reason: string }) {
  return <Trans>Not allowed: {reason}</Trans>;
}
