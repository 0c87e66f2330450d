/**
 * The newest events of the log (contract §14.1), on demand, so the owner can pick one to deliver to
 * the selected webhook — again, or for the first time (one from before the webhook existed, or of a
 * type it does not ask for): `redeliverEvent` takes any event still kept.
 */
import { Trans, useLingui } from '@lingui/react/macro';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { errorText } from '../../../gql/error-text.ts';
import { request } from '../../../gql/request.ts';
import { useDateTime } from '../../../ui/date-time.ts';
import { DELIVERIES_KEY, EVENTS_KEY, Events, RedeliverEvent, type WebhookRow } from '../-webhooks.gql.ts';
import { newestEvents } from './newest-events.ts';

const SHOWN = 20;

export function EventsSection({ webhook }: { webhook: WebhookRow }) {
  const { t } = useLingui();
  const queryClient = useQueryClient();
  const dateTime = useDateTime();
  const headingId = useId();
  const [asked, setAsked] = useState(false);
  const [announcement, setAnnouncement] = useState('');
  const events = useQuery({
    queryKey: [...EVENTS_KEY, 'newest', SHOWN],
    queryFn: ({ signal }) =>
      newestEvents((after, limit) => request(Events, { after, limit }, signal).then((r) => r.events), SHOWN),
    enabled: asked,
  });
  const deliver = useMutation({
    mutationFn: (eventId: string) => request(RedeliverEvent, { webhookId: webhook.id, eventId }).then(() => eventId),
    onMutate: () => setAnnouncement(''),
    onSuccess: (eventId) => {
      const url = webhook.url;
      setAnnouncement(t`The event ${eventId} is on its way to ${url}.`);
      void queryClient.invalidateQueries({ queryKey: DELIVERIES_KEY });
    },
  });
  const url = webhook.url;
  const refusal = deliver.isError ? errorText(deliver.error) : '';
  const list = events.data ?? [];

  return (
    <section className="screen-section" aria-labelledby={headingId}>
      <h2 id={headingId}>
        <Trans>Recent events</Trans>
      </h2>
      <p className="muted">
        <Trans>Deliver any event still kept to {url}: again, or for the first time.</Trans>
      </p>
      <button
        type="button"
        className="button"
        disabled={events.isFetching}
        aria-busy={events.isFetching}
        onClick={() => (asked ? void events.refetch() : setAsked(true))}
      >
        {asked ? t`Reload the newest events` : t`Show the newest events`}
      </button>
      <p role="status" className="status-line">
        {announcement}
      </p>
      {deliver.isError && (
        <p className="form-error" role="alert">
          {refusal}
        </p>
      )}
      {events.isError && (
        <p className="form-error" role="alert">
          {errorText(events.error)}
        </p>
      )}
      {events.isSuccess && list.length === 0 && (
        <p className="notice">
          <Trans>The event log is empty.</Trans>
        </p>
      )}
      {list.length > 0 && (
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard (WCAG 2.1.1)
        <section className="table-scroll events-scroll" aria-labelledby={headingId} tabIndex={0}>
          <table className="events-table" aria-busy={events.isFetching}>
            <thead>
              <tr>
                <th scope="col">{t`Event`}</th>
                <th scope="col">{t`Type`}</th>
                <th scope="col">{t`Time`}</th>
                <th scope="col">{t`By`}</th>
                <th scope="col">{t`Action`}</th>
              </tr>
            </thead>
            <tbody>
              {list.map((event) => {
                const eventId = event.id;
                return (
                  <tr key={event.id}>
                    <th scope="row" className="event-id">
                      <code>{eventId}</code>
                    </th>
                    <td>
                      <code>{event.type}</code>
                    </td>
                    <td>{dateTime(event.at)}</td>
                    <td>{event.actor?.name ?? event.actor?.type ?? <Trans>the service</Trans>}</td>
                    <td>
                      <button
                        type="button"
                        className="button"
                        disabled={deliver.isPending}
                        onClick={() => deliver.mutate(eventId)}
                      >
                        <Trans>
                          Deliver<span className="visually-hidden"> the event {eventId}</span>
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
    </section>
  );
}
