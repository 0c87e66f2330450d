/**
 * Editing a webhook in a dialog: URL, event types, description, and whether it delivers — enabling
 * one the service disabled after 5 days of failures restarts its failing streak.
 */
import { Trans, useLingui } from '@lingui/react/macro';
import { useMutation } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { problemsByField } from '../../../gql/errors.ts';
import { request } from '../../../gql/request.ts';
import { FormDialog } from '../../../ui/form-dialog.tsx';
import { UpdateWebhook, type WebhookRow } from '../-webhooks.gql.ts';
import { useFocusFirstProblem } from './focus-problem.ts';
import { type WebhookDraft, WebhookFields } from './webhook-fields.tsx';

interface EditWebhookDialogProps {
  webhook?: WebhookRow;
  onSaved: (url: string) => void;
  onCancel: () => void;
}

export function EditWebhookDialog({ webhook, onSaved, onCancel }: EditWebhookDialogProps) {
  const { t } = useLingui();
  const [draft, setDraft] = useState<WebhookDraft>({ url: '', events: [], description: '' });
  const [enabled, setEnabled] = useState(true);
  const body = useRef<HTMLDivElement>(null);
  const save = useMutation({
    mutationFn: ({ id, ...input }: WebhookDraft & { id: number; disabled: boolean }) =>
      request(UpdateWebhook, { id, input }),
    onSuccess: ({ updateWebhook }) => onSaved(updateWebhook.url),
  });
  const { reset } = save;
  useEffect(() => {
    if (!webhook) return;
    reset();
    setDraft({ url: webhook.url, events: webhook.events, description: webhook.description });
    setEnabled(!webhook.disabled);
  }, [webhook, reset]);
  const byField = problemsByField(save.error);
  useFocusFirstProblem(body, save.error);
  const url = webhook?.url ?? '';
  const reason = webhook?.disabled ? (webhook.disabledReason ?? '') : '';
  return (
    <FormDialog
      open={webhook !== undefined}
      title={t`Edit the webhook ${url}`}
      submitLabel={t`Save the webhook`}
      busy={save.isPending}
      error={save.isError && Object.keys(byField).length === 0 ? save.error.message : undefined}
      onCancel={onCancel}
      onSubmit={() =>
        webhook &&
        save.mutate({
          id: webhook.id,
          url: draft.url.trim(),
          events: draft.events,
          description: draft.description.trim(),
          disabled: !enabled,
        })
      }
    >
      <div ref={body}>
        <WebhookFields draft={draft} onChange={setDraft} errors={byField} />
        <label className="check">
          <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} />
          <span>
            <Trans>Enabled: events are delivered</Trans>
          </span>
        </label>
        {reason && (
          <p className="muted">
            <Trans>Disabled because: {reason}</Trans>
          </p>
        )}
      </div>
    </FormDialog>
  );
}
