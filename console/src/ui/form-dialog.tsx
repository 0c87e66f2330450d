/**
 * A small form in a dialog (name a category, pick a new parent, edit a synonym group): the native
 * `<dialog>` opened with `showModal()`, as the confirmation dialog is, so the browser moves focus in
 * (to the first field), keeps it there, closes on Esc and returns focus to what opened it. Enter in a
 * field submits; a problem of the whole form is said in an alert above the buttons, a field's under it.
 */
import { Trans } from '@lingui/react/macro';
import { type FormEvent, type ReactNode, useEffect, useId, useRef } from 'react';

interface FormDialogProps {
  open: boolean;
  title: string;
  children: ReactNode;
  /** The submitting button's text: it names the action ("Rename", "Move"). */
  submitLabel: string;
  /** While the request runs: the buttons are disabled and the dialog stays open. */
  busy?: boolean;
  /** A problem that belongs to no one field. */
  error?: string;
  onSubmit: () => void;
  onCancel: () => void;
}

export function FormDialog({ open, title, children, submitLabel, busy, error, onSubmit, onCancel }: FormDialogProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (open && !element.open) element.showModal();
    if (!open && element.open) element.close();
  }, [open]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!busy) onSubmit();
  };
  return (
    <dialog
      ref={dialog}
      className="confirm-dialog form-dialog"
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        if (!busy) onCancel();
      }}
    >
      {open && (
        <form onSubmit={submit} noValidate>
          <h2 id={titleId}>{title}</h2>
          {children}
          {error && (
            <p className="form-error" role="alert">
              {error}
            </p>
          )}
          <div className="button-row">
            <button type="button" className="button" disabled={busy} onClick={onCancel}>
              <Trans>Cancel</Trans>
            </button>
            <button type="submit" className="button primary" disabled={busy} aria-busy={busy || undefined}>
              {submitLabel}
            </button>
          </div>
        </form>
      )}
    </dialog>
  );
}
