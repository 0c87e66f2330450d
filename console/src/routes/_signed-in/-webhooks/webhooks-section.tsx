/**
 * The owner's webhooks (contract §14.2): each with its URL, event types, description and state (a
 * disabled one says why), and its actions — its deliveries, edit, a test event, a new secret (after a
 * confirmation; shown once) and delete (after a confirmation). A new webhook's secret is shown once too.
 */
import { Trans, useLingui } from '@lingui/react/macro';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useRef, useState } from 'react';
import { errorText } from '../../../gql/error-text.ts';
import { request } from '../../../gql/request.ts';
import { ConfirmDialog } from '../../../ui/confirm-dialog.tsx';
import { useDateTime } from '../../../ui/date-time.ts';
import {
  DELIVERIES_KEY,
  DeleteWebhook,
  RotateWebhookSecret,
  SendTestEvent,
  WEBHOOKS_KEY,
  type WebhookRow,
  Webhooks,
} from '../-webhooks.gql.ts';
import { CreateWebhookForm } from './create-webhook-form.tsx';
import { EditWebhookDialog } from './edit-webhook-dialog.tsx';
import { ALL_EVENTS } from './event-types.ts';
import { SecretDialog, type ShownSecret } from './secret-dialog.tsx';

type Confirming = { kind: 'delete' | 'rotate'; webhook: WebhookRow };

interface WebhooksSectionProps {
  /** The webhook whose deliveries are shown. */
  selected?: number;
  /** Shows a webhook's deliveries (after a test event, the one it went to). */
  onSelect: (id: number | undefined) => void;
}

export function WebhooksSection({ selected, onSelect }: WebhooksSectionProps) {
  const { t } = useLingui();
  const queryClient = useQueryClient();
  const dateTime = useDateTime();
  const [shown, setShown] = useState<ShownSecret>();
  const [editing, setEditing] = useState<WebhookRow>();
  const [confirming, setConfirming] = useState<Confirming>();
  const [announcement, setAnnouncement] = useState('');
  const webhooks = useQuery({ queryKey: WEBHOOKS_KEY, queryFn: ({ signal }) => request(Webhooks, {}, signal) });
  const refresh = () => queryClient.invalidateQueries({ queryKey: WEBHOOKS_KEY });
  const listHeading = useRef<HTMLHeadingElement>(null);

  const confirm = useMutation({
    mutationFn: async ({ kind, webhook }: Confirming) => {
      if (kind === 'delete') {
        await request(DeleteWebhook, { id: webhook.id });
        return { kind, webhook, secret: '' };
      }
      const { rotateWebhookSecret } = await request(RotateWebhookSecret, { id: webhook.id });
      return { kind, webhook, secret: rotateWebhookSecret };
    },
    onSuccess: ({ kind, webhook, secret }) => {
      const url = webhook.url;
      setConfirming(undefined);
      if (kind === 'rotate') {
        setShown({ url, secret, rotated: true });
        setAnnouncement(t`${url} has a new signing secret; the previous one signs too for 24 hours.`);
        void refresh();
      } else {
        setAnnouncement(t`The webhook ${url} is deleted.`);
        if (selected === webhook.id) onSelect(undefined);
        // Its card (and the Delete button the dialog gives the focus back to) goes: the list's heading takes it.
        void refresh().then(() => listHeading.current?.focus());
      }
    },
  });
  const test = useMutation({
    mutationFn: (webhook: WebhookRow) => request(SendTestEvent, { webhookId: webhook.id }).then(() => webhook),
    onSuccess: (webhook) => {
      const url = webhook.url;
      setAnnouncement(t`A test event is on its way to ${url}.`);
      onSelect(webhook.id);
      void queryClient.invalidateQueries({ queryKey: DELIVERIES_KEY });
    },
    onMutate: () => setAnnouncement(''),
  });

  const list = webhooks.data?.webhooks ?? [];
  const confirmingUrl = confirming?.webhook.url ?? '';
  const testRefusal = test.isError ? errorText(test.error) : '';

  return (
    <>
      <CreateWebhookForm
        onCreated={({ url, secret }) => {
          setShown({ url, secret, rotated: false });
          setAnnouncement(t`The webhook ${url} is created.`);
          void refresh();
        }}
      />
      <h2 id="webhooks-list" ref={listHeading} tabIndex={-1}>
        <Trans>Webhooks</Trans>
      </h2>
      <p role="status" className="status-line">
        {announcement}
      </p>
      {test.isError && (
        <p className="form-error" role="alert">
          <Trans>No test event sent: {testRefusal}</Trans>
        </p>
      )}
      {webhooks.isError && (
        <p className="form-error" role="alert">
          {webhooks.error.message}
        </p>
      )}
      {webhooks.isSuccess && list.length === 0 && (
        <p className="notice">
          <Trans>No webhooks yet.</Trans>
        </p>
      )}
      {list.length > 0 && (
        <ul className="webhook-list" aria-labelledby="webhooks-list" aria-busy={webhooks.isFetching}>
          {list.map((webhook) => {
            const url = webhook.url;
            const headingId = `webhook-${webhook.id}`;
            return (
              <li key={webhook.id}>
                <article className="webhook-card" aria-labelledby={headingId}>
                  <h3 id={headingId} className="webhook-url">
                    {url}
                  </h3>
                  <dl className="audit-facts">
                    <div>
                      <dt>{t`Events`}</dt>
                      <dd>
                        {webhook.events.includes(ALL_EVENTS) ? (
                          <Trans>every event</Trans>
                        ) : (
                          webhook.events.map((type, i) => (
                            <span key={type}>
                              {i > 0 && ', '}
                              <code>{type}</code>
                            </span>
                          ))
                        )}
                      </dd>
                    </div>
                    {webhook.description && (
                      <div>
                        <dt>{t`Description`}</dt>
                        <dd>{webhook.description}</dd>
                      </div>
                    )}
                    <div>
                      <dt>{t`State`}</dt>
                      <dd>
                        {webhook.disabled ? (
                          <span className="badge state-disabled">
                            <Trans>Disabled</Trans>
                          </span>
                        ) : (
                          <Trans>Enabled</Trans>
                        )}
                        {webhook.disabled && webhook.disabledReason && (
                          <span className="muted"> {webhook.disabledReason}</span>
                        )}
                      </dd>
                    </div>
                    <div>
                      <dt>{t`Created`}</dt>
                      <dd>{dateTime(webhook.createdAt)}</dd>
                    </div>
                  </dl>
                  <div className="row-actions">
                    <Link
                      to="/webhooks"
                      search={{ webhook: webhook.id }}
                      className="button"
                      aria-current={selected === webhook.id ? 'true' : undefined}
                    >
                      <Trans>
                        Deliveries<span className="visually-hidden"> to {url}</span>
                      </Trans>
                    </Link>
                    <button type="button" className="button" onClick={() => setEditing(webhook)}>
                      <Trans>
                        Edit<span className="visually-hidden"> {url}</span>
                      </Trans>
                    </button>
                    <button
                      type="button"
                      className="button"
                      disabled={test.isPending && test.variables?.id === webhook.id}
                      onClick={() => test.mutate(webhook)}
                    >
                      <Trans>
                        Send a test event<span className="visually-hidden"> to {url}</span>
                      </Trans>
                    </button>
                    <button
                      type="button"
                      className="button"
                      onClick={() => {
                        confirm.reset();
                        setConfirming({ kind: 'rotate', webhook });
                      }}
                    >
                      <Trans>
                        Rotate the secret<span className="visually-hidden"> of {url}</span>
                      </Trans>
                    </button>
                    <button
                      type="button"
                      className="button"
                      onClick={() => {
                        confirm.reset();
                        setConfirming({ kind: 'delete', webhook });
                      }}
                    >
                      <Trans>
                        Delete<span className="visually-hidden"> {url}</span>
                      </Trans>
                    </button>
                  </div>
                </article>
              </li>
            );
          })}
        </ul>
      )}

      <ConfirmDialog
        open={confirming !== undefined}
        title={
          confirming?.kind === 'rotate'
            ? t`Rotate the signing secret of ${confirmingUrl}?`
            : t`Delete the webhook ${confirmingUrl}?`
        }
        confirmLabel={confirming?.kind === 'rotate' ? t`Rotate the secret` : t`Delete the webhook`}
        destructive={confirming?.kind === 'delete'}
        busy={confirm.isPending}
        onConfirm={() => confirming && confirm.mutate(confirming)}
        onCancel={() => setConfirming(undefined)}
      >
        <p>
          {confirming?.kind === 'rotate' ? (
            <Trans>
              A new secret signs every delivery from now on; it is shown once. The previous secret keeps signing as well
              for 24 hours, then stops.
            </Trans>
          ) : (
            <Trans>
              Nothing more is delivered to it, its pending attempts are dropped and its deliveries log goes with it.
              This cannot be undone.
            </Trans>
          )}
        </p>
        {confirm.isError && (
          <p className="form-error" role="alert">
            {errorText(confirm.error)}
          </p>
        )}
      </ConfirmDialog>
      <EditWebhookDialog
        webhook={editing}
        onCancel={() => setEditing(undefined)}
        onSaved={(url) => {
          setEditing(undefined);
          setAnnouncement(t`The webhook ${url} is saved.`);
          void refresh();
        }}
      />
      <SecretDialog shown={shown} onClose={() => setShown(undefined)} />
    </>
  );
}
