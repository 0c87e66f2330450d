/**
 * A confirmation before something that cannot be undone (bulk delete, revoke a key, delete a
 * category): the native `<dialog>` opened with `showModal()`, so the browser moves focus in, keeps it
 * there, closes on Esc and returns focus to the control that opened it — no focus-trap code of ours.
 * The safe choice (Cancel) has the initial focus; the destructive one is styled as such.
 */
import { Trans } from '@lingui/react/macro';
import { type ReactNode, useEffect, useId, useRef } from 'react';

interface ConfirmDialogProps {
  open: boolean;
  title: string;
  children?: ReactNode;
  /** The confirming button's text ("Delete 3 items"): it names the action, never just "OK". */
  confirmLabel: string;
  destructive?: boolean;
  /** While the action runs: every button disabled, the dialog stays open. */
  busy?: boolean;
  /** A second way out besides Cancel and the confirming one ("Reload" beside "Overwrite"). */
  alternative?: { label: string; onChoose: () => void };
  onConfirm: () => void;
  onCancel: () => void;
}

export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  destructive,
  busy,
  alternative,
  onConfirm,
  onCancel,
}: ConfirmDialogProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const bodyId = useId();
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (open && !element.open) element.showModal();
    if (!open && element.open) element.close();
  }, [open]);
  return (
    <dialog
      ref={dialog}
      className="confirm-dialog"
      aria-labelledby={titleId}
      aria-describedby={children ? bodyId : undefined}
      // Esc (the browser's cancel) is the Cancel button; the dialog closes only through `open`.
      onCancel={(event) => {
        event.preventDefault();
        if (!busy) onCancel();
      }}
    >
      <h2 id={titleId}>{title}</h2>
      {children && <div id={bodyId}>{children}</div>}
      <div className="button-row">
        {/* biome-ignore lint/a11y/noAutofocus: in a modal <dialog>, autofocus is how the safe choice gets the focus (the dialog focusing steps) */}
        <button type="button" className="button" autoFocus disabled={busy} onClick={onCancel}>
          <Trans>Cancel</Trans>
        </button>
        {alternative && (
          <button type="button" className="button" disabled={busy} onClick={alternative.onChoose}>
            {alternative.label}
          </button>
        )}
        <button
          type="button"
          className={`button ${destructive ? 'danger' : 'primary'}`}
          disabled={busy}
          aria-busy={busy || undefined}
          onClick={onConfirm}
        >
          {confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
