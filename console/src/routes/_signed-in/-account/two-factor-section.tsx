/**
 * The own two-factor login (contract §10.3): off → the shared enrolment (ui/totp-enrolment.tsx),
 * which stays on screen until the admin has taken the recovery codes; on → turning it off, which the
 * service allows only with a current code or a recovery code.
 */
import { Trans, useLingui } from '@lingui/react/macro';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { type AdminMe, adminMeQuery } from '../../../auth/session.gql.ts';
import { ApiError, problemsByField } from '../../../gql/errors.ts';
import type { ResultOf } from '../../../gql/graphql.ts';
import { request } from '../../../gql/request.ts';
import { TextField } from '../../../ui/text-field.tsx';
import { TotpEnrolment } from '../../../ui/totp-enrolment.tsx';
import { DisableTotp } from '../-account.gql.ts';

export function TwoFactorSection({ enabled }: { enabled: boolean }) {
  const { t } = useLingui();
  const queryClient = useQueryClient();
  // Set once the codes are on screen: the section keeps them there although the admin is now "on".
  const [enrolling, setEnrolling] = useState(false);
  // A fresh enrolment after Cancel (the component starts over).
  const [attempt, setAttempt] = useState(0);
  const [announcement, setAnnouncement] = useState('');
  // The service has said the new state: show it now (a refetch alone left "off" on screen for a moment
  // after Done, next to "Two-factor login is on."), then refetch to be sure.
  const settle = (totpEnabled: boolean) => {
    queryClient.setQueryData<ResultOf<typeof AdminMe>>(adminMeQuery.queryKey, (old) =>
      old?.adminMe ? { adminMe: { ...old.adminMe, totpEnabled } } : old,
    );
    void queryClient.invalidateQueries({ queryKey: adminMeQuery.queryKey });
  };

  return (
    <>
      <p>
        {enabled && !enrolling ? (
          <Trans>
            Two-factor login is <strong>on</strong>: signing in needs a code from your authenticator app (or a recovery
            code).
          </Trans>
        ) : !enabled ? (
          <Trans>
            Two-factor login is <strong>off</strong>: your password alone signs you in.
          </Trans>
        ) : null}
      </p>
      {!enabled || enrolling ? (
        <TotpEnrolment
          key={attempt}
          level={3}
          startLabel={t`Turn on two-factor login`}
          doneLabel={t`Done`}
          onConfirmed={() => {
            setEnrolling(true);
            settle(true);
          }}
          onCancel={() => setAttempt((n) => n + 1)}
          onDone={() => {
            setEnrolling(false);
            setAnnouncement(t`Two-factor login is on.`);
          }}
        />
      ) : (
        <DisableForm
          onDisabled={() => {
            setAnnouncement(t`Two-factor login is off.`);
            settle(false);
          }}
        />
      )}
      <p role="status" className="status-line">
        {announcement}
      </p>
    </>
  );
}

function DisableForm({ onDisabled }: { onDisabled: () => void }) {
  const { t } = useLingui();
  const [code, setCode] = useState('');
  const disable = useMutation({
    mutationFn: (vars: { code: string }) => request(DisableTotp, vars),
    onSuccess: onDisabled,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    disable.mutate({ code: code.trim() });
  };
  const error = disable.error;
  const codeCode = error instanceof ApiError ? error.code : undefined;
  const retryAfter = error instanceof ApiError ? Number(error.extensions.retryAfter) || undefined : undefined;
  const codeError = problemsByField(error).code ? t`That code is wrong, already used or expired.` : undefined;
  const formError =
    !error || codeError
      ? undefined
      : codeCode === 'RATE_LIMITED'
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
        label={t`One-time or recovery code`}
        name="disable-otp"
        autoComplete="one-time-code"
        required
        value={code}
        onChange={(e) => setCode(e.target.value)}
        error={codeError}
      />
      <button type="submit" className="button danger" disabled={disable.isPending}>
        <Trans>Turn off two-factor login</Trans>
      </button>
    </form>
  );
}
