/**
 * Webhooks (contract §14.2, §15; owner): the webhooks — create (the secret shown once), edit, enable,
 * delete, rotate the secret, send a test event — and one webhook's delivery attempts with a status
 * filter, paging and "Redeliver", and the newest events of the log to deliver to it. Which webhook's
 * deliveries, their filter and page are in the address
 * (`/webhooks?webhook=3&status=failed&page=2`).
 */
import { useLingui } from '@lingui/react/macro';
import { useQuery } from '@tanstack/react-query';
import { createFileRoute, useNavigate } from '@tanstack/react-router';
import { request } from '../../gql/request.ts';
import { PageShell } from '../../ui/page-shell.tsx';
import { DeliveriesSection } from './-webhooks/deliveries-section.tsx';
import { DELIVERY_STATUSES } from './-webhooks/delivery-status.ts';
import { EventsSection } from './-webhooks/events-section.tsx';
import { WebhooksSection } from './-webhooks/webhooks-section.tsx';
import { type DeliveryStatus, WEBHOOKS_KEY, Webhooks } from './-webhooks.gql.ts';

interface WebhooksSearch {
  webhook?: number;
  status?: DeliveryStatus;
  page?: number;
}

const positive = (value: unknown) => {
  const n = Number(value);
  return Number.isInteger(n) && n >= 1 ? n : undefined;
};

export const Route = createFileRoute('/_signed-in/webhooks')({
  validateSearch: (search: Record<string, unknown>): WebhooksSearch => {
    const webhook = positive(search.webhook);
    if (!webhook) return {};
    const status = DELIVERY_STATUSES.find((s) => s === search.status);
    const page = positive(search.page);
    return {
      webhook,
      ...(status && { status }),
      ...(page && page > 1 && { page }),
    };
  },
  staticData: { screen: 'webhooks' },
  component: WebhooksScreen,
});

function WebhooksScreen() {
  const { t } = useLingui();
  const search = Route.useSearch();
  const navigate = useNavigate({ from: Route.fullPath });
  // The same query as the list's (one request, from the cache): the selected webhook's URL and state.
  const webhooks = useQuery({ queryKey: WEBHOOKS_KEY, queryFn: ({ signal }) => request(Webhooks, {}, signal) });
  const selected = webhooks.data?.webhooks.find((w) => w.id === search.webhook);
  return (
    <PageShell title={t`Webhooks`}>
      <WebhooksSection
        selected={search.webhook}
        onSelect={(webhook) => void navigate({ search: webhook ? { webhook } : {} })}
      />
      {selected && (
        <>
          <DeliveriesSection
            webhook={selected}
            status={search.status}
            page={search.page}
            onChange={({ status, page }) =>
              void navigate({
                search: { webhook: selected.id, ...(status && { status }), ...(page && page > 1 && { page }) },
              })
            }
          />
          <EventsSection webhook={selected} />
        </>
      )}
    </PageShell>
  );
}
