/** The recent imports of every admin, newest first: status, outcome, and a button to show one's report. */
import { useLingui as useLinguiRuntime } from '@lingui/react';
import { Trans, useLingui } from '@lingui/react/macro';
import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { readFragment } from '../../../gql/graphql.ts';
import { request } from '../../../gql/request.ts';
import { ImportFields, isRunning, RecentImports } from './import.gql.ts';
import { STATUS_NAMES } from './import-report.tsx';

const RECENT = 10;

export function RecentImportsSection({ onShow, shown }: { onShow: (id: number) => void; shown: number | null }) {
  const { t } = useLingui();
  const { _, i18n } = useLinguiRuntime();
  const headingId = useId();
  const variables = { page: 1, limit: RECENT };
  const list = useQuery({
    queryKey: ['import', 'list', variables],
    queryFn: ({ signal }) => request(RecentImports, variables, signal),
    // While one runs, its row follows it.
    refetchInterval: (query) =>
      query.state.data?.imports.imports.some((i) => isRunning(readFragment(ImportFields, i).status)) ? 1_000 : false,
  });
  const date = new Intl.DateTimeFormat(i18n.locale, { dateStyle: 'medium', timeStyle: 'short' });
  const count = new Intl.NumberFormat(i18n.locale);
  const rows = (list.data?.imports.imports ?? []).map((i) => readFragment(ImportFields, i));

  return (
    <section className="screen-section" aria-labelledby={headingId}>
      <h2 id={headingId}>
        <Trans>Recent imports</Trans>
      </h2>
      {list.isError && (
        <p className="form-error" role="alert">
          {list.error.message}
        </p>
      )}
      {list.data && rows.length === 0 && (
        <p className="notice">
          <Trans>No imports yet.</Trans>
        </p>
      )}
      {rows.length > 0 && (
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard (WCAG 2.1.1)
        <section className="table-scroll imports-table" aria-labelledby={headingId} tabIndex={0}>
          <table aria-busy={list.isFetching}>
            <thead>
              <tr>
                <th scope="col">
                  <Trans>Import</Trans>
                </th>
                <th scope="col">
                  <Trans>Started</Trans>
                </th>
                <th scope="col">
                  <Trans>By</Trans>
                </th>
                <th scope="col">
                  <Trans>Status</Trans>
                </th>
                <th scope="col" className="number">
                  <Trans>Rows</Trans>
                </th>
                <th scope="col" className="number">
                  <Trans>Failed</Trans>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => {
                const id = row.id;
                const label = row.dryRun ? t`Dry run ${id}` : t`Import ${id}`;
                return (
                  <tr key={row.id}>
                    <td>
                      <button
                        type="button"
                        className="link-button"
                        aria-pressed={shown === row.id}
                        onClick={() => onShow(row.id)}
                      >
                        {label}
                      </button>
                    </td>
                    <td>{date.format(new Date(row.createdAt))}</td>
                    <td>{row.actor.name ?? row.actor.type}</td>
                    <td>{_(STATUS_NAMES[row.status])}</td>
                    <td className="number">{count.format(row.rowsTotal ?? row.rowsDone)}</td>
                    <td className="number">{count.format(row.items.failed)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </section>
      )}
    </section>
  );
}
