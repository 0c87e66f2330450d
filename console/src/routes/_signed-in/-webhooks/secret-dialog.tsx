/**
 * A webhook's signing secret, this once (a new webhook's, or a rotated one's): the service keeps it
 * only to sign, so closing the dialog forgets it for good.
 */
import { Trans, useLingui } from '@lingui/react/macro';
import { CopyButton } from '../../../ui/copy-button.tsx';
import { ModalDialog } from '../../../ui/modal-dialog.tsx';

export interface ShownSecret {
  url: string;
  secret: string;
  /** True after a rotation: the previous secret still signs for 24 h. */
  rotated: boolean;
}

export function SecretDialog({ shown, onClose }: { shown?: ShownSecret; onClose: () => void }) {
  const { t } = useLingui();
  const url = shown?.url ?? '';
  return (
    <ModalDialog
      open={shown !== undefined}
      title={shown?.rotated ? t`The new signing secret of ${url}` : t`The signing secret of ${url}`}
      onClose={onClose}
      actions={
        <button type="button" className="button primary" onClick={onClose}>
          <Trans>I have stored the secret</Trans>
        </button>
      }
    >
      <p className="warning">
        <strong>
          <Trans>Copy the secret now: it is shown only this once and cannot be shown again.</Trans>
        </strong>
      </p>
      <p>
        <code className="secret-value">{shown?.secret}</code>
      </p>
      <CopyButton text={shown?.secret ?? ''} label={t`Copy the secret`} />
      {shown?.rotated ? (
        <p>
          <Trans>
            For the next 24 hours the previous secret keeps signing too (a second signature in each delivery), so the
            receiver can switch over; then only the new one signs.
          </Trans>
        </p>
      ) : (
        <p className="muted">
          <Trans>The receiver checks each delivery's webhook-signature header with it (Standard Webhooks).</Trans>
        </p>
      )}
    </ModalDialog>
  );
}
