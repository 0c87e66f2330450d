/**
 * Turning two-factor login on (contract §10.3), for My account and for sign-in when the service
 * requires it (ADMIN_REQUIRE_TOTP, §15): enrollTotp gives a secret with its QR code (an SVG string,
 * shown as an image from a data: URL — never put into the page as markup), the admin confirms with
 * the app's current code, and the ten recovery codes are shown this once, to copy or download.
 * Each step's heading takes the focus, so a keyboard or screen-reader user is told where they are.
 */
import { Trans, useLingui } from '@lingui/react/macro';
import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { ApiError, problemsByField } from '../gql/errors.ts';
import { graphql } from '../gql/graphql.ts';
import { request } from '../gql/request.ts';
import { CopyButton } from './copy-button.tsx';
import { TextField } from './text-field.tsx';

const EnrollTotp = graphql(`
  mutation EnrollTotp {
    enrollTotp {
      secret
      otpauthUri
      qrSvg
    }
  }
`);

const ConfirmTotp = graphql(`
  mutation ConfirmTotp($code: String!) {
    confirmTotp(code: $code)
  }
`);

/** An SVG document as an image URL: base64 of its UTF-8 bytes, so no character of it is markup here. */
export function svgDataUrl(svg: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(svg)) binary += String.fromCharCode(byte);
  return `data:image/svg+xml;base64,${btoa(binary)}`;
}

/** The base32 secret in groups of four, as authenticator apps show keys (easier to type). */
const grouped = (secret: string) => secret.match(/.{1,4}/g)?.join(' ') ?? secret;

interface TotpEnrolmentProps {
  /** The heading level of the steps (2 under a page's h1, 3 under a section's h2). */
  level: 2 | 3;
  /** The button that starts enrolment. */
  startLabel: string;
  /** The button after the recovery codes ("Done", "Continue to the console"). */
  doneLabel: string;
  /** Two-factor login is on and the codes were shown. */
  onDone: () => void;
  /** Two-factor login is on; the codes are on screen now (onDone follows when the admin is done). */
  onConfirmed?: () => void;
  /** Offered before it is on (My account); absent where enrolment is required. */
  onCancel?: () => void;
}

export function TotpEnrolment({ level, startLabel, doneLabel, onDone, onConfirmed, onCancel }: TotpEnrolmentProps) {
  const { t } = useLingui();
  const Heading = level === 2 ? 'h2' : 'h3';
  const [code, setCode] = useState('');
  const [recoveryCodes, setRecoveryCodes] = useState<string[]>();
  const heading = useRef<HTMLHeadingElement>(null);

  const enrol = useMutation({ mutationFn: () => request(EnrollTotp, {}) });
  const confirm = useMutation({
    mutationFn: (vars: { code: string }) => request(ConfirmTotp, vars),
    onSuccess: ({ confirmTotp }) => {
      setRecoveryCodes(confirmTotp);
      onConfirmed?.();
    },
  });
  const enrolment = enrol.data?.enrollTotp;
  const step = recoveryCodes ? 'codes' : enrolment ? 'scan' : 'start';

  useEffect(() => {
    if (step !== 'start') heading.current?.focus();
  }, [step]);

  if (step === 'start') {
    return (
      <div className="totp-enrolment">
        {enrol.isError && (
          <p className="form-error" role="alert">
            {enrol.error.message}
          </p>
        )}
        <button
          type="button"
          className="button primary"
          disabled={enrol.isPending}
          aria-busy={enrol.isPending || undefined}
          onClick={() => enrol.mutate()}
        >
          {startLabel}
        </button>
      </div>
    );
  }

  if (step === 'codes' && recoveryCodes) {
    const text = recoveryCodes.join('\n');
    return (
      <div className="totp-enrolment">
        <Heading ref={heading} tabIndex={-1}>
          <Trans>Save your recovery codes</Trans>
        </Heading>
        <p>
          <Trans>
            Two-factor login is on. If you lose your phone, each of these codes signs you in once in place of a code
            from the app.
          </Trans>
        </p>
        <p className="warning">
          <strong>
            <Trans>They are shown only now: copy or download them and keep them somewhere safe.</Trans>
          </strong>
        </p>
        <ol className="recovery-codes" aria-label={t`Recovery codes`}>
          {recoveryCodes.map((c) => (
            <li key={c}>
              <code>{c}</code>
            </li>
          ))}
        </ol>
        <div className="button-row">
          <CopyButton text={text} label={t`Copy the codes`} />
          <a
            className="button"
            href={`data:text/plain;charset=utf-8,${encodeURIComponent(`${text}\n`)}`}
            download="shop-admin-recovery-codes.txt"
          >
            <Trans>Download the codes</Trans>
          </a>
          <button type="button" className="button primary" onClick={onDone}>
            {doneLabel}
          </button>
        </div>
      </div>
    );
  }

  const submit = (event: FormEvent) => {
    event.preventDefault();
    confirm.mutate({ code: code.replace(/\s/g, '') });
  };
  const error = confirm.error;
  const codeProblem =
    error instanceof ApiError && error.code === 'VALIDATION_FAILED' && problemsByField(error).code
      ? t`That is not the app's current code. Check that the phone's clock is right and enter the newest code.`
      : undefined;
  const formError = error && !codeProblem ? error.message : undefined;

  return (
    <div className="totp-enrolment">
      <Heading ref={heading} tabIndex={-1}>
        <Trans>Add this account to your authenticator app</Trans>
      </Heading>
      <p>
        <Trans>Scan the QR code with an authenticator app, then enter the 6-digit code it shows.</Trans>
      </p>
      {enrolment && (
        <>
          <img
            className="qr-code"
            src={svgDataUrl(enrolment.qrSvg)}
            alt={t`QR code that adds this account to an authenticator app`}
            width={200}
            height={200}
          />
          <p>
            <Trans>Cannot scan it? Type this key into the app instead:</Trans>{' '}
            <code className="totp-secret">{grouped(enrolment.secret)}</code>
          </p>
        </>
      )}
      {formError && (
        <p className="form-error" role="alert">
          {formError}
        </p>
      )}
      <form onSubmit={submit} noValidate>
        <TextField
          label={t`Code from the app`}
          name="totp-code"
          autoComplete="one-time-code"
          inputMode="numeric"
          required
          value={code}
          onChange={(e) => setCode(e.target.value)}
          error={codeProblem}
        />
        <div className="button-row">
          <button
            type="submit"
            className="button primary"
            disabled={confirm.isPending}
            aria-busy={confirm.isPending || undefined}
          >
            <Trans>Turn on two-factor login</Trans>
          </button>
          {onCancel && (
            <button type="button" className="button" onClick={onCancel}>
              <Trans>Cancel</Trans>
            </button>
          )}
        </div>
      </form>
    </div>
  );
}
