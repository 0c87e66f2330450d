/** A new webhook: URL, event types, description; the answer's secret goes to the caller to show once. */
import { Trans, useLingui } from '@lingui/react/macro';
import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useId, useRef, useState } from 'react';
import { problemsByField } from '../../../gql/errors.ts';
import { request } from '../../../gql/request.ts';
import { CreateWebhook } from '../-webhooks.gql.ts';
import { useFocusFirstProblem } from './focus-problem.ts';
import { EMPTY_DRAFT, type WebhookDraft, WebhookFields } from './webhook-fields.tsx';

export function CreateWebhookForm({ onCreated }: { onCreated: (created: { url: string; secret: string }) => void }) {
  const { t } = useLingui();
  const formId = useId();
  const [draft, setDraft] = useState<WebhookDraft>(EMPTY_DRAFT);
  const create = useMutation({
    mutationFn: (input: WebhookDraft) => request(CreateWebhook, { input }),
    onSuccess: ({ createWebhook }) => {
      setDraft(EMPTY_DRAFT);
      onCreated({ url: createWebhook.webhook.url, secret: createWebhook.secret });
    },
  });
  const byField = problemsByField(create.error);
  const form = useRef<HTMLFormElement>(null);
  useFocusFirstProblem(form, create.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate({ url: draft.url.trim(), events: draft.events, description: draft.description.trim() });
  };
  return (
    <form
      ref={form}
      className="create-form webhook-form"
      onSubmit={submit}
      noValidate
      aria-labelledby={`${formId}-title`}
    >
      <h2 id={`${formId}-title`}>
        <Trans>Add a webhook</Trans>
      </h2>
      {create.isError && Object.keys(byField).length === 0 && (
        <p className="form-error" role="alert">
          {create.error.message}
        </p>
      )}
      <WebhookFields draft={draft} onChange={setDraft} errors={byField} />
      <button type="submit" className="button primary" disabled={create.isPending} aria-busy={create.isPending}>
        {t`Create the webhook`}
      </button>
    </form>
  );
}
