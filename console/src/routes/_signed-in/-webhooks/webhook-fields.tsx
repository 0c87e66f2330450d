/**
 * A webhook's fields, the same for creating and editing: its URL, the event types it receives (the
 * §14.1 types, or "every event" = `*`) and a description. The service's VALIDATION_FAILED problems
 * show under their fields ("must be an https:// URL", "resolves to a non-public address …").
 */
import { Trans, useLingui } from '@lingui/react/macro';
import { useId } from 'react';
import { TextField } from '../../../ui/text-field.tsx';
import { ALL_EVENTS, EVENT_TYPES } from './event-types.ts';

export interface WebhookDraft {
  url: string;
  /** `['*']` for every event, else the chosen types. */
  events: string[];
  description: string;
}

export const EMPTY_DRAFT: WebhookDraft = { url: '', events: [ALL_EVENTS], description: '' };

interface WebhookFieldsProps {
  draft: WebhookDraft;
  onChange: (draft: WebhookDraft) => void;
  /** The service's problems by field name (`url`, `events`, `description`). */
  errors: Record<string, string>;
}

export function WebhookFields({ draft, onChange, errors }: WebhookFieldsProps) {
  const { t } = useLingui();
  const id = useId();
  const all = draft.events.includes(ALL_EVENTS);
  const toggle = (type: string, on: boolean) =>
    onChange({
      ...draft,
      events: on ? [...draft.events.filter((e) => e !== ALL_EVENTS), type] : draft.events.filter((e) => e !== type),
    });
  return (
    <>
      <TextField
        label={t`Endpoint URL`}
        name="webhook-url"
        type="url"
        inputMode="url"
        autoComplete="off"
        spellCheck={false}
        required
        maxLength={2048}
        placeholder="https://"
        value={draft.url}
        onChange={(e) => onChange({ ...draft, url: e.target.value })}
        error={errors.url}
      />
      <fieldset className="event-types" aria-describedby={errors.events ? `${id}-events-error` : undefined}>
        <legend>{t`Event types`}</legend>
        <label className="check">
          <input
            type="checkbox"
            checked={all}
            onChange={(e) => onChange({ ...draft, events: e.target.checked ? [ALL_EVENTS] : [] })}
          />
          <span>
            <Trans>
              Every event (<code>*</code>), those added later too
            </Trans>
          </span>
        </label>
        {!all && (
          <div className="event-type-list">
            {EVENT_TYPES.map((type) => (
              <label key={type} className="check">
                <input
                  type="checkbox"
                  checked={draft.events.includes(type)}
                  onChange={(e) => toggle(type, e.target.checked)}
                />
                <code>{type}</code>
              </label>
            ))}
          </div>
        )}
        {errors.events && (
          <p id={`${id}-events-error`} className="field-error">
            {errors.events}
          </p>
        )}
      </fieldset>
      <TextField
        label={t`Description (optional)`}
        name="webhook-description"
        autoComplete="off"
        maxLength={500}
        value={draft.description}
        onChange={(e) => onChange({ ...draft, description: e.target.value })}
        error={errors.description}
      />
    </>
  );
}
