/**
 * API keys for integrations (contract §10.5, owner): the list (revoked and expired ones too), a new
 * key with a name, a role (any but owner) and an optional expiry day, whose secret is shown once in a
 * dialog with a Copy button and then forgotten; revoking one after a confirmation.
 */
import { Trans, useLingui } from '@lingui/react/macro';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useId, useState } from 'react';
import { ADMIN_ROLES, type AdminRole } from '../../../auth/roles.ts';
import { errorText } from '../../../gql/error-text.ts';
import { problemsByField } from '../../../gql/errors.ts';
import { request } from '../../../gql/request.ts';
import { ConfirmDialog } from '../../../ui/confirm-dialog.tsx';
import { CopyButton } from '../../../ui/copy-button.tsx';
import { useDateTime } from '../../../ui/date-time.ts';
import { ModalDialog } from '../../../ui/modal-dialog.tsx';
import { useRoleName } from '../../../ui/role-name.ts';
import { TextField } from '../../../ui/text-field.tsx';
import { API_KEYS_KEY, ApiKeys, CreateApiKey, RevokeApiKey, type TeamApiKey } from '../-team.gql.ts';

/** An API key may have any role but owner (contract §10.5). */
const KEY_ROLES = ADMIN_ROLES.filter((role) => role !== 'owner');

export function ApiKeysSection() {
  const { t } = useLingui();
  const queryClient = useQueryClient();
  const roleName = useRoleName();
  const dateTime = useDateTime();
  const captionId = useId();
  const [created, setCreated] = useState<{ name: string; secret: string }>();
  const [revoking, setRevoking] = useState<TeamApiKey>();
  const [announcement, setAnnouncement] = useState('');
  const keys = useQuery({ queryKey: API_KEYS_KEY, queryFn: ({ signal }) => request(ApiKeys, {}, signal) });
  const refresh = () => queryClient.invalidateQueries({ queryKey: API_KEYS_KEY });
  const revoke = useMutation({
    mutationFn: (key: TeamApiKey) => request(RevokeApiKey, { id: key.id }).then(() => key),
    onSuccess: (key) => {
      const name = key.name;
      setAnnouncement(t`The key ${name} is revoked.`);
      setRevoking(undefined);
      void refresh();
    },
  });

  const list = keys.data?.apiKeys ?? [];
  const now = Date.now();
  const revokingName = revoking?.name ?? '';

  return (
    <>
      <CreateApiKeyForm
        onCreated={(key) => {
          setCreated(key);
          void refresh();
        }}
      />
      <h3 id={captionId}>
        <Trans>API keys</Trans>
      </h3>
      {keys.isError && (
        <p className="form-error" role="alert">
          {keys.error.message}
        </p>
      )}
      <p role="status" className="status-line">
        {announcement}
      </p>
      {keys.isSuccess && list.length === 0 && (
        <p className="notice">
          <Trans>No API keys yet.</Trans>
        </p>
      )}
      {list.length > 0 && (
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard (WCAG 2.1.1)
        <section className="table-scroll" aria-labelledby={captionId} tabIndex={0}>
          <table className="api-keys-table" aria-busy={keys.isFetching}>
            <thead>
              <tr>
                <th scope="col">
                  <Trans>Name</Trans>
                </th>
                <th scope="col">
                  <Trans>Role</Trans>
                </th>
                <th scope="col">
                  <Trans>Key</Trans>
                </th>
                <th scope="col">
                  <Trans>Created</Trans>
                </th>
                <th scope="col">
                  <Trans>Expires</Trans>
                </th>
                <th scope="col">
                  <Trans>Last used</Trans>
                </th>
                <th scope="col">
                  <Trans>State</Trans>
                </th>
                <th scope="col">
                  <Trans>Action</Trans>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.map((key) => {
                const expired = key.expiresAt !== null && Date.parse(key.expiresAt) <= now;
                const name = key.name;
                const creator = key.createdBy?.username;
                return (
                  <tr key={key.id}>
                    <th scope="row" className="key-name">
                      {name}
                    </th>
                    <td>{roleName(key.role)}</td>
                    <td>
                      <code>shk_{key.prefix}…</code>
                    </td>
                    <td>
                      {dateTime(key.createdAt)}
                      {creator && (
                        <span className="muted block">
                          <Trans>by {creator}</Trans>
                        </span>
                      )}
                    </td>
                    <td>{key.expiresAt ? dateTime(key.expiresAt) : <Trans>Never</Trans>}</td>
                    <td>{key.lastUsedAt ? dateTime(key.lastUsedAt) : <Trans>Not yet</Trans>}</td>
                    <td>
                      {key.revokedAt ? (
                        <span className="badge state-disabled">
                          <Trans>Revoked</Trans>
                        </span>
                      ) : expired ? (
                        <span className="badge state-disabled">
                          <Trans>Expired</Trans>
                        </span>
                      ) : (
                        <Trans>Active</Trans>
                      )}
                    </td>
                    <td>
                      {!key.revokedAt && (
                        <button
                          type="button"
                          className="button"
                          onClick={() => {
                            revoke.reset();
                            setRevoking(key);
                          }}
                        >
                          <Trans>
                            Revoke<span className="visually-hidden"> the key {name}</span>
                          </Trans>
                        </button>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </section>
      )}

      <ConfirmDialog
        open={revoking !== undefined}
        title={t`Revoke the key ${revokingName}?`}
        confirmLabel={t`Revoke the key`}
        destructive
        busy={revoke.isPending}
        onConfirm={() => revoking && revoke.mutate(revoking)}
        onCancel={() => setRevoking(undefined)}
      >
        <p>
          <Trans>Every integration that uses it is refused from now on. This cannot be undone.</Trans>
        </p>
        {revoke.isError && (
          <p className="form-error" role="alert">
            {errorText(revoke.error)}
          </p>
        )}
      </ConfirmDialog>
      <NewKeyDialog created={created} onClose={() => setCreated(undefined)} />
    </>
  );
}

/** The new key's secret, this once: closing the dialog forgets it. */
function NewKeyDialog({ created, onClose }: { created?: { name: string; secret: string }; onClose: () => void }) {
  const { t } = useLingui();
  const name = created?.name ?? '';
  return (
    <ModalDialog
      open={created !== undefined}
      title={t`The API key ${name}`}
      onClose={onClose}
      actions={
        <button type="button" className="button primary" onClick={onClose}>
          <Trans>I have stored the key</Trans>
        </button>
      }
    >
      <p className="warning">
        <strong>
          <Trans>Copy the key now: it is shown only this once and cannot be shown again.</Trans>
        </strong>
      </p>
      <p>
        <code className="secret-value">{created?.secret}</code>
      </p>
      <CopyButton text={created?.secret ?? ''} label={t`Copy the key`} />
      <p className="muted">
        <Trans>An integration sends it as the header Authorization: Bearer followed by the key.</Trans>
      </p>
    </ModalDialog>
  );
}

function CreateApiKeyForm({ onCreated }: { onCreated: (key: { name: string; secret: string }) => void }) {
  const { t } = useLingui();
  const roleName = useRoleName();
  const formId = useId();
  const [name, setName] = useState('');
  const [role, setRole] = useState<AdminRole>('catalog_manager');
  const [expiresOn, setExpiresOn] = useState('');
  const create = useMutation({
    mutationFn: (input: { name: string; role: AdminRole; expiresAt: string | null }) =>
      request(CreateApiKey, { input }),
    onSuccess: ({ createApiKey }) => {
      setName('');
      setExpiresOn('');
      onCreated({ name: createApiKey.apiKey.name, secret: createApiKey.secret });
    },
  });
  const byField = problemsByField(create.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    // The chosen day, to its end in the admin's time zone.
    const expiresAt = expiresOn ? new Date(`${expiresOn}T23:59:59.999`).toISOString() : null;
    create.mutate({ name: name.trim(), role, expiresAt });
  };
  return (
    <form className="create-form" onSubmit={submit} noValidate aria-labelledby={`${formId}-title`}>
      <h3 id={`${formId}-title`}>
        <Trans>Create an API key</Trans>
      </h3>
      {create.isError && Object.keys(byField).length === 0 && (
        <p className="form-error" role="alert">
          {create.error.message}
        </p>
      )}
      <div className="form-grid">
        <TextField
          label={t`Key name`}
          name="api-key-name"
          autoComplete="off"
          required
          maxLength={100}
          value={name}
          onChange={(e) => setName(e.target.value)}
          error={byField.name}
        />
        <div className="field">
          <label htmlFor={`${formId}-role`}>{t`Key role`}</label>
          <select
            id={`${formId}-role`}
            value={role}
            aria-invalid={byField.role ? true : undefined}
            aria-describedby={byField.role ? `${formId}-role-error` : undefined}
            onChange={(e) => setRole(e.target.value as AdminRole)}
          >
            {KEY_ROLES.map((r) => (
              <option key={r} value={r}>
                {roleName(r)}
              </option>
            ))}
          </select>
          {byField.role && (
            <p id={`${formId}-role-error`} className="field-error">
              {byField.role}
            </p>
          )}
        </div>
        <TextField
          label={t`Expires on (optional)`}
          name="api-key-expires"
          type="date"
          value={expiresOn}
          onChange={(e) => setExpiresOn(e.target.value)}
          error={byField.expiresAt}
        />
      </div>
      <button type="submit" className="button primary" disabled={create.isPending}>
        <Trans>Create the key</Trans>
      </button>
    </form>
  );
}
