/**
 * Sign in (contract §15): username and password, then a one-time or recovery code when the service
 * answers OTP_REQUIRED (§10.3). Where the service requires two-factor login (ADMIN_REQUIRE_TOTP) and
 * the admin has not turned it on, the login's token may do nothing but enrol
 * (`admin.totpEnrollmentRequired`): this screen then leads the admin through enrolment (the QR code,
 * a code, the recovery codes) before the console opens — also after a reload in the middle of it.
 * The token is kept in this tab only (auth/session.ts).
 */
import { Trans, useLingui } from '@lingui/react/macro';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { createFileRoute, redirect, useNavigate } from '@tanstack/react-router';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { AdminLogin, adminMeQuery, safeRedirect, signOut } from '../auth/session.gql.ts';
import { session } from '../auth/session.ts';
import { ApiError, isTokenError, problemsByField } from '../gql/errors.ts';
import { request } from '../gql/request.ts';
import { LanguageSwitch } from '../ui/language-switch.tsx';
import { TextField } from '../ui/text-field.tsx';
import { TotpEnrolment } from '../ui/totp-enrolment.tsx';

export const Route = createFileRoute('/login')({
  validateSearch: (search: Record<string, unknown>): { redirect?: string } =>
    typeof search.redirect === 'string' ? { redirect: search.redirect } : {},
  beforeLoad: async ({ search, context }) => {
    if (!session.token()) return { enrolling: false };
    try {
      // Signed in, but enrolment still owed (a reload mid-enrolment, or the signed-in frame sent us here).
      const { adminMe } = await context.queryClient.ensureQueryData(adminMeQuery);
      if (adminMe?.totpEnrollmentRequired) return { enrolling: true };
    } catch (error) {
      if (!isTokenError(error)) throw error;
      session.clear();
      return { enrolling: false };
    }
    throw redirect({ href: safeRedirect(search.redirect) });
  },
  component: SignIn,
});

function SignIn() {
  const { t } = useLingui();
  const { redirect: target } = Route.useSearch();
  const { enrolling } = Route.useRouteContext();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [otp, setOtp] = useState('');
  const [step, setStep] = useState<'password' | 'code' | 'enrol'>(enrolling ? 'enrol' : 'password');
  const codeField = useRef<HTMLInputElement>(null);

  useEffect(() => {
    document.title = `${t`Sign in`} · ${t`Shop admin`}`;
  }, [t]);

  const login = useMutation({
    mutationFn: (vars: { username: string; password: string; otp?: string }) => request(AdminLogin, vars),
    onSuccess: ({ adminLogin }) => {
      session.start(adminLogin.accessToken, adminLogin.expiresIn);
      if (adminLogin.admin.totpEnrollmentRequired) setStep('enrol');
      else void navigate({ href: safeRedirect(target), replace: true });
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
        {step === 'enrol' ? (
          <RequiredEnrolment
            onDone={() => {
              // adminMe said enrolment was owed: forget it, so the signed-in frame asks again and lets the admin in.
              queryClient.removeQueries({ queryKey: adminMeQuery.queryKey });
              void navigate({ href: safeRedirect(target), replace: true });
            }}
            onSignOut={async () => {
              await signOut(queryClient);
              login.reset();
              setPassword('');
              setOtp('');
              setStep('password');
            }}
          />
        ) : (
          <>
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
                      Two-factor login is on for this account. Enter the 6-digit code from your authenticator app, or
                      one of your recovery codes.
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
          </>
        )}
      </main>
    </div>
  );
}

/** The enrolment the service demands before anything else (ADMIN_REQUIRE_TOTP, contract §10.3). */
function RequiredEnrolment({ onDone, onSignOut }: { onDone: () => void; onSignOut: () => void }) {
  const { t } = useLingui();
  const intro = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    intro.current?.focus();
  }, []);
  return (
    <section className="required-enrolment">
      <p ref={intro} tabIndex={-1}>
        <Trans>
          This shop requires two-factor login for every admin. Turn it on now to continue: you need an authenticator app
          on your phone.
        </Trans>
      </p>
      <TotpEnrolment
        level={2}
        startLabel={t`Set up two-factor login`}
        doneLabel={t`Continue to the console`}
        onDone={onDone}
      />
      <p>
        <button type="button" className="link-button" onClick={onSignOut}>
          <Trans>Sign out instead</Trans>
        </button>
      </p>
    </section>
  );
}
