/**
 * Export (contract §13.3): every item the admin list's filters match — keyword, status, category,
 * in stock, price — as CSV or JSON Lines. The filters start from the screen's address (the names the
 * items list uses: `/import?keyword=boot&status=active`), so a list can hand its filters over. The
 * file comes from `GET /admin/api/exports/items` with the admin's token and is offered as a download.
 */
import { Trans, useLingui } from '@lingui/react/macro';
import { useMutation, useQuery } from '@tanstack/react-query';
import { type FormEvent, useId, useState } from 'react';
import { ApiError } from '../../../gql/errors.ts';
import { download } from '../../../gql/request.ts';
import { saveFile } from '../../../ui/save-file.ts';
import { ITEM_STATUSES, type ItemStatus, useStatusName } from '../../../ui/status-name.ts';
import { categoriesQuery } from '../-categories/categories.gql.ts';

export interface ExportFilters {
  keyword?: string;
  status?: ItemStatus;
  categoryId?: number;
  inStock?: boolean;
  minPrice?: string;
  maxPrice?: string;
}

type ExportFormat = 'csv' | 'jsonl';

/** The export's address: the list's filters in REST's names (only those set). */
export function exportPath(format: ExportFormat, filters: ExportFilters): string {
  const query = new URLSearchParams({ format });
  if (filters.keyword?.trim()) query.set('keyword', filters.keyword.trim());
  if (filters.status) query.set('status', filters.status);
  if (filters.categoryId) query.set('category_id', String(filters.categoryId));
  if (filters.inStock) query.set('in_stock', 'true');
  if (filters.minPrice?.trim()) query.set('min_price', filters.minPrice.trim());
  if (filters.maxPrice?.trim()) query.set('max_price', filters.maxPrice.trim());
  return `/admin/api/exports/items?${query}`;
}

/** REST's names of the fields (`min_price`) to the form's. */
const FIELDS: Record<string, keyof ExportFilters | 'format'> = {
  format: 'format',
  keyword: 'keyword',
  status: 'status',
  category_id: 'categoryId',
  in_stock: 'inStock',
  min_price: 'minPrice',
  max_price: 'maxPrice',
};

export function ExportForm({ initial }: { initial: ExportFilters }) {
  const { t } = useLingui();
  const statusName = useStatusName();
  const id = useId();
  const [format, setFormat] = useState<ExportFormat>('csv');
  const [filters, setFilters] = useState<ExportFilters>(initial);
  const categories = useQuery(categoriesQuery);
  const exporting = useMutation({
    mutationFn: async () => {
      const { blob, filename } = await download(exportPath(format, filters), `items.${format}`);
      saveFile(blob, filename);
    },
  });
  const set = (change: Partial<ExportFilters>) => setFilters((f) => ({ ...f, ...change }));

  const error = exporting.error;
  const byField: Partial<Record<string, string>> = {};
  if (error instanceof ApiError && error.code === 'VALIDATION_FAILED') {
    for (const p of error.fieldProblems) byField[FIELDS[p.field] ?? p.field] ??= p.message;
  }
  const other = error && !Object.keys(byField).length ? error.message : undefined;
  const described = (field: string) =>
    byField[field] ? { 'aria-invalid': true, 'aria-describedby': `${id}-${field}-error` } : {};
  const problem = (field: string) =>
    byField[field] && (
      <p id={`${id}-${field}-error`} className="field-error">
        {byField[field]}
      </p>
    );

  const submit = (event: FormEvent) => {
    event.preventDefault();
    exporting.mutate();
  };
  const list = categories.data?.categories ?? [];
  const names = new Map(list.map((c) => [c.id, c]));
  const path = (categoryId: number) => {
    const parts: string[] = [];
    for (
      let c = names.get(categoryId);
      c && parts.length < 20;
      c = c.parentId === null ? undefined : names.get(c.parentId)
    ) {
      parts.unshift(c.name);
    }
    return parts.join(' › ');
  };

  return (
    <form className="import-form" onSubmit={submit} noValidate>
      <div className="filters">
        <div className="field">
          <label htmlFor={`${id}-format`}>{t`Export format`}</label>
          <select id={`${id}-format`} value={format} onChange={(e) => setFormat(e.target.value as ExportFormat)}>
            <option value="csv">CSV</option>
            <option value="jsonl">JSON Lines</option>
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${id}-keyword`}>{t`Keyword`}</label>
          <input
            id={`${id}-keyword`}
            type="search"
            maxLength={100}
            value={filters.keyword ?? ''}
            onChange={(e) => set({ keyword: e.target.value })}
            {...described('keyword')}
          />
          {problem('keyword')}
        </div>
        <div className="field">
          <label htmlFor={`${id}-status`}>{t`Status`}</label>
          <select
            id={`${id}-status`}
            value={filters.status ?? ''}
            onChange={(e) => set({ status: (e.target.value || undefined) as ItemStatus | undefined })}
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
          <label htmlFor={`${id}-category`}>{t`Category`}</label>
          <select
            id={`${id}-category`}
            value={filters.categoryId ?? ''}
            onChange={(e) => set({ categoryId: e.target.value ? Number(e.target.value) : undefined })}
          >
            <option value="">{t`All categories`}</option>
            {list
              .map((c) => ({ id: c.id, path: path(c.id) }))
              .sort((a, b) => a.path.localeCompare(b.path))
              .map((c) => (
                <option key={c.id} value={c.id}>
                  {c.path}
                </option>
              ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${id}-min`}>{t`Lowest price`}</label>
          <input
            id={`${id}-min`}
            inputMode="decimal"
            size={8}
            value={filters.minPrice ?? ''}
            onChange={(e) => set({ minPrice: e.target.value })}
            {...described('minPrice')}
          />
          {problem('minPrice')}
        </div>
        <div className="field">
          <label htmlFor={`${id}-max`}>{t`Highest price`}</label>
          <input
            id={`${id}-max`}
            inputMode="decimal"
            size={8}
            value={filters.maxPrice ?? ''}
            onChange={(e) => set({ maxPrice: e.target.value })}
            {...described('maxPrice')}
          />
          {problem('maxPrice')}
        </div>
      </div>
      <div className="check">
        <input
          id={`${id}-stock`}
          type="checkbox"
          checked={filters.inStock ?? false}
          onChange={(e) => set({ inStock: e.target.checked || undefined })}
        />
        <label htmlFor={`${id}-stock`}>{t`Only items in stock`}</label>
      </div>
      {other && (
        <p className="form-error" role="alert">
          {other}
        </p>
      )}
      <button
        type="submit"
        className="button primary"
        disabled={exporting.isPending}
        aria-busy={exporting.isPending || undefined}
      >
        {exporting.isPending ? t`Preparing the file…` : t`Download the export`}
      </button>
      <p role="status" className="announcement">
        {exporting.isSuccess && <Trans>The export was downloaded.</Trans>}
      </p>
    </form>
  );
}
