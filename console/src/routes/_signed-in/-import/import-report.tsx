/**
 * One import as it runs and once it ended (contract §13.2): its status (said to a screen reader as it
 * changes), a progress bar over the file's rows, the items by outcome (for a dry run: what a real run
 * would do), the first problems naming row and column, and the actions that fit — cancel while it
 * runs, download the errors file (every failed row with its columns and the error), run it for real
 * after a dry run of the same file.
 */
import type { MessageDescriptor } from '@lingui/core';
import { msg } from '@lingui/core/macro';
import { useLingui as useLinguiRuntime } from '@lingui/react';
import { Plural, Trans, useLingui } from '@lingui/react/macro';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId } from 'react';
import { readFragment } from '../../../gql/graphql.ts';
import { download, request } from '../../../gql/request.ts';
import { saveFile } from '../../../ui/save-file.ts';
import { CancelImport, ImportDetail, ImportFields, type ImportStatus, isRunning } from './import.gql.ts';

/** How often a running import is read again (contract: `rowsDone` grows at least once a second). */
const POLL_MS = 500;
/** Problems listed on the screen; the errors file has every failed row. */
const SHOWN_ERRORS = 20;

export const STATUS_NAMES: Record<ImportStatus, MessageDescriptor> = {
  queued: msg`Queued`,
  running: msg`Running`,
  succeeded: msg`Succeeded`,
  failed: msg`Failed`,
  cancelled: msg`Cancelled`,
};

export const importDetailKey = (id: number) => ['import', 'detail', { id }] as const;

/** The errors file, fetched with the admin's token and handed to the browser as a download. */
export function useErrorsFileDownload() {
  return useMutation({
    mutationFn: async ({ id, url }: { id: number; url: string }) => {
      const { blob, filename } = await download(url, `import-${id}-errors.csv`);
      saveFile(blob, filename);
    },
  });
}

export function ImportReport({ id, onRunForReal }: { id: number; onRunForReal?: () => void }) {
  const { t } = useLingui();
  const { _, i18n } = useLinguiRuntime();
  const queryClient = useQueryClient();
  const headingId = useId();
  const progressId = useId();
  const detail = useQuery({
    queryKey: importDetailKey(id),
    queryFn: ({ signal }) => request(ImportDetail, { id }, signal),
    refetchInterval: (query) => {
      const found = query.state.data?.import;
      return found && isRunning(readFragment(ImportFields, found).status) ? POLL_MS : false;
    },
  });
  const cancel = useMutation({
    mutationFn: () => request(CancelImport, { id }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['import'] }),
  });
  const errorsFile = useErrorsFileDownload();
  // A real run that ended changed items (and maybe categories): the lists read them again.
  const found = detail.data?.import;
  const ending = found ? readFragment(ImportFields, found) : undefined;
  const endedRealRun = ending !== undefined && !ending.dryRun && !isRunning(ending.status);
  useEffect(() => {
    if (!endedRealRun) return;
    void queryClient.invalidateQueries({ queryKey: ['item'] });
    void queryClient.invalidateQueries({ queryKey: ['category'] });
    void queryClient.invalidateQueries({ queryKey: ['import', 'list'] });
  }, [endedRealRun, queryClient]);

  if (detail.isPending) {
    return (
      <p>
        <Trans>Loading the import…</Trans>
      </p>
    );
  }
  if (detail.isError) {
    return (
      <p className="form-error" role="alert">
        {detail.error.message}
      </p>
    );
  }
  if (!found) {
    return (
      <p className="notice" role="alert">
        <Trans>There is no import {id}.</Trans>
      </p>
    );
  }
  const row = readFragment(ImportFields, found);
  const errors = found.errors;
  const count = new Intl.NumberFormat(i18n.locale);
  const running = isRunning(row.status);
  const status = _(STATUS_NAMES[row.status]);
  const done = count.format(row.rowsDone);
  const total = row.rowsTotal === null ? null : count.format(row.rowsTotal);
  const hasFailures = row.items.failed > 0 || errors.length > 0;
  const ended = row.finishedAt !== null && !running;

  return (
    <section className="import-report" aria-labelledby={headingId}>
      <h3 id={headingId}>{row.dryRun ? t`Dry run ${id}` : t`Import ${id}`}</h3>
      <p role="status" className="import-status">
        {row.dryRun ? <Trans>Dry run: {status}</Trans> : <Trans>Import: {status}</Trans>}
      </p>
      <div className="progress-field">
        <label htmlFor={progressId}>{row.dryRun ? t`Dry-run progress` : t`Import progress`}</label>
        <progress
          id={progressId}
          max={row.rowsTotal ?? undefined}
          // No value while the file is still being counted: an indeterminate bar.
          value={row.rowsTotal === null ? undefined : ended ? row.rowsTotal : row.rowsDone}
        />
        <span className="muted">
          {total === null ? (
            <Trans>Reading the file…</Trans>
          ) : (
            <Trans>
              {done} of {total} rows
            </Trans>
          )}
        </span>
      </div>

      <h4 className="counts-heading">{row.dryRun ? t`What a real run would do` : t`Items`}</h4>
      <dl className="counts">
        <div>
          <dt>{t({ message: 'Created', context: 'items an import creates' })}</dt>
          <dd>{count.format(row.items.created)}</dd>
        </div>
        <div>
          <dt>{t`Updated`}</dt>
          <dd>{count.format(row.items.updated)}</dd>
        </div>
        <div>
          <dt>{t`Unchanged`}</dt>
          <dd>{count.format(row.items.unchanged)}</dd>
        </div>
        <div>
          <dt>{t`Failed`}</dt>
          <dd>{count.format(row.items.failed)}</dd>
        </div>
      </dl>

      {errors.length > 0 && (
        <ImportErrors errors={errors.slice(0, SHOWN_ERRORS)} more={Math.max(0, errors.length - SHOWN_ERRORS)} />
      )}

      {(cancel.isError || errorsFile.isError) && (
        <p className="form-error" role="alert">
          {(cancel.error ?? errorsFile.error)?.message}
        </p>
      )}

      <div className="button-row">
        {running && (
          <button type="button" className="button" disabled={cancel.isPending} onClick={() => cancel.mutate()}>
            {row.dryRun ? t`Cancel the dry run` : t`Cancel the import`}
          </button>
        )}
        {hasFailures && ended && (
          <button
            type="button"
            className="button"
            disabled={errorsFile.isPending}
            aria-busy={errorsFile.isPending || undefined}
            onClick={() => errorsFile.mutate({ id, url: row.errorsCsvUrl })}
          >
            <Trans>Download the errors file</Trans>
          </button>
        )}
        {row.dryRun && row.status === 'succeeded' && onRunForReal && (
          <button type="button" className="button primary" onClick={onRunForReal}>
            <Trans>Run it for real</Trans>
          </button>
        )}
      </div>
    </section>
  );
}

function ImportErrors({
  errors,
  more,
}: {
  errors: ReadonlyArray<{ row: number; handle: string | null; field: string | null; message: string }>;
  more: number;
}) {
  const captionId = useId();
  return (
    <>
      <p id={captionId} className="result-line">
        <Plural
          value={errors.length + more}
          one="# problem, by row and column:"
          other="# problems, by row and column:"
        />
      </p>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard (WCAG 2.1.1) */}
      <section className="table-scroll" aria-labelledby={captionId} tabIndex={0}>
        <table>
          <thead>
            <tr>
              <th scope="col" className="number">
                <Trans>Row</Trans>
              </th>
              <th scope="col">
                <Trans>Column</Trans>
              </th>
              <th scope="col">
                <Trans>Handle</Trans>
              </th>
              <th scope="col">
                <Trans>Problem</Trans>
              </th>
            </tr>
          </thead>
          <tbody>
            {errors.map((e, index) => (
              <tr key={`${e.row}-${e.field}-${index}`}>
                <td className="number">{e.row}</td>
                <td>{e.field ?? '—'}</td>
                <td>{e.handle ?? '—'}</td>
                <td>{e.message}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      {more > 0 && (
        <p className="muted">
          <Plural value={more} one="# more in the errors file." other="# more in the errors file." />
        </p>
      )}
    </>
  );
}
