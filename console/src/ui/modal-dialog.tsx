/**
 * A modal that shows something rather than asks (a new API key's secret): the native `<dialog>` with
 * `showModal()`, as confirm-dialog.tsx, so focus moves in, stays there and returns to the opener, and
 * Esc closes it. It closes only through `open`, so the screen decides what closing forgets.
 */
import { type ReactNode, useEffect, useId, useRef } from 'react';

interface ModalDialogProps {
  open: boolean;
  title: string;
  children: ReactNode;
  /** The dialog's buttons; one of them calls onClose. */
  actions: ReactNode;
  onClose: () => void;
}

export function ModalDialog({ open, title, children, actions, onClose }: ModalDialogProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
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
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      <h2 id={titleId}>{title}</h2>
      {open && children}
      <div className="button-row">{actions}</div>
    </dialog>
  );
}
