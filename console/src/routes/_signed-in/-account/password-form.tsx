/**
 * Changing the own password (contract §10.1): the current one and the new one. A wrong current
 * password is the service's INVALID_CREDENTIALS (counted as a failed login); success ends every
 * other session of the admin, which the confirmation says and the sessions list then shows.
 */
import { Trans, useLingui } from '@lingui/react/macro';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ApiError, problemsByField } from '../../../gql/errors.ts';
import { request } from '../../../gql/request.ts';
import { TextField } from '../../../ui/text-field.tsx';
import { ChangeAdminPassword, SESSIONS_KEY } from '../-account.gql.ts';

export function PasswordForm() {
  const { t } = useLingui();
  const queryClient = useQueryClient();
  const [currentPassword, setCurrentPassword] = useState('');
  const [newPassword, setNewPassword] = useState('');
  const change = useMutation({
    mutationFn: (vars: { currentPassword: string; newPassword: string }) => request(ChangeAdminPassword, vars),
    onSuccess: () => {
      setCurrentPassword('');
      setNewPassword('');
      void queryClient.invalidateQueries({ queryKey: SESSIONS_KEY });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    change.mutate({ currentPassword, newPassword });
  };

  const error = change.error;
  const byField = problemsByField(error);
  const code = error instanceof ApiError ? error.code : undefined;
  const retryAfter = error instanceof ApiError ? Number(error.extensions.retryAfter) || undefined : undefined;
  const currentError = code === 'INVALID_CREDENTIALS' ? t`The current password is wrong.` : byField.currentPassword;
  const formError =
    !error || code === 'INVALID_CREDENTIALS' || code === 'VALIDATION_FAILED'
      ? undefined
      : code === 'RATE_LIMITED'
        ? retryAfter
          ? t`Too many attempts. Try again in ${retryAfter} seconds.`
          : t`Too many attempts. Try again later.`
        : error.message;

  return (
    <form onSubmit={submit} noValidate className="account-form">
      {formError && (
        <p className="form-error" role="alert">
          {formError}
        </p>
      )}
      <TextField
        label={t`Current password`}
        name="current-password"
        type="password"
        autoComplete="current-password"
        required
        value={currentPassword}
        onChange={(e) => setCurrentPassword(e.target.value)}
        error={currentError}
      />
      <TextField
        label={t`New password`}
        name="new-password"
        type="password"
        autoComplete="new-password"
        required
        minLength={8}
        value={newPassword}
        onChange={(e) => setNewPassword(e.target.value)}
        error={byField.newPassword}
      />
      <button type="submit" className="button primary" disabled={change.isPending}>
        <Trans>Change password</Trans>
      </button>
      <p role="status" className="status-line">
        {change.isSuccess && (
          <Trans>Your password is changed. Your other sessions were ended; this one stays signed in.</Trans>
        )}
      </p>
    </form>
  );
}
