/**
 * Sign in (contract §15): username and password, then a one-time or recovery code when the service
 * answers OTP_REQUIRED (§10.3). The token is kept in this tab only (auth/session.ts).
 */
import { Trans, useLingui } from '@lingui/react/macro';
import { useMutation } from '@tanstack/react-query';
import { createFileRoute, redirect, useNavigate } from '@tanstack/react-router';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { AdminLogin, safeRedirect } from '../auth/session.gql.ts';
import { session } from '../auth/session.ts';
import { ApiError, problemsByField } from '../gql/errors.ts';
import { request } from '../gql/request.ts';
import { LanguageSwitch } from '../ui/language-switch.tsx';
import { TextField } from '../ui/text-field.tsx';

export const Route = createFileRoute('/login')({
  validateSearch: (search: Record<string, unknown>): { redirect?: string } =>
    typeof search.redirect === 'string' ? { redirect: search.redirect } : {},
  beforeLoad: ({ search }) => {
    if (session.token()) throw redirect({ href: safeRedirect(search.redirect) });
  },
  component: SignIn,
});

function SignIn() {
  const { t } = useLingui();
  const { redirect: target } = Route.useSearch();
  const navigate = useNavigate();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [otp, setOtp] = useState('');
  const [step, setStep] = useState<'password' | 'code'>('password');
  const codeField = useRef<HTMLInputElement>(null);

  useEffect(() => {
    document.title = `${t`Sign in`} · ${t`Shop admin`}`;
  }, [t]);

  const login = useMutation({
    mutationFn: (vars: { username: string; password: string; otp?: string }) => request(AdminLogin, vars),
    onSuccess: ({ adminLogin }) => {
      session.start(adminLogin.accessToken, adminLogin.expiresIn);
      void navigate({ href: safeRedirect(target), replace: true });
    },
    onError: (error) => {
      if (error instanceof ApiError && error.code === 'OTP_REQUIRED') {
        setStep('code');
        login.reset();
      }
    },
  });

  useEffect(() => {
    if (step === 'code') codeField.current?.focus();
  }, [step]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    login.mutate(step === 'code' ? { username, password, otp: otp.trim() } : { username, password });
  };

  const error = login.error;
  const byField = problemsByField(error);
  const code = error instanceof ApiError ? error.code : undefined;
  const retryAfter = error instanceof ApiError ? Number(error.extensions.retryAfter) || undefined : undefined;
  const formError =
    code === undefined || code === 'VALIDATION_FAILED' || code === 'OTP_INVALID'
      ? undefined
      : code === 'INVALID_CREDENTIALS'
        ? t`Wrong username or password.`
        : code === 'RATE_LIMITED'
          ? retryAfter
            ? t`Too many attempts. Try again in ${retryAfter} seconds.`
            : t`Too many attempts. Try again later.`
          : code === 'ACCOUNT_DISABLED'
            ? t`This account is disabled.`
            : code === 'NETWORK'
              ? t`The service could not be reached. Check the connection and try again.`
              : (error?.message ?? '');

  return (
    <div className="sign-in">
      <header className="sign-in-bar">
        <LanguageSwitch />
      </header>
      <main id="main" className="sign-in-card">
        <h1>
          <Trans>Sign in to the shop admin</Trans>
        </h1>
        {formError && (
          <p className="form-error" role="alert">
            {formError}
          </p>
        )}
        <form onSubmit={submit} noValidate>
          {step === 'password' ? (
            <>
              <TextField
                label={t`Username`}
                name="username"
                autoComplete="username"
                required
                value={username}
                onChange={(e) => setUsername(e.target.value)}
                error={byField.username}
              />
              <TextField
                label={t`Password`}
                name="password"
                type="password"
                autoComplete="current-password"
                required
                value={password}
                onChange={(e) => setPassword(e.target.value)}
                error={byField.password}
              />
              <button type="submit" className="button primary" disabled={login.isPending}>
                <Trans>Sign in</Trans>
              </button>
            </>
          ) : (
            <>
              <p id="code-help">
                <Trans>
                  Two-factor login is on for this account. Enter the 6-digit code from your authenticator app, or one of
                  your recovery codes.
                </Trans>
              </p>
              <TextField
                ref={codeField}
                label={t`One-time or recovery code`}
                name="otp"
                autoComplete="one-time-code"
                required
                value={otp}
                onChange={(e) => setOtp(e.target.value)}
                error={code === 'OTP_INVALID' ? t`That code is wrong, already used or expired.` : byField.otp}
              />
              <div className="button-row">
                <button type="submit" className="button primary" disabled={login.isPending}>
                  <Trans>Verify</Trans>
                </button>
                <button
                  type="button"
                  className="button"
                  onClick={() => {
                    setStep('password');
                    setOtp('');
                    login.reset();
                  }}
                >
                  <Trans>Back</Trans>
                </button>
              </div>
            </>
          )}
          {login.isPending && (
            <p role="status" className="muted">
              <Trans>Signing in…</Trans>
            </p>
          )}
        </form>
      </main>
    </div>
  );
}
