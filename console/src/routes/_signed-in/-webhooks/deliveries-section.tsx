/**
 * One webhook's delivery attempts (contract §14.2), newest first: a status filter and paging (both in
 * the address), each attempt's number, time, status, the answer's status, duration, the next attempt
 * and the first KiB of the answer behind a disclosure, and "Redeliver" for the attempt's event. The
 * list asks again every second while an attempt's outcome is a few seconds away (delivery-refresh.ts),
 * and every 5 s otherwise so that new deliveries appear.
 */

import { Plural, Trans, useLingui } from '@lingui/react/macro';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useMemo, useState } from 'react';
import { errorText } from '../../../gql/error-text.ts';
import { request } from '../../../gql/request.ts';
import { Pager } from '../../../ui/pager.tsx';
import {
  DELIVERIES_KEY,
  type DeliveriesVariables,
  type DeliveryStatus,
  RedeliverEvent,
  WebhookDeliveries,
  type WebhookRow,
} from '../-webhooks.gql.ts';
import { refreshInterval } from './delivery-refresh.ts';
import { DELIVERY_STATUSES, useDeliveryStatusName } from './delivery-status.ts';

const PAGE_SIZE = 20;

interface DeliveriesSectionProps {
  webhook: WebhookRow;
  status?: DeliveryStatus;
  page?: number;
  onChange: (next: { status?: DeliveryStatus; page?: number }) => void;
}

export function DeliveriesSection({ webhook, status, page, onChange }: DeliveriesSectionProps) {
  const { t, i18n } = useLingui();
  const queryClient = useQueryClient();
  const statusName = useDeliveryStatusName();
  const headingId = useId();
  const filterId = useId();
  const [announcement, setAnnouncement] = useState('');
  const time = useMemo(
    () => new Intl.DateTimeFormat(i18n.locale, { dateStyle: 'short', timeStyle: 'medium' }),
    [i18n.locale],
  );
  const milliseconds = useMemo(
    () => new Intl.NumberFormat(i18n.locale, { style: 'unit', unit: 'millisecond', unitDisplay: 'short' }),
    [i18n.locale],
  );

  const variables: DeliveriesVariables = {
    webhookId: webhook.id,
    status: status ?? null,
    page: page ?? 1,
    limit: PAGE_SIZE,
  };
  const deliveries = useQuery({
    queryKey: [...DELIVERIES_KEY, variables],
    queryFn: ({ signal }) => request(WebhookDeliveries, variables, signal),
    placeholderData: keepPreviousData,
    refetchInterval: (query) => refreshInterval(query.state.data?.webhookDeliveries.deliveries ?? [], Date.now()),
  });
  const redeliver = useMutation({
    mutationFn: (eventId: string) => request(RedeliverEvent, { webhookId: webhook.id, eventId }).then(() => eventId),
    onMutate: () => setAnnouncement(''),
    onSuccess: (eventId) => {
      setAnnouncement(t`The event ${eventId} is being delivered again.`);
      void queryClient.invalidateQueries({ queryKey: DELIVERIES_KEY });
    },
  });

  const result = deliveries.data?.webhookDeliveries;
  const total = result?.total ?? 0;
  const pageNumber = result?.page ?? 1;
  const totalPages = result?.totalPages ?? 0;
  const url = webhook.url;
  const refusal = redeliver.isError ? errorText(redeliver.error) : '';
  const refusedEvent = redeliver.variables ?? '';

  return (
    <section className="screen-section deliveries" aria-labelledby={headingId}>
      <h2 id={headingId}>
        <Trans>Deliveries to {url}</Trans>
      </h2>
      <div className="filters">
        <div className="field">
          <label htmlFor={filterId}>{t`Delivery status`}</label>
          <select
            id={filterId}
            value={status ?? ''}
            onChange={(e) => onChange({ status: DELIVERY_STATUSES.find((s) => s === e.target.value) })}
          >
            <option value="">{t`Every status`}</option>
            {DELIVERY_STATUSES.map((s) => (
              <option key={s} value={s}>
                {statusName(s)}
              </option>
            ))}
          </select>
        </div>
      </div>
      <p className="result-line" aria-live="polite">
        {deliveries.isPending ? (
          <Trans>Loading deliveries…</Trans>
        ) : deliveries.isError ? null : (
          <Plural value={total} one="# attempt" other="# attempts" />
        )}
      </p>
      <p role="status" className="status-line">
        {announcement}
      </p>
      {redeliver.isError && (
        <p className="form-error" role="alert">
          <Trans>
            The event {refusedEvent} was not delivered again: {refusal}
          </Trans>
        </p>
      )}
      {deliveries.isError && (
        <p className="form-error" role="alert">
          {errorText(deliveries.error)}
        </p>
      )}
      {result && result.deliveries.length === 0 && (
        <p className="notice">
          {status ? <Trans>No attempts with this status.</Trans> : <Trans>Nothing delivered yet.</Trans>}
        </p>
      )}
      {result && result.deliveries.length > 0 && (
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard (WCAG 2.1.1)
        <section className="table-scroll" aria-labelledby={headingId} tabIndex={0}>
          <table className="deliveries-table" aria-busy={deliveries.isFetching}>
            <thead>
              <tr>
                <th scope="col">{t`Event`}</th>
                <th scope="col">{t`Attempt`}</th>
                <th scope="col">{t`Time`}</th>
                <th scope="col">{t`Status`}</th>
                <th scope="col">{t`Response`}</th>
                <th scope="col">{t`Duration`}</th>
                <th scope="col">{t`Next attempt`}</th>
                <th scope="col">{t`Answer`}</th>
                <th scope="col">{t`Action`}</th>
              </tr>
            </thead>
            <tbody>
              {result.deliveries.map((d) => {
                const eventId = d.eventId;
                const attempt = d.attempt;
                return (
                  <tr key={d.id} className={`delivery-${d.status}`}>
                    <th scope="row" className="event-id">
                      <code>{eventId}</code>
                    </th>
                    <td className="number">{d.attempt}</td>
                    <td>{time.format(new Date(d.at))}</td>
                    <td>
                      <span className={`badge delivery-status-${d.status}`}>{statusName(d.status)}</span>
                    </td>
                    <td className="number">{d.responseStatus ?? <Trans>No answer</Trans>}</td>
                    <td className="number">
                      {d.durationMs === null ? <Trans>Under way</Trans> : milliseconds.format(d.durationMs)}
                    </td>
                    <td>{d.nextAttemptAt ? time.format(new Date(d.nextAttemptAt)) : <Trans>None</Trans>}</td>
                    <td>
                      {d.responseBody ? (
                        <details className="response-body">
                          <summary>
                            <Trans>
                              Show
                              <span className="visually-hidden">
                                {' '}
                                the answer to attempt {attempt} of {eventId}
                              </span>
                            </Trans>
                          </summary>
                          <pre>{d.responseBody}</pre>
                        </details>
                      ) : (
                        <span className="muted">
                          <Trans>Empty</Trans>
                        </span>
                      )}
                    </td>
                    <td>
                      <button
                        type="button"
                        className="button"
                        disabled={redeliver.isPending}
                        onClick={() => redeliver.mutate(eventId)}
                      >
                        <Trans>
                          Redeliver<span className="visually-hidden"> the event {eventId}</span>
                        </Trans>
                      </button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </section>
      )}
      {result && (
        <Pager
          page={pageNumber}
          totalPages={totalPages}
          label={t`Pages of deliveries`}
          onPage={(p) => onChange({ status, page: p })}
        />
      )}
    </section>
  );
}
