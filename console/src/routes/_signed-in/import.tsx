/**
 * Import / export (contract §13, §15): upload a CSV or JSON Lines file — a dry run first by default —
 * and read its report (counts, the first problems by row and column); run the same file for real
 * with a live progress bar; cancel; download the errors file; the recent imports; and an export of
 * the items the list's filters match. The import shown is in the address (`?import=12`), so a reload
 * or a link shows the same one; so are the export's filters (the items list's names).
 */
import { Trans, useLingui } from '@lingui/react/macro';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { createFileRoute, useNavigate } from '@tanstack/react-router';
import { useId, useState } from 'react';
import { readFragment } from '../../gql/graphql.ts';
import { requestWithFiles } from '../../gql/request.ts';
import { PageShell } from '../../ui/page-shell.tsx';
import { ITEM_STATUSES, type ItemStatus } from '../../ui/status-name.ts';
import { type ExportFilters, ExportForm } from './-import/export-form.tsx';
import { ImportFields, StartImport } from './-import/import.gql.ts';
import { ImportForm, type ImportRequest } from './-import/import-form.tsx';
import { ImportReport } from './-import/import-report.tsx';
import { RecentImportsSection } from './-import/recent-imports.tsx';

interface ImportSearch extends ExportFilters {
  /** The import whose report is shown. */
  import?: number;
}

const positive = (value: unknown) => {
  const n = Number(value);
  return Number.isInteger(n) && n >= 1 && n <= 2_147_483_647 ? n : undefined;
};
const price = (value: unknown) =>
  typeof value === 'string' || typeof value === 'number' ? String(value).slice(0, 20) : undefined;

export const Route = createFileRoute('/_signed-in/import')({
  validateSearch: (search: Record<string, unknown>): ImportSearch => {
    const keyword = typeof search.keyword === 'string' ? search.keyword.slice(0, 100) : undefined;
    const status = ITEM_STATUSES.find((s) => s === search.status);
    const found = {
      import: positive(search.import),
      keyword: keyword || undefined,
      status: status as ItemStatus | undefined,
      categoryId: positive(search.categoryId),
      inStock: search.inStock === true || search.inStock === 'true' ? true : undefined,
      minPrice: price(search.minPrice),
      maxPrice: price(search.maxPrice),
    };
    return Object.fromEntries(Object.entries(found).filter(([, v]) => v !== undefined)) as ImportSearch;
  },
  staticData: { screen: 'import' },
  component: ImportScreen,
});

function ImportScreen() {
  const { t } = useLingui();
  const search = Route.useSearch();
  const navigate = useNavigate({ from: Route.fullPath });
  const queryClient = useQueryClient();
  const importHeading = useId();
  const exportHeading = useId();
  // The file of the last dry run, kept to run it for real without choosing it again.
  const [checked, setChecked] = useState<{ id: number; request: ImportRequest } | null>(null);

  const show = (id: number | undefined) =>
    navigate({ search: (prev: ImportSearch) => ({ ...prev, import: id }), replace: true });

  const start = useMutation({
    mutationFn: ({ file, format, mode, dryRun, atomic }: ImportRequest) =>
      requestWithFiles(StartImport, { file, format, mode, dryRun, atomic }),
    onSuccess: async ({ startImport }, request) => {
      const started = readFragment(ImportFields, startImport);
      setChecked(request.dryRun ? { id: started.id, request } : null);
      await queryClient.invalidateQueries({ queryKey: ['import', 'list'] });
      void show(started.id);
    },
  });
  const shownId = search.import ?? null;
  const runForReal =
    checked && checked.id === shownId ? () => start.mutate({ ...checked.request, dryRun: false }) : undefined;
  const { import: _shown, ...exportFilters } = search;

  return (
    <PageShell title={t`Import`}>
      <section className="screen-section" aria-labelledby={importHeading}>
        <h2 id={importHeading}>
          <Trans>Import items</Trans>
        </h2>
        <ImportForm busy={start.isPending} error={start.error} onStart={(request) => start.mutate(request)} />
        {shownId !== null && <ImportReport key={shownId} id={shownId} onRunForReal={runForReal} />}
      </section>
      <RecentImportsSection shown={shownId} onShow={(id) => void show(id)} />
      <section className="screen-section" aria-labelledby={exportHeading}>
        <h2 id={exportHeading}>
          <Trans>Export items</Trans>
        </h2>
        <p className="muted hint">
          <Trans>Every item the filters match, with all its SKUs, in the file format an import reads.</Trans>
        </p>
        <ExportForm initial={exportFilters} />
      </section>
    </PageShell>
  );
}
