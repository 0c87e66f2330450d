/**
 * Items (contract §15): the adminItems list — the shop's own search (Chinese and pinyin are the
 * service's), a status filter, sortable columns and paging by page and limit, all in the URL so a
 * link shows the same page. One request per page; the total comes with it.
 */
import { Plural, Trans, useLingui } from '@lingui/react/macro';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { createFileRoute, useNavigate } from '@tanstack/react-router';
import { type FormEvent, useEffect, useId, useState } from 'react';
import { ApiError } from '../../../gql/errors.ts';
import { request } from '../../../gql/request.ts';
import { PageShell } from '../../../ui/page-shell.tsx';
import { ITEM_STATUSES, type ItemStatus, useStatusName } from '../../../ui/status-name.ts';
import { type ItemSort, ItemsTable } from './-components/items-table.tsx';
import { AdminItems, type AdminItemsVariables } from './-items.gql.ts';

const SORTS: readonly ItemSort[] = ['relevance', 'newest', 'price_asc', 'price_desc', 'name_asc'];
const LIMITS = [20, 50, 100] as const;

interface ItemsSearch {
  keyword?: string;
  status?: ItemStatus;
  sort?: ItemSort;
  page?: number;
  limit?: number;
}

const positive = (value: unknown) => {
  const n = Number(value);
  return Number.isInteger(n) && n >= 1 ? n : undefined;
};

export const Route = createFileRoute('/_signed-in/items/')({
  validateSearch: (search: Record<string, unknown>): ItemsSearch => {
    const keyword = typeof search.keyword === 'string' ? search.keyword.slice(0, 100) : undefined;
    const status = ITEM_STATUSES.find((s) => s === search.status);
    const sort = SORTS.find((s) => s === search.sort);
    const page = positive(search.page);
    const limit = LIMITS.find((l) => l === Number(search.limit));
    return {
      ...(keyword ? { keyword } : {}),
      ...(status ? { status } : {}),
      ...(sort ? { sort } : {}),
      ...(page && page > 1 ? { page } : {}),
      ...(limit && limit !== LIMITS[0] ? { limit } : {}),
    };
  },
  staticData: { screen: 'items' },
  component: ItemsScreen,
});

function ItemsScreen() {
  const { t } = useLingui();
  const search = Route.useSearch();
  const navigate = useNavigate({ from: Route.fullPath });
  const statusName = useStatusName();
  const captionId = useId();
  const [keyword, setKeyword] = useState(search.keyword ?? '');
  useEffect(() => setKeyword(search.keyword ?? ''), [search.keyword]);

  const variables: AdminItemsVariables = {
    page: search.page ?? 1,
    limit: search.limit ?? LIMITS[0],
    keyword: search.keyword ?? null,
    status: search.status ? [search.status] : null,
    sort: search.sort ?? null,
  };
  const items = useQuery({
    queryKey: ['item', 'list', variables],
    queryFn: ({ signal }) => request(AdminItems, variables, signal),
    placeholderData: keepPreviousData,
  });
  const page = items.data?.adminItems;

  const update = (change: Partial<ItemsSearch>) =>
    navigate({ search: (prev: ItemsSearch) => ({ ...prev, page: undefined, ...change }) });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const trimmed = keyword.trim();
    // A new keyword is ranked by relevance; a sort chosen for the old one no longer applies.
    void update({ keyword: trimmed || undefined, sort: undefined });
  };

  const sort: ItemSort = search.sort ?? (search.keyword ? 'relevance' : 'newest');
  const total = page?.total ?? 0;
  const pageNumber = page?.page ?? variables.page ?? 1;
  const totalPages = page?.totalPages ?? 0;

  return (
    <PageShell title={t`Items`}>
      <search>
        <form className="filters" onSubmit={submit}>
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

      {items.isError && (
        <p className="form-error" role="alert">
          {items.error instanceof ApiError && items.error.code === 'FORBIDDEN' ? (
            <Forbidden reason={items.error.message} />
          ) : (
            items.error.message
          )}
        </p>
      )}

      {page && page.items.length > 0 && (
        <ItemsTable
          items={page.items}
          sort={sort}
          onSort={(next) => void update({ sort: next })}
          busy={items.isFetching}
          captionId={captionId}
        />
      )}
      {page && page.items.length === 0 && (
        <p className="notice">
          <Trans>No items match.</Trans>
        </p>
      )}

      {page && totalPages > 1 && (
        <nav className="pager" aria-label={t`Pages`}>
          <button
            type="button"
            className="button"
            disabled={pageNumber <= 1}
            onClick={() => void update({ ...search, page: pageNumber - 1 > 1 ? pageNumber - 1 : undefined })}
          >
            <Trans>Previous page</Trans>
          </button>
          <span>
            <Trans>
              Page {pageNumber} of {totalPages}
            </Trans>
          </span>
          <button
            type="button"
            className="button"
            disabled={pageNumber >= totalPages}
            onClick={() => void update({ ...search, page: pageNumber + 1 })}
          >
            <Trans>Next page</Trans>
          </button>
        </nav>
      )}
    </PageShell>
  );
}

/** FORBIDDEN's message names the roles that may (console.md §2). */
function Forbidden({ reason }: { reason: string }) {
  return <Trans>Not allowed: {reason}</Trans>;
}
